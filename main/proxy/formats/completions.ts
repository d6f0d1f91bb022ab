// The legacy OpenAI text completions front door (`POST /v1/completions`), translated to chat for providers that
// only speak chat. ClientFormat only: OpenAI-compatible providers get /v1/completions passed through unchanged.
//
// Decisions (pinned in completions.test.ts):
// - Sampling fields are read by the hub's parameter map: a value of the wrong type is a 400 naming the field.
// - One prompt per request: a prompt array of more than one string, token-id prompts, `suffix`, `echo: true`
//   and `logprobs` are refused (400) — a chat model cannot honour them.
// - The prompt becomes one user message. `max_tokens` is passed on as given; the legacy default of 16 is not
//   imposed (chat providers have none).
// - `tool_calls` finishes (impossible without tools) read as "stop".
// - Stream: role-only chunks send nothing; each choice's finish is held until the usage is known (or the stream
//   ends) and sent with it, so a client reading `choices[0]` never meets a chunk with no choices.
// Provider side (an OpenAI-type provider's /v1/completions, for Ollama's raw and fill-in-the-middle prompts): the
// request is built from a prompt, an optional suffix and the hub's sampling fields (top_k left out, as for OpenAI
// chat); replies and streams are read back as hub replies and chunks, usage asked for on streams.
import { contentText, errorMessageOf, hubChunk, invalid, isObject, newId, nowSeconds } from './hub/index.ts';
import { OPENAI_USAGE, paramsFromHub, paramsToHub, requireModel, SseJsonDecoder } from './hub/index.ts';
import { UpstreamStreamError } from './hub/index.ts';
import { OpenAIStreamEnd } from './openai/stream.ts';
import type { ClientContext, ClientFormat, FinishReason, HubChunk, HubRequest, HubResponse } from './hub/index.ts';
import type { HubUsage, Json, ParamMap, StreamEncoder, WireError } from './hub/index.ts';

/** The sampling fields: the same names as the hub's (this is OpenAI's own family). */
const PARAMS: ParamMap = {
  temperature: 'temperature',
  top_p: 'top_p',
  max_tokens: 'max_tokens',
  stop: 'stop',
  n: 'n',
  seed: 'seed',
  presence_penalty: 'presence_penalty',
  frequency_penalty: 'frequency_penalty',
};

const present = (v: unknown): boolean => v !== undefined && v !== null;

function promptOf(prompt: unknown): string {
  if (typeof prompt === 'string') return prompt;
  if (Array.isArray(prompt)) {
    if (prompt.length === 1 && typeof prompt[0] === 'string') return prompt[0];
    if (prompt.length > 1 && prompt.every((p) => typeof p === 'string')) {
      throw invalid(
        `"prompt" has ${prompt.length} prompts; Switchboard translates completions to chat, which answers one prompt per request.`,
        'Send one request per prompt ("prompt": "...").',
      );
    }
  }
  throw invalid(
    '"prompt" must be a string (token-id prompts are not supported).',
    'Send the prompt as text: "prompt": "...".',
  );
}

function completionsRequestToHub(body: unknown): HubRequest {
  if (!isObject(body))
    throw invalid('The request body must be a JSON object.', 'Send {"model": "...", "prompt": "..."}.');
  const model = requireModel(body.model, '"gpt-3.5-turbo-instruct"');
  if (!present(body.prompt))
    throw invalid('The request has no "prompt".', 'Send "prompt": "..." with the text to complete.');
  const prompt = promptOf(body.prompt);
  if (present(body.suffix) && body.suffix !== '') {
    throw invalid(
      '"suffix" is not supported: the completion is answered by a chat model, which cannot fill in text before a suffix.',
      'Leave "suffix" out, or route this model to a provider that serves /v1/completions.',
    );
  }
  if (body.echo === true) {
    throw invalid(
      '"echo": true is not supported: a chat model does not return the prompt.',
      'Leave "echo" out and prepend the prompt yourself.',
    );
  }
  if (present(body.logprobs)) {
    throw invalid(
      '"logprobs" is not supported for completions answered by a chat model.',
      'Leave "logprobs" out, or route this model to a provider that serves /v1/completions.',
    );
  }

  const hub: HubRequest = { model, messages: [{ role: 'user', content: prompt }] };
  if (body.stream === true) {
    hub.stream = true;
    if (isObject(body.stream_options) && typeof body.stream_options.include_usage === 'boolean') {
      hub.stream_options = { include_usage: body.stream_options.include_usage };
    }
  }
  paramsToHub(PARAMS, body, hub);
  if (typeof body.user === 'string') hub.user = body.user;
  return hub;
}

