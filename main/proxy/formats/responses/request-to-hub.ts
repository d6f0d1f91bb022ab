// Client side: a Responses request (`POST /v1/responses`) checked and read into the hub request.
import { absent, contentText, invalid, isObject, paramsToHub, requireModel, requireObject } from '../hub/index.ts';
import type { HubContentPart, HubMessage, HubRequest, HubTool, HubToolCall, HubToolChoice } from '../hub/index.ts';
import type { Json } from '../hub/index.ts';
import { RESPONSES_PARAMS } from './common.ts';

function partsToHub(content: unknown, where: string): HubContentPart[] {
  if (!Array.isArray(content)) {
    throw invalid(
      `${where} must be a string or an array of content parts.`,
      'Send text as a string or as [{"type":"input_text","text":"..."}].',
    );
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
        if (!absent(part.file_id)) {
          throw invalid(
            `${at}.file_id is not supported: Switchboard does not store files and the provider it routes to ` +
              'cannot read OpenAI file ids.',
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

function contentToHub(content: unknown, where: string): string | HubContentPart[] {
  if (typeof content === 'string') return content;
  return partsToHub(content, where);
}

function toolOutputToHub(output: unknown, where: string): string | HubContentPart[] {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) return partsToHub(output, where);
  throw invalid(`${where} must be a string.`, 'Send the tool result as a string (JSON text is fine).');
}

const AS_RETURNED = 'Send the function_call item as the model returned it.';

function functionCallToHub(item: Json, at: string): HubToolCall {
  if (typeof item.name !== 'string' || !item.name) {
    throw invalid(`${at}.name must be the function's name.`, AS_RETURNED);
  }
  if (typeof item.call_id !== 'string' || !item.call_id) throw invalid(`${at}.call_id is required.`, AS_RETURNED);
  const args = typeof item.arguments === 'string' ? item.arguments : JSON.stringify(item.arguments ?? {});
  return { id: item.call_id, type: 'function', function: { name: item.name, arguments: args } };
}

/** Input items as hub messages; consecutive function calls join the assistant message before them. */
function itemsToHub(input: unknown[]): HubMessage[] {
  const messages: HubMessage[] = [];
  input.forEach((item, i) => {
    const at = `input[${i}]`;
    if (!isObject(item)) throw invalid(`${at} must be an object.`, 'Send {"role":"user","content":"..."}.');
    const type = item.type ?? 'message';
    switch (type) {
      case 'message': {
        const role = item.role;
        const content = contentToHub(item.content, `${at}.content`);
        if (role === 'user') messages.push({ role: 'user', content });
        else if (role === 'system' || role === 'developer') messages.push({ role: 'system', content });
        else if (role === 'assistant') messages.push({ role: 'assistant', content: contentText(content) });
        else throw invalid(`${at}.role must be "user", "assistant", "system" or "developer".`, 'Set the message role.');
        return;
      }
      case 'function_call': {
        const call = functionCallToHub(item, at);
        const last = messages.at(-1);
        if (last?.role === 'assistant') (last.tool_calls ??= []).push(call);
        else messages.push({ role: 'assistant', content: null, tool_calls: [call] });
        return;
      }
      case 'function_call_output': {
        if (typeof item.call_id !== 'string' || !item.call_id) {
          throw invalid(`${at}.call_id is required.`, 'Use the call_id of the function_call this output answers.');
        }
        const content = toolOutputToHub(item.output, `${at}.output`);
        messages.push({ role: 'tool', tool_call_id: item.call_id, content });
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
          `${at}.type "${String(type)}" is not supported: Switchboard routes Responses requests to chat providers, ` +
            'which cannot run built-in tools.',
          'Send only message, function_call and function_call_output items.',
        );
    }
  });
  return messages;
}

function toolsToHub(tools: unknown): HubTool[] | undefined {
  if (absent(tools)) return undefined;
  if (!Array.isArray(tools)) {
    throw invalid('"tools" must be an array.', 'Send tools as [{"type":"function","name":"...","parameters":{...}}].');
  }
  return tools.map((tool, i): HubTool => {
    const at = `tools[${i}]`;
    if (!isObject(tool)) {
      throw invalid(`${at} must be an object.`, 'Send {"type":"function","name":"...","parameters":{...}}.');
    }
    if (tool.type !== 'function') {
      throw invalid(
        `${at}.type "${String(tool.type)}" is not supported: Switchboard routes to chat providers, which cannot run ` +
          'built-in tools such as web_search, file_search or computer_use.',
        'Remove the tool, or define it as a function tool ({"type":"function", ...}) that your code runs.',
      );
    }
    if (typeof tool.name !== 'string' || !tool.name) {
      throw invalid(`${at}.name is required.`, 'Give the function a name.');
    }
    const fn: HubTool['function'] = { name: tool.name };
    if (typeof tool.description === 'string') fn.description = tool.description;
    if (isObject(tool.parameters)) fn.parameters = tool.parameters;
    if (typeof tool.strict === 'boolean') fn.strict = tool.strict;
    return { type: 'function', function: fn };
  });
}

function toolChoiceToHub(choice: unknown): HubToolChoice | undefined {
  if (absent(choice)) return undefined;
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
    if (typeof f.name !== 'string') {
      throw invalid('"text.format.name" is required for json_schema.', 'Name the schema.');
    }
    const schema: NonNullable<HubRequest['response_format']>['json_schema'] = { name: f.name };
    if (isObject(f.schema)) schema.schema = f.schema;
    if (typeof f.strict === 'boolean') schema.strict = f.strict;
    return { type: 'json_schema', json_schema: schema };
  }
  if (f.type === 'text' || f.type === undefined) return undefined;
  throw invalid(
    `"text.format.type" "${String(f.type)}" is not supported.`,
    'Use "text", "json_object" or "json_schema".',
  );
}

/** Refuses what needs stored state: Switchboard stores no responses or conversations. */
function refuseStored(body: Json): void {
  if (!absent(body.previous_response_id)) {
    throw invalid(
      '"previous_response_id" is not supported: Switchboard does not store responses, so it cannot continue one.',
      'Send the whole conversation in "input" (earlier messages, function_call and function_call_output items) ' +
        'and leave previous_response_id out.',
    );
  }
  if (!absent(body.conversation)) {
    throw invalid(
      '"conversation" is not supported: Switchboard does not store conversations.',
      'Send the whole conversation in "input" and leave "conversation" out.',
    );
  }
  if (body.background === true) {
    throw invalid(
      '"background": true is not supported: Switchboard does not store responses to poll later.',
      'Leave "background" out, or stream the reply with "stream": true.',
    );
  }
}

export function requestToHub(json: unknown): HubRequest {
  const body = requireObject(json, '{"model": "...", "input": "..."}');
  const model = requireModel(body.model, '"gpt-4o-mini"');
  refuseStored(body);

  const messages: HubMessage[] = [];
  if (typeof body.instructions === 'string' && body.instructions) {
    messages.push({ role: 'system', content: body.instructions });
  }
  if (typeof body.input === 'string') messages.push({ role: 'user', content: body.input });
  else if (Array.isArray(body.input)) messages.push(...itemsToHub(body.input));
  else if (!absent(body.input)) {
    throw invalid(
      '"input" must be a string or an array of items.',
      'Send "input": "..." or "input": [{"role":"user","content":"..."}].',
    );
  }
  if (messages.length === 0) throw invalid('The request has no "input".', 'Send "input": "..." with the prompt.');

  const hub: HubRequest = { model, messages };
  if (body.stream === true) {
    hub.stream = true;
    hub.stream_options = { include_usage: true }; // Responses always reports usage in response.completed.
  }
  const tools = toolsToHub(body.tools);
  if (tools?.length) hub.tools = tools;
  const toolChoice = toolChoiceToHub(body.tool_choice);
  if (toolChoice !== undefined) hub.tool_choice = toolChoice;
  if (typeof body.parallel_tool_calls === 'boolean') hub.parallel_tool_calls = body.parallel_tool_calls;
  paramsToHub(RESPONSES_PARAMS, body, hub);
  const responseFormat = textFormatToHub(body.text);
  if (responseFormat) hub.response_format = responseFormat;
  if (typeof body.user === 'string') hub.user = body.user;
  return hub;
}
