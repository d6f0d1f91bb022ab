// The OpenAI Responses wire format (`POST /v1/responses`): its front door (client ⇄ hub) and its provider side
// (hub ⇄ a provider that speaks Responses natively). Pure conversion: no I/O.
//
// Decisions where the format leaves room (golden tests in responses.test.ts pin them):
// - Switchboard stores nothing: `previous_response_id`, `conversation` and `background: true` are refused (400);
//   `store`, `reasoning`, `metadata`, `truncation` are ignored. Built-in tools (web_search, file_search, …) are
//   refused: a chat provider cannot run them.
// - `instructions` and `developer` messages become hub `system` messages (widest provider support).
// - `max_output_tokens` becomes hub `max_tokens` (accepted by more chat providers than max_completion_tokens).
// - A streamed reply ending at the token limit or a content filter ends with `response.incomplete`, as OpenAI
//   does; a normal one with `response.completed`.
// - A mid-stream failure sends `error` (the documented top-level code/message plus the nested `error` object the
//   live API sends, which is what the openai SDK throws on), then `response.failed`.
// - Provider side: `stop`, `n`, `seed` and the penalties have no Responses field and are dropped; tools are sent
//   with an explicit `strict` (Responses defaults it to true, chat to false); `max_output_tokens` is raised to
//   OpenAI's minimum of 16; `store: false` so routed traffic is not kept by the provider.
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { ApiError } from '../../errors.ts';
import {
  type ClientContext,
  type ClientFormat,
  contentText,
  type FinishReason,
  type HubChunk,
  type HubChunkToolCall,
  type HubContentPart,
  type HubMessage,
  type HubRequest,
  type HubResponse,
  type HubTool,
  type HubToolCall,
  type HubToolChoice,
  type HubUsage,
  newId,
  type ProviderFormat,
  type StreamDecoder,
  type StreamEncoder,
  UpstreamStreamError,
  type WireError,
} from './hub/index.ts';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function invalid(message: string, action: string): ApiError {
  return new ApiError('invalid_request', message, action);
}

/** Responses minimum for max_output_tokens (OpenAI answers 400 below it). */
const MIN_OUTPUT_TOKENS = 16;

// ---------------------------------------------------------------------------------------------------------------
// Client side: Responses request → hub request
// ---------------------------------------------------------------------------------------------------------------

function inputParts(content: unknown, where: string): HubContentPart[] {
  if (!Array.isArray(content)) {
    throw invalid(`${where} must be a string or an array of content parts.`, 'Send text as a string or as [{"type":"input_text","text":"..."}].');
  }
  return content.map((part, i): HubContentPart => {
    const at = `${where}[${i}]`;
    if (!isObject(part)) throw invalid(`${at} must be an object.`, 'Send {"type":"input_text","text":"..."}.');
    switch (part.type) {
      case 'input_text':
      case 'output_text':
      case 'text':
        if (typeof part.text !== 'string') throw invalid(`${at}.text must be a string.`, 'Put the text in "text".');
        return { type: 'text', text: part.text };
      case 'refusal':
        return { type: 'text', text: typeof part.refusal === 'string' ? part.refusal : '' };
      case 'input_image': {
        if (typeof part.image_url === 'string' && part.image_url) {
          const detail = typeof part.detail === 'string' && part.detail !== 'auto' ? { detail: part.detail } : {};
          return { type: 'image_url', image_url: { url: part.image_url, ...detail } };
        }
        if (part.file_id !== undefined && part.file_id !== null) {
          throw invalid(
            `${at}.file_id is not supported: Switchboard does not store files and the provider it routes to cannot read OpenAI file ids.`,
            'Send the image inline as "image_url" (an https URL or a data: URL with base64 data).',
          );
        }
        throw invalid(`${at} has no "image_url".`, 'Send the image as "image_url" (an https URL or a data: URL).');
      }
      default:
        throw invalid(
          `${at}.type "${String(part.type)}" is not supported by Switchboard's Responses endpoint.`,
          'Use "input_text" or "input_image" parts (files must be sent as text or images).',
        );
    }
  });
}

function messageContent(content: unknown, where: string): string | HubContentPart[] {
  if (typeof content === 'string') return content;
  return inputParts(content, where);
}

function toolOutput(output: unknown, where: string): string | HubContentPart[] {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) return inputParts(output, where);
  throw invalid(`${where} must be a string.`, 'Send the tool result as a string (JSON text is fine).');
}