type LegacyFinish = 'stop' | 'length' | 'content_filter';

const legacyFinish = (f: FinishReason | null): LegacyFinish | null =>
  f === null ? null : f === 'tool_calls' ? 'stop' : f;

function completionsResponse(res: HubResponse, model: string): Json {
  return {
    id: newId('cmpl-'),
    object: 'text_completion',
    created: res.created,
    model,
    choices: res.choices.map((c) => ({
      text: contentText(c.message.content),
      index: c.index,
      logprobs: null,
      finish_reason: legacyFinish(c.finish_reason) ?? 'stop',
    })),
    ...(res.usage ? { usage: res.usage } : {}),
  };
}

class CompletionsStreamEncoder implements StreamEncoder {
  readonly contentType = 'text/event-stream';
  private readonly id = newId('cmpl-');
  private created = Math.floor(Date.now() / 1000);
  /** Finished choices waiting for the usage chunk, by choice index. */
  private readonly held = new Map<number, LegacyFinish>();
  private usage: HubUsage | undefined;
  private ended = false;

  constructor(private readonly model: string) {}

  private data(choices: Json[], usage?: HubUsage): string {
    const body: Json = { id: this.id, object: 'text_completion', created: this.created, model: this.model, choices };
    if (usage) body.usage = usage;
    return `data: ${JSON.stringify(body)}\n\n`;
  }

  private flushHeld(): string {
    if (this.held.size === 0) return '';
    const choices = [...this.held].map(([index, finish]) => ({
      text: '',
      index,
      logprobs: null,
      finish_reason: finish,
    }));
    this.held.clear();
    return this.data(choices, this.usage);
  }

  chunk(c: HubChunk): string {
    if (this.ended) return '';
    if (c.created) this.created = c.created;
    let out = '';
    const text: Json[] = [];
    for (const ch of c.choices) {
      const delta = typeof ch.delta.content === 'string' ? ch.delta.content : '';
      if (delta) text.push({ text: delta, index: ch.index, logprobs: null, finish_reason: null });
      const finish = legacyFinish(ch.finish_reason);
      if (finish) this.held.set(ch.index, finish);
    }
    if (text.length) out += this.data(text);
    if (c.usage) {
      this.usage = c.usage;
      out += this.flushHeld();
    }
    return out;
  }

  end(): string {
    if (this.ended) return '';
    this.ended = true;
    return this.flushHeld() + 'data: [DONE]\n\n';
  }

  error(e: WireError): string {
    if (this.ended) return '';
    this.ended = true;
    return `data: ${JSON.stringify(openaiParamErrorBody(e))}\n\n`;
  }
}

/** OpenAI's error body with `param`, as the legacy endpoint answers (and Responses: responses/ uses it too). */
export function openaiParamErrorBody(e: WireError): unknown {
  const error: Json = { message: e.message, type: e.type, param: null, code: e.code };
  if (e.action) error.action = e.action;
  return { error };
}

export const completionsFormat: ClientFormat = {
  // FormatName has no 'completions': this is OpenAI's own family, and an OpenAI-compatible provider receives
  // /v1/completions untranslated, which is what the same-format pass-through means.
  name: 'openai',
  requestToHub: (body: unknown, _ctx: ClientContext) => completionsRequestToHub(body),
  responseFromHub: (res, ctx) => completionsResponse(res, ctx.model),
  streamEncoder: (ctx) => new CompletionsStreamEncoder(ctx.model),
  errorBody: openaiParamErrorBody,
};

