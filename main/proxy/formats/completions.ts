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
import { contentText, invalid, isObject, newId, paramsToHub, requireModel } from './hub/index.ts';
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