function itemsToMessages(input: unknown[]): HubMessage[] {
  const messages: HubMessage[] = [];
  input.forEach((item, i) => {
    const at = `input[${i}]`;
    if (!isObject(item)) throw invalid(`${at} must be an object.`, 'Send {"role":"user","content":"..."}.');
    const type = item.type ?? 'message';
    switch (type) {
      case 'message': {
        const role = item.role;
        const content = messageContent(item.content, `${at}.content`);
        if (role === 'user') messages.push({ role: 'user', content });
        else if (role === 'system' || role === 'developer') messages.push({ role: 'system', content });
        else if (role === 'assistant') messages.push({ role: 'assistant', content: contentText(content) });
        else {
          throw invalid(`${at}.role must be "user", "assistant", "system" or "developer".`, 'Set the message role.');
        }
        return;
      }
      case 'function_call': {
        if (typeof item.name !== 'string' || !item.name) throw invalid(`${at}.name must be the function's name.`, 'Send the function_call item as the model returned it.');
        if (typeof item.call_id !== 'string' || !item.call_id) throw invalid(`${at}.call_id is required.`, 'Send the function_call item as the model returned it.');
        const call: HubToolCall = {
          id: item.call_id,
          type: 'function',
          function: { name: item.name, arguments: typeof item.arguments === 'string' ? item.arguments : JSON.stringify(item.arguments ?? {}) },
        };
        const last = messages.at(-1);
        if (last?.role === 'assistant') (last.tool_calls ??= []).push(call);
        else messages.push({ role: 'assistant', content: null, tool_calls: [call] });
        return;
      }
      case 'function_call_output': {
        if (typeof item.call_id !== 'string' || !item.call_id) throw invalid(`${at}.call_id is required.`, 'Use the call_id of the function_call this output answers.');
        messages.push({ role: 'tool', tool_call_id: item.call_id, content: toolOutput(item.output, `${at}.output`) });
        return;
      }
      case 'reasoning':
        return; // Reasoning from an earlier turn cannot be replayed to another provider.
      case 'item_reference':
        throw invalid(
          `${at} is an item_reference: Switchboard does not store responses, so it cannot look items up.`,
          'Send the full item instead of a reference to it.',
        );
      default:
        throw invalid(
          `${at}.type "${String(type)}" is not supported: Switchboard routes Responses requests to chat providers, which cannot run built-in tools.`,
          'Send only message, function_call and function_call_output items.',
        );
    }
  });
  return messages;
}

function toolsToHub(tools: unknown): HubTool[] | undefined {
  if (tools === undefined || tools === null) return undefined;
  if (!Array.isArray(tools)) throw invalid('"tools" must be an array.', 'Send tools as [{"type":"function","name":"...","parameters":{...}}].');
  return tools.map((tool, i): HubTool => {
    const at = `tools[${i}]`;
    if (!isObject(tool)) throw invalid(`${at} must be an object.`, 'Send {"type":"function","name":"...","parameters":{...}}.');
    if (tool.type !== 'function') {
      throw invalid(
        `${at}.type "${String(tool.type)}" is not supported: Switchboard routes to chat providers, which cannot run built-in tools such as web_search, file_search or computer_use.`,
        'Remove the tool, or define it as a function tool ({"type":"function", ...}) that your code runs.',
      );
    }
    if (typeof tool.name !== 'string' || !tool.name) throw invalid(`${at}.name is required.`, 'Give the function a name.');
    const fn: HubTool['function'] = { name: tool.name };
    if (typeof tool.description === 'string') fn.description = tool.description;
    if (isObject(tool.parameters)) fn.parameters = tool.parameters;
    if (typeof tool.strict === 'boolean') fn.strict = tool.strict;
    return { type: 'function', function: fn };
  });
}

function toolChoiceToHub(choice: unknown): HubToolChoice | undefined {
  if (choice === undefined || choice === null) return undefined;
  if (choice === 'auto' || choice === 'none' || choice === 'required') return choice;
  if (isObject(choice) && choice.type === 'function' && typeof choice.name === 'string') {
    return { type: 'function', function: { name: choice.name } };
  }
  throw invalid(
    `"tool_choice" ${JSON.stringify(choice)} is not supported.`,
    'Use "auto", "none", "required" or {"type":"function","name":"..."}.',
  );
}

function textFormatToHub(text: unknown): HubRequest['response_format'] {
  if (!isObject(text) || !isObject(text.format)) return undefined;
  const f = text.format;
  if (f.type === 'json_object') return { type: 'json_object' };
  if (f.type === 'json_schema') {
    if (typeof f.name !== 'string') throw invalid('"text.format.name" is required for json_schema.', 'Name the schema.');
    const schema: NonNullable<HubRequest['response_format']>['json_schema'] = { name: f.name };
    if (isObject(f.schema)) schema.schema = f.schema;
    if (typeof f.strict === 'boolean') schema.strict = f.strict;
    return { type: 'json_schema', json_schema: schema };
  }
  if (f.type === 'text' || f.type === undefined) return undefined;
  throw invalid(`"text.format.type" "${String(f.type)}" is not supported.`, 'Use "text", "json_object" or "json_schema".');
}