/** Provider side: a text completion of `prompt` (filling in before `suffix` when given), with the hub's sampling. */
export function completionsRequestFromHub(hub: HubRequest, prompt: string, suffix?: string): Json {
  const body: Json = { model: hub.model, prompt };
  if (suffix !== undefined) body.suffix = suffix;
  paramsFromHub(PARAMS, hub, body);
  if (hub.stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  return body;
}

const finishToHub = (v: unknown): FinishReason | null =>
  v === 'length' || v === 'content_filter' ? v : v === null || v === undefined ? null : 'stop';

function failureOf(body: Json): UpstreamStreamError | undefined {
  if (body.error === undefined || body.error === null) return undefined;
  return new UpstreamStreamError(errorMessageOf(body) ?? 'the provider reported an error');
}

/** Provider side: a /v1/completions reply as a hub reply (each choice's text as the message). */
export function completionsResponseToHub(body: unknown, model: string): HubResponse {
  if (!isObject(body))
    throw new UpstreamStreamError('The provider answered /completions with a body that is not JSON.');
  const failure = failureOf(body);
  if (failure) throw failure;
  const choices = (Array.isArray(body.choices) ? body.choices : []).filter(isObject).map((c, k) => ({
    index: typeof c.index === 'number' ? c.index : k,
    message: { role: 'assistant' as const, content: typeof c.text === 'string' ? c.text : '' },
    finish_reason: finishToHub(c.finish_reason) ?? 'stop',
  }));
  const usage = OPENAI_USAGE.toHub(body.usage);
  return {
    id: typeof body.id === 'string' ? body.id : newId('chatcmpl-'),
    object: 'chat.completion',
    created: typeof body.created === 'number' ? body.created : nowSeconds(),
    model: typeof body.model === 'string' && body.model ? body.model : model,
    choices: choices.length
      ? choices
      : [{ index: 0, message: { role: 'assistant', content: '' }, finish_reason: 'stop' }],
    ...(usage ? { usage } : {}),
  };
}

/** Provider side: a /v1/completions stream as hub chunks (a role chunk first, text deltas, finishes, the usage). */
export class CompletionsStreamDecoder extends SseJsonDecoder {
  private head: { id: string; created: number; model: string } | undefined;
  /** A stream that stops before its finish_reason or [DONE] is cut (raised, as chat streams are). */
  private readonly ends = new OpenAIStreamEnd();

  constructor(private readonly model: string) {
    super();
  }

  protected read(data: Json): void {
    const failure = failureOf(data);
    if (failure) throw failure;
    this.ends.chunk(data.choices);
    if (!this.head) {
      this.head = {
        id: typeof data.id === 'string' ? data.id : newId('chatcmpl-'),
        created: typeof data.created === 'number' ? data.created : nowSeconds(),
        model: typeof data.model === 'string' && data.model ? data.model : this.model,
      };
      this.out.push(hubChunk(this.head, { role: 'assistant', content: '' }));
    }
    for (const c of Array.isArray(data.choices) ? data.choices.filter(isObject) : []) {
      const index = typeof c.index === 'number' ? c.index : 0;
      const text = typeof c.text === 'string' ? c.text : '';
      const finish = finishToHub(c.finish_reason);
      if (text || finish) this.out.push(hubChunk(this.head, text ? { content: text } : {}, finish, undefined, index));
    }
    const usage = OPENAI_USAGE.toHub(data.usage);
    if (usage) this.out.push({ ...hubChunk(this.head, {}), choices: [], usage });
  }

  protected override doneEvent(): void {
    this.ends.done();
    this.done = true;
  }

  protected override finish(): void {
    this.ends.check();
  }
}
