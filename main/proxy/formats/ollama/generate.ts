// /api/generate, Ollama's prompt-and-reply door: its request read into the hub, its reply and stream written back,
// and the ClientFormat that serves it.
import { absent, contentText, invalid, isObject, optionalString, requireModel, requireObject } from '../hub/index.ts';
import type { ClientContext, ClientFormat, HubMessage, HubRequest, HubResponse, StreamEncoder } from '../hub/index.ts';
import { GENERATE_FIELDS } from './fields.ts';
import { commonToHub, contentToHub, EXAMPLE_MODEL, imagesToHub } from './request-to-hub.ts';
import { elapsedSinceCreated, errorBody, NO_USAGE, timings } from './response-from-hub.ts';
import { finishFromHub } from './common.ts';
import { NdjsonStreamEncoder } from './stream-encoder.ts';
import type { OllamaGenerateResponse } from './types.ts';

/**
 * A raw prompt (`raw: true`, sent without the model's template) or a fill-in-the-middle one (`suffix`): a text
 * completion, not a chat. The hub carries it in this field beside the messages, for the door to send to an
 * OpenAI-type provider's /v1/completions; no chat provider is given it (the door refuses those).
 */
const RAW_PROMPT = 'ollama_raw_prompt';

export type RawPrompt = { prompt: string; suffix?: string };

/** The raw or fill-in-the-middle prompt of a hub request read from /api/generate, if it is one. */
export function rawPromptOf(hub: HubRequest): RawPrompt | undefined {
  const v = hub[RAW_PROMPT];
  return isObject(v) && typeof v.prompt === 'string' ? (v as RawPrompt) : undefined;
}

/**
 * POST /api/generate body → hub request: `system` and `prompt` (with its images) become two messages; a raw or
 * fill-in-the-middle prompt is also kept as such (rawPromptOf). What each field becomes: fields.ts.
 */
export function generateToHub(body: unknown, ctx?: ClientContext): HubRequest {
  const b = requireObject(body, '{"model": "...", "prompt": "..."}');
  const model = requireModel(b.model, EXAMPLE_MODEL);
  const system = optionalString(b.system, 'system');
  const prompt = optionalString(b.prompt, 'prompt') ?? '';
  const suffix = optionalString(b.suffix, 'suffix');
  if (!absent(b.raw) && typeof b.raw !== 'boolean') {
    throw invalid(`"raw" must be true or false; got ${JSON.stringify(b.raw)}.`, 'Send "raw": true, or leave it out.');
  }
  const images = imagesToHub(b.images, 'images');
  const messages: HubMessage[] = [];
  if (system) messages.push({ role: 'system', content: system });
  messages.push({ role: 'user', content: contentToHub(prompt, images) });
  const hub: HubRequest = { model, messages };
  if (b.raw === true || suffix) {
    if (images.length) {
      throw invalid(
        `"images" cannot go with a ${suffix ? '"suffix"' : 'raw prompt'}: a text completion (/v1/completions) takes text only.`,
        'Send the images without "raw" and "suffix", or route this model to an Ollama provider.',
      );
    }
    hub[RAW_PROMPT] = suffix ? { prompt, suffix } : { prompt };
  }
  commonToHub(b, hub, GENERATE_FIELDS, ctx);
  return hub;
}

/** A hub (non-stream) response as the body of POST /api/generate. */
export function generateResponseFromHub(res: HubResponse, model: string): OllamaGenerateResponse {
  const now = Date.now();
  const choice = res.choices[0];
  return {
    model,
    created_at: new Date(now).toISOString(),
    response: contentText(choice?.message.content),
    ...(choice?.message.reasoning_content ? { thinking: choice.message.reasoning_content } : {}),
    done: true,
    done_reason: finishFromHub(choice?.finish_reason),
    context: [],
    ...timings(elapsedSinceCreated(res.created, now), res.usage ?? NO_USAGE),
  };
}

/** A streaming encoder for POST /api/generate: NDJSON lines with `response` instead of `message`. */
export function generateStreamEncoder(model: string): StreamEncoder {
  return new NdjsonStreamEncoder(model, 'generate');
}

/** /api/generate as a client format (its errors are /api/chat's). */
export const ollamaGenerateFormat: ClientFormat = {
  name: 'ollama',
  requestToHub: (body, ctx) => generateToHub(body, ctx),
  responseFromHub: (res, ctx) => generateResponseFromHub(res, ctx.model),
  streamEncoder: (ctx) => generateStreamEncoder(ctx.model),
  errorBody,
};