function responsesRequestToHub(body: unknown): HubRequest {
  if (!isObject(body)) {
    throw invalid('The request body must be a JSON object.', 'Send {"model": "...", "input": "..."}.');
  }
  if (typeof body.model !== 'string' || !body.model) {
    throw new ApiError('model_required', 'The request has no "model"; Switchboard routes by model name.', 'Add "model": "<name>", e.g. "gpt-4o-mini".');
  }
  if (body.previous_response_id !== undefined && body.previous_response_id !== null) {
    throw invalid(
      '"previous_response_id" is not supported: Switchboard does not store responses, so it cannot continue one.',
      'Send the whole conversation in "input" (earlier messages, function_call and function_call_output items) and leave previous_response_id out.',
    );
  }
  if (body.conversation !== undefined && body.conversation !== null) {
    throw invalid('"conversation" is not supported: Switchboard does not store conversations.', 'Send the whole conversation in "input" and leave "conversation" out.');
  }
  if (body.background === true) {
    throw invalid('"background": true is not supported: Switchboard does not store responses to poll later.', 'Leave "background" out, or stream the reply with "stream": true.');
  }

  const messages: HubMessage[] = [];
  if (typeof body.instructions === 'string' && body.instructions) messages.push({ role: 'system', content: body.instructions });
  if (typeof body.input === 'string') messages.push({ role: 'user', content: body.input });
  else if (Array.isArray(body.input)) messages.push(...itemsToMessages(body.input));
  else if (body.input !== undefined && body.input !== null) {
    throw invalid('"input" must be a string or an array of items.', 'Send "input": "..." or "input": [{"role":"user","content":"..."}].');
  }
  if (messages.length === 0) throw invalid('The request has no "input".', 'Send "input": "..." with the prompt.');

  const hub: HubRequest = { model: body.model, messages };
  if (body.stream === true) {
    hub.stream = true;
    hub.stream_options = { include_usage: true }; // Responses always reports usage in response.completed.
  }
  const tools = toolsToHub(body.tools);
  if (tools?.length) hub.tools = tools;
  const toolChoice = toolChoiceToHub(body.tool_choice);
  if (toolChoice !== undefined) hub.tool_choice = toolChoice;
  if (typeof body.parallel_tool_calls === 'boolean') hub.parallel_tool_calls = body.parallel_tool_calls;
  if (typeof body.temperature === 'number') hub.temperature = body.temperature;
  if (typeof body.top_p === 'number') hub.top_p = body.top_p;
  if (typeof body.max_output_tokens === 'number') hub.max_tokens = body.max_output_tokens;
  const responseFormat = textFormatToHub(body.text);
  if (responseFormat) hub.response_format = responseFormat;
  if (typeof body.user === 'string') hub.user = body.user;
  return hub;
}

// ---------------------------------------------------------------------------------------------------------------
// Client side: hub response → Responses response object (non-stream and the stream's final object)
// ---------------------------------------------------------------------------------------------------------------

type OutputItem = Json & { type: string; id: string };
type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';

function usageToResponses(u: HubUsage | null | undefined): Json | null {
  if (!u) return null;
  return {
    input_tokens: u.prompt_tokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: u.completion_tokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: u.total_tokens,
  };
}

function incompleteReason(finish: FinishReason | null | undefined): 'max_output_tokens' | 'content_filter' | undefined {
  if (finish === 'length') return 'max_output_tokens';
  if (finish === 'content_filter') return 'content_filter';
  return undefined;
}

/** The Response object; fields the hub does not carry (tools, instructions, sampling) are echoed as defaults. */
function responseObject(p: {
  id: string;
  createdAt: number;
  model: string;
  status: ResponseStatus;
  output: OutputItem[];
  usage?: HubUsage | null;
  finish?: FinishReason | null;
  error?: { code: string; message: string } | null;
}): Json {
  const reason = p.status === 'incomplete' ? incompleteReason(p.finish) : undefined;
  return {
    id: p.id,
    object: 'response',
    created_at: p.createdAt,
    status: p.status,
    error: p.error ?? null,
    incomplete_details: reason ? { reason } : null,
    instructions: null,
    max_output_tokens: null,
    model: p.model,
    output: p.output,
    parallel_tool_calls: true,
    previous_response_id: null,
    store: false,
    temperature: null,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: [],
    top_p: null,
    usage: p.status === 'in_progress' ? null : usageToResponses(p.usage),
    metadata: {},
  };
}

const outputText = (text: string): Json => ({ type: 'output_text', text, annotations: [], logprobs: [] });

function messageItem(id: string, text: string, status: string): OutputItem {
  return { type: 'message', id, status, role: 'assistant', content: text ? [outputText(text)] : [] };
}

function functionCallItem(id: string, callId: string, name: string, args: string, status: string): OutputItem {
  return { type: 'function_call', id, call_id: callId, name, arguments: args, status };
}

function reasoningItem(id: string, text: string, status: string): OutputItem {
  return { type: 'reasoning', id, status, summary: [], content: [{ type: 'reasoning_text', text }] };
}

function hubResponseToResponses(res: HubResponse, model: string): Json {
  const choice = res.choices[0];
  const finish = choice?.finish_reason ?? 'stop';
  const incomplete = incompleteReason(finish) !== undefined;
  const itemStatus = incomplete ? 'incomplete' : 'completed';
  const output: OutputItem[] = [];
  const message = choice?.message;
  if (message?.reasoning_content) output.push(reasoningItem(newId('rs_'), message.reasoning_content, itemStatus));
  const text = typeof message?.content === 'string' ? message.content : '';
  if (text) output.push(messageItem(newId('msg_'), text, itemStatus));
  for (const tc of message?.tool_calls ?? []) {
    output.push(functionCallItem(newId('fc_'), tc.id || newId('call_'), tc.function.name, tc.function.arguments, 'completed'));
  }
  return responseObject({
    id: res.id.startsWith('resp_') ? res.id : newId('resp_'),
    createdAt: res.created,
    model,
    status: incomplete ? 'incomplete' : 'completed',
    output,
    usage: res.usage,
    finish,
  });
}

function errorBody(e: WireError): unknown {
  const error: Json = { message: e.message, type: e.type, param: null, code: e.code };
  if (e.action) error.action = e.action;
  return { error };
}

// ---------------------------------------------------------------------------------------------------------------
// Client side: hub chunks → Responses SSE events
// ---------------------------------------------------------------------------------------------------------------

type OpenItem =
  | { kind: 'message'; id: string; outputIndex: number; text: string; done: boolean }
  | { kind: 'reasoning'; id: string; outputIndex: number; text: string; done: boolean }
  | { kind: 'call'; id: string; outputIndex: number; callId: string; name: string; args: string; added: boolean; done: boolean };

class ResponsesStreamEncoder implements StreamEncoder {
  readonly contentType = 'text/event-stream';
  private seq = 0;
  private started = false;
  private readonly id = newId('resp_');
  private createdAt = Math.floor(Date.now() / 1000);
  private readonly items: OpenItem[] = [];
  /** The message or reasoning item text is being appended to (sequential); calls stay open until the finish. */
  private current: Extract<OpenItem, { kind: 'message' | 'reasoning' }> | undefined;
  private readonly calls = new Map<number, Extract<OpenItem, { kind: 'call' }>>();
  private finish: FinishReason | null = null;
  private usage: HubUsage | null = null;
  private ended = false;
  private failed = false;

  constructor(private readonly model: string) {}

  private event(type: string, fields: Json): string {
    return `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: this.seq++, ...fields })}\n\n`;
  }

  private start(created?: number): string {
    if (this.started) return '';
    this.started = true;
    if (created) this.createdAt = created;
    const response = responseObject({ id: this.id, createdAt: this.createdAt, model: this.model, status: 'in_progress', output: [] });
    return this.event('response.created', { response }) + this.event('response.in_progress', { response });
  }

  private closeCurrent(): string {
    const item = this.current;
    this.current = undefined;
    if (!item || item.done) return '';
    item.done = true;
    const at = { item_id: item.id, output_index: item.outputIndex, content_index: 0 };
    if (item.kind === 'message') {
      return (
        this.event('response.output_text.done', { ...at, text: item.text, logprobs: [] }) +
        this.event('response.content_part.done', { ...at, part: outputText(item.text) }) +
        this.event('response.output_item.done', { output_index: item.outputIndex, item: this.finalItem(item) })
      );
    }
    return (
      this.event('response.reasoning_text.done', { ...at, text: item.text }) +
      this.event('response.content_part.done', { ...at, part: { type: 'reasoning_text', text: item.text } }) +
      this.event('response.output_item.done', { output_index: item.outputIndex, item: this.finalItem(item) })
    );
  }

  private closeCall(call: Extract<OpenItem, { kind: 'call' }>): string {
    if (call.done) return '';
    let out = this.addCall(call);
    call.done = true;
    out += this.event('response.function_call_arguments.done', { item_id: call.id, output_index: call.outputIndex, name: call.name, arguments: call.args });
    return out + this.event('response.output_item.done', { output_index: call.outputIndex, item: this.finalItem(call) });
  }

  /** Announces a call once its name is known (or at the latest when it closes). */
  private addCall(call: Extract<OpenItem, { kind: 'call' }>): string {
    if (call.added) return '';
    call.added = true;
    let out = this.event('response.output_item.added', {
      output_index: call.outputIndex,
      item: functionCallItem(call.id, call.callId, call.name, '', 'in_progress'),
    });
    if (call.args) out += this.event('response.function_call_arguments.delta', { item_id: call.id, output_index: call.outputIndex, delta: call.args });
    return out;
  }

  private itemStatus(): string {
    return this.failed || incompleteReason(this.finish) ? 'incomplete' : 'completed';
  }

  private finalItem(item: OpenItem): OutputItem {
    if (item.kind === 'message') return messageItem(item.id, item.text, this.itemStatus());
    if (item.kind === 'reasoning') return reasoningItem(item.id, item.text, this.itemStatus());
    return functionCallItem(item.id, item.callId, item.name, item.args, 'completed');
  }

  private openText(kind: 'message' | 'reasoning'): string {
    if (this.current?.kind === kind && !this.current.done) return '';
    let out = this.closeCurrent();
    const id = newId(kind === 'message' ? 'msg_' : 'rs_');
    const item = { kind, id, outputIndex: this.items.length, text: '', done: false } as Extract<OpenItem, { kind: 'message' | 'reasoning' }>;
    this.items.push(item);
    this.current = item;
    const at = { item_id: id, output_index: item.outputIndex, content_index: 0 };
    if (kind === 'message') {
      out += this.event('response.output_item.added', { output_index: item.outputIndex, item: messageItem(id, '', 'in_progress') });
      out += this.event('response.content_part.added', { ...at, part: outputText('') });
    } else {
      out += this.event('response.output_item.added', { output_index: item.outputIndex, item: { type: 'reasoning', id, status: 'in_progress', summary: [], content: [] } });
      out += this.event('response.content_part.added', { ...at, part: { type: 'reasoning_text', text: '' } });
    }
    return out;
  }

  private toolDelta(tc: HubChunkToolCall): string {
    let out = '';
    let call = this.calls.get(tc.index);
    if (!call) {
      out += this.closeCurrent();
      call = { kind: 'call', id: newId('fc_'), outputIndex: this.items.length, callId: '', name: '', args: '', added: false, done: false };
      this.items.push(call);
      this.calls.set(tc.index, call);
    }
    if (tc.id && !call.callId) call.callId = tc.id;
    if (tc.function?.name) call.name += tc.function.name;
    const args = tc.function?.arguments ?? '';
    if (call.done) {
      // Arguments after the call closed cannot be streamed any more; keep them for the final response object.
      call.args += args;
      return out;
    }
    if (!call.added) {
      call.args += args;
      if (call.name) {
        call.callId ||= newId('call_');
        out += this.addCall(call);
      }
      return out;
    }
    if (args) {
      call.args += args;
      out += this.event('response.function_call_arguments.delta', { item_id: call.id, output_index: call.outputIndex, delta: args });
    }
    return out;
  }

  chunk(c: HubChunk): string {
    if (this.ended) return '';
    let out = this.start(c.created);
    if (c.usage) this.usage = c.usage;
    for (const choice of c.choices) {
      if (choice.index !== 0) continue;
      const d = choice.delta;
      if (d.reasoning_content) {
        out += this.openText('reasoning');
        const item = this.current!;
        item.text += d.reasoning_content;
        out += this.event('response.reasoning_text.delta', { item_id: item.id, output_index: item.outputIndex, content_index: 0, delta: d.reasoning_content });
      }
      if (typeof d.content === 'string' && d.content) {
        out += this.openText('message');
        const item = this.current!;
        item.text += d.content;
        out += this.event('response.output_text.delta', { item_id: item.id, output_index: item.outputIndex, content_index: 0, delta: d.content, logprobs: [] });
      }
      for (const tc of d.tool_calls ?? []) out += this.toolDelta(tc);
      if (choice.finish_reason) {
        this.finish = choice.finish_reason;
        out += this.closeAll();
      }
    }
    return out;
  }

  private closeAll(): string {
    let out = this.closeCurrent();
    for (const item of this.items) {
      if (item.kind === 'call') {
        item.callId ||= newId('call_');
        out += this.closeCall(item);
      }
    }
    return out;
  }

  end(): string {
    if (this.ended) return '';
    let out = this.start() + this.closeAll();
    this.ended = true;
    const finish = this.finish ?? (this.calls.size ? 'tool_calls' : 'stop');
    const status = incompleteReason(finish) ? 'incomplete' : 'completed';
    const response = responseObject({
      id: this.id,
      createdAt: this.createdAt,
      model: this.model,
      status,
      output: this.items.map((i) => this.finalItem(i)),
      usage: this.usage,
      finish,
    });
    out += this.event(status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response });
    return out;
  }

  error(e: WireError): string {
    if (this.ended) return '';
    this.ended = true;
    this.failed = true;
    const error = { code: e.code, message: e.message };
    let out = this.event('error', { code: e.code, message: e.message, param: null, error: { type: e.type, code: e.code, message: e.message, param: null } });
    const response = responseObject({
      id: this.id,
      createdAt: this.createdAt,
      model: this.model,
      status: 'failed',
      output: this.items.map((i) => this.finalItem(i)),
      usage: this.usage,
      error,
    });
    out += this.event('response.failed', { response });
    return out;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Provider side: hub request → Responses request
// ---------------------------------------------------------------------------------------------------------------

function partsToInput(content: string | HubContentPart[]): string | Json[] {
  if (typeof content === 'string') return content;
  return content.map((p) =>
    p.type === 'text'
      ? { type: 'input_text', text: p.text }
      : { type: 'input_image', image_url: p.image_url.url, detail: p.image_url.detail ?? 'auto' },
  );
}

function hubRequestToResponses(req: HubRequest): Json {
  const input: Json[] = [];
  for (const m of req.messages) {
    switch (m.role) {
      case 'system':
      case 'developer':
      case 'user':
        input.push({ type: 'message', role: m.role, content: partsToInput(m.content) });
        break;
      case 'assistant': {
        const text = contentText(m.content);
        if (text) input.push({ type: 'message', role: 'assistant', content: text });
        for (const tc of m.tool_calls ?? []) {
          input.push({ type: 'function_call', call_id: tc.id, name: tc.function.name, arguments: tc.function.arguments });
        }
        break;
      }
      case 'tool':
        input.push({
          type: 'function_call_output',
          call_id: m.tool_call_id,
          output: typeof m.content === 'string' || m.content.every((p) => p.type === 'text') ? contentText(m.content) : partsToInput(m.content),
        });
        break;
    }
  }
  const out: Json = { model: req.model, input };
  if (req.tools?.length) {
    out.tools = req.tools.map((t) => ({
      type: 'function',
      name: t.function.name,
      ...(t.function.description !== undefined ? { description: t.function.description } : {}),
      parameters: t.function.parameters ?? null,
      strict: t.function.strict ?? false,
    }));
  }
  if (req.tool_choice !== undefined) {
    out.tool_choice = typeof req.tool_choice === 'string' ? req.tool_choice : { type: 'function', name: req.tool_choice.function.name };
  }
  if (req.parallel_tool_calls !== undefined) out.parallel_tool_calls = req.parallel_tool_calls;
  if (req.temperature !== undefined) out.temperature = req.temperature;
  if (req.top_p !== undefined) out.top_p = req.top_p;
  const max = req.max_completion_tokens ?? req.max_tokens;
  if (typeof max === 'number') out.max_output_tokens = Math.max(max, MIN_OUTPUT_TOKENS);
  const rf = req.response_format;
  if (rf?.type === 'json_object') out.text = { format: { type: 'json_object' } };
  else if (rf?.type === 'json_schema' && rf.json_schema) {
    out.text = {
      format: {
        type: 'json_schema',
        name: rf.json_schema.name,
        ...(rf.json_schema.schema ? { schema: rf.json_schema.schema } : {}),
        ...(rf.json_schema.strict !== undefined ? { strict: rf.json_schema.strict } : {}),
      },
    };
  }
  if (req.user !== undefined) out.user = req.user;
  out.store = false;
  if (req.stream) out.stream = true;
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Provider side: Responses response → hub response
// ---------------------------------------------------------------------------------------------------------------

function usageToHub(u: unknown): HubUsage | undefined {
  if (!isObject(u) || typeof u.input_tokens !== 'number' || typeof u.output_tokens !== 'number') return undefined;
  return {
    prompt_tokens: u.input_tokens,
    completion_tokens: u.output_tokens,
    total_tokens: typeof u.total_tokens === 'number' ? u.total_tokens : u.input_tokens + u.output_tokens,
  };
}

/** The text of a message output item (output_text parts; a refusal counts as text). */
function messageText(item: Json): string {
  if (!Array.isArray(item.content)) return '';
  return item.content
    .map((p: unknown) => (isObject(p) ? (p.type === 'output_text' && typeof p.text === 'string' ? p.text : p.type === 'refusal' && typeof p.refusal === 'string' ? p.refusal : '') : ''))
    .join('');
}

function reasoningText(item: Json): string {
  const from = (parts: unknown): string =>
    Array.isArray(parts) ? parts.map((p: unknown) => (isObject(p) && typeof p.text === 'string' ? p.text : '')).join('') : '';
  return from(item.content) || from(item.summary);
}

function finishOf(response: Json, hasCalls: boolean): FinishReason {
  if (response.status === 'incomplete') {
    const reason = isObject(response.incomplete_details) ? response.incomplete_details.reason : undefined;
    if (reason === 'content_filter') return 'content_filter';
    return 'length';
  }
  return hasCalls ? 'tool_calls' : 'stop';
}

function failureMessage(response: Json): { message: string; code: string } {
  const err = isObject(response.error) ? response.error : {};
  return {
    message: typeof err.message === 'string' ? err.message : 'The provider reported that the response failed.',
    code: typeof err.code === 'string' ? err.code : 'upstream_error',
  };
}

function responsesToHubResponse(body: unknown, model: string): HubResponse {
  if (!isObject(body)) throw new UpstreamStreamError('The provider answered /responses with a body that is not a JSON object.');
  if (body.status === 'failed') {
    const f = failureMessage(body);
    throw new UpstreamStreamError(f.message, f.code);
  }
  let text = '';
  let reasoning = '';
  const calls: HubToolCall[] = [];
  for (const item of Array.isArray(body.output) ? body.output : []) {
    if (!isObject(item)) continue;
    if (item.type === 'message') text += messageText(item);
    else if (item.type === 'reasoning') reasoning += reasoningText(item);
    else if (item.type === 'function_call') {
      calls.push({
        id: typeof item.call_id === 'string' ? item.call_id : newId('call_'),
        type: 'function',
        function: { name: typeof item.name === 'string' ? item.name : '', arguments: typeof item.arguments === 'string' ? item.arguments : '' },
      });
    }
  }
  const message: HubResponse['choices'][0]['message'] = { role: 'assistant', content: text || (calls.length ? null : '') };
  if (calls.length) message.tool_calls = calls;
  if (reasoning) message.reasoning_content = reasoning;
  const usage = usageToHub(body.usage);
  return {
    id: typeof body.id === 'string' ? body.id : newId('resp_'),
    object: 'chat.completion',
    created: typeof body.created_at === 'number' ? body.created_at : Math.floor(Date.now() / 1000),
    model: typeof body.model === 'string' ? body.model : model,
    choices: [{ index: 0, message, finish_reason: finishOf(body, calls.length > 0) }],
    ...(usage ? { usage } : {}),
  };
}

function errorMessage(body: unknown): string | undefined {
  if (!isObject(body)) return undefined;
  if (isObject(body.error) && typeof body.error.message === 'string') return body.error.message;
  if (typeof body.error === 'string') return body.error;
  if (typeof body.message === 'string') return body.message;
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Provider side: Responses SSE → hub chunks
// ---------------------------------------------------------------------------------------------------------------

type CallState = { index: number; sent: string; announced: boolean };

class ResponsesStreamDecoder implements StreamDecoder {
  private readonly pending: EventSourceMessage[] = [];
  private readonly parser = createParser({ onEvent: (e) => this.pending.push(e) });
  private id = newId('resp_');
  private created = Math.floor(Date.now() / 1000);
  private model: string;
  private roleSent = false;
  private finished = false;
  /** Function calls by item id (and by output index, for servers that omit item ids). */
  private readonly calls = new Map<string, CallState>();
  private callCount = 0;
  /** Text streamed so far per message item, so done events can fill in what deltas missed. */
  private readonly texts = new Map<string, string>();

  constructor(model: string) {
    this.model = model;
  }

  private chunk(delta: HubChunk['choices'][0]['delta'], finish: FinishReason | null = null, usage?: HubUsage): HubChunk {
    return {
      id: this.id,
      object: 'chat.completion.chunk',
      created: this.created,
      model: this.model,
      choices: [{ index: 0, delta, finish_reason: finish }],
      ...(usage ? { usage } : {}),
    };
  }

  private role(out: HubChunk[]): void {
    if (this.roleSent) return;
    this.roleSent = true;
    out.push(this.chunk({ role: 'assistant', content: '' }));
  }

  private readResponse(r: unknown): void {
    if (!isObject(r)) return;
    if (typeof r.id === 'string') this.id = r.id;
    if (typeof r.created_at === 'number') this.created = r.created_at;
    if (typeof r.model === 'string' && r.model) this.model = r.model;
  }

  private callKey(e: Json): string {
    return typeof e.item_id === 'string' ? e.item_id : `#${String(e.output_index)}`;
  }

  private callFor(e: Json, item: Json | undefined, out: HubChunk[]): CallState {
    const keys = [typeof item?.id === 'string' ? item.id : this.callKey(e), `#${String(e.output_index)}`];
    let state = keys.map((k) => this.calls.get(k)).find(Boolean);
    if (!state) {
      state = { index: this.callCount++, sent: '', announced: false };
      for (const k of keys) this.calls.set(k, state);
    }
    if (!state.announced && item) {
      state.announced = true;
      this.role(out);
      const callId = typeof item.call_id === 'string' && item.call_id ? item.call_id : newId('call_');
      const name = typeof item.name === 'string' ? item.name : '';
      out.push(this.chunk({ tool_calls: [{ index: state.index, id: callId, type: 'function', function: { name, arguments: '' } }] }));
    }
    return state;
  }

  /** Sends whatever part of `full` the deltas have not carried (never loses arguments). */
  private catchUpArgs(state: CallState, full: unknown, out: HubChunk[]): void {
    if (typeof full !== 'string' || full === state.sent) return;
    const rest = full.startsWith(state.sent) ? full.slice(state.sent.length) : state.sent ? '' : full;
    if (!rest) return;
    state.sent += rest;
    out.push(this.chunk({ tool_calls: [{ index: state.index, function: { arguments: rest } }] }));
  }

  private catchUpText(itemId: string, full: string, out: HubChunk[]): void {
    // Text streamed without item ids cannot be matched to items: trust the deltas then.
    if (!this.texts.has(itemId) && this.texts.has('')) return;
    const sent = this.texts.get(itemId) ?? '';
    if (full === sent || !full.startsWith(sent)) return;
    this.texts.set(itemId, full);
    this.role(out);
    out.push(this.chunk({ content: full.slice(sent.length) }));
  }

  private handle(e: Json, out: HubChunk[]): void {
    switch (e.type) {
      case 'response.created':
      case 'response.in_progress':
        this.readResponse(e.response);
        this.role(out);
        return;
      case 'response.output_text.delta':
      case 'response.refusal.delta':
        if (typeof e.delta === 'string' && e.delta) {
          const key = typeof e.item_id === 'string' ? e.item_id : '';
          this.texts.set(key, (this.texts.get(key) ?? '') + e.delta);
          this.role(out);
          out.push(this.chunk({ content: e.delta }));
        }
        return;
      case 'response.output_text.done':
        if (typeof e.text === 'string' && typeof e.item_id === 'string') this.catchUpText(e.item_id, e.text, out);
        return;
      case 'response.reasoning_text.delta':
      case 'response.reasoning_summary_text.delta':
        if (typeof e.delta === 'string' && e.delta) {
          this.role(out);
          out.push(this.chunk({ reasoning_content: e.delta }));
        }
        return;
      case 'response.output_item.added':
      case 'response.output_item.done': {
        const item = isObject(e.item) ? e.item : undefined;
        if (item?.type === 'function_call') {
          const state = this.callFor(e, item, out);
          this.catchUpArgs(state, item.arguments, out);
        } else if (item?.type === 'message' && e.type === 'response.output_item.done' && typeof item.id === 'string') {
          this.catchUpText(item.id, messageText(item), out);
        }
        return;
      }
      case 'response.function_call_arguments.delta':
        if (typeof e.delta === 'string' && e.delta) {
          const state = this.callFor(e, undefined, out);
          state.sent += e.delta;
          out.push(this.chunk({ tool_calls: [{ index: state.index, function: { arguments: e.delta } }] }));
        }
        return;
      case 'response.function_call_arguments.done':
        this.catchUpArgs(this.callFor(e, undefined, out), e.arguments, out);
        return;
      case 'response.completed':
      case 'response.incomplete': {
        const response = isObject(e.response) ? e.response : {};
        this.readResponse(response);
        this.role(out);
        // Fill in output items whose events never came (servers that only send the final object).
        for (const [i, item] of (Array.isArray(response.output) ? response.output : []).entries()) {
          if (!isObject(item)) continue;
          if (item.type === 'function_call') this.catchUpArgs(this.callFor({ output_index: i }, item, out), item.arguments, out);
          else if (item.type === 'message' && typeof item.id === 'string') this.catchUpText(item.id, messageText(item), out);
        }
        this.finished = true;
        out.push(this.chunk({}, finishOf(response, this.callCount > 0), usageToHub(response.usage)));
        return;
      }
      case 'response.failed': {
        const f = failureMessage(isObject(e.response) ? e.response : {});
        throw new UpstreamStreamError(f.message, f.code);
      }
      case 'error': {
        const nested = isObject(e.error) ? e.error : {};
        const message = typeof e.message === 'string' ? e.message : typeof nested.message === 'string' ? nested.message : 'The provider sent an error event.';
        const code = typeof e.code === 'string' ? e.code : typeof nested.code === 'string' ? nested.code : 'upstream_error';
        throw new UpstreamStreamError(message, code);
      }
      default:
        return;
    }
  }

  private drain(): HubChunk[] {
    const out: HubChunk[] = [];
    while (this.pending.length) {
      const ev = this.pending.shift()!;
      if (this.finished || ev.data === '[DONE]') continue;
      let data: unknown;
      try {
        data = JSON.parse(ev.data);
      } catch {
        throw new UpstreamStreamError(`The provider sent a Responses stream event that is not JSON: ${ev.data.slice(0, 200)}`);
      }
      if (!isObject(data)) continue;
      if (typeof data.type !== 'string' && ev.event) data.type = ev.event;
      this.handle(data, out);
    }
    return out;
  }

  push(text: string): HubChunk[] {
    this.parser.feed(text);
    return this.drain();
  }

  end(): HubChunk[] {
    this.parser.reset({ consume: true });
    const out = this.drain();
    if (!this.finished) {
      throw new UpstreamStreamError('The provider\'s Responses stream ended before "response.completed".');
    }
    return out;
  }
}

// ---------------------------------------------------------------------------------------------------------------

export const responsesFormat: ClientFormat & ProviderFormat = {
  name: 'responses',
  requestToHub: (body: unknown, _ctx: ClientContext) => responsesRequestToHub(body),
  responseFromHub: (res, ctx) => hubResponseToResponses(res, ctx.model),
  streamEncoder: (ctx) => new ResponsesStreamEncoder(ctx.model),
  errorBody,
  requestFromHub: hubRequestToResponses,
  responseToHub: responsesToHubResponse,
  streamDecoder: (model) => new ResponsesStreamDecoder(model),
  errorMessage,
};
