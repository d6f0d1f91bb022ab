// /api/generate, Ollama's prompt-and-reply door: its request read into the hub, its reply and stream written back,
// and the ClientFormat that serves it.
import { contentText, optionalString, requireModel, requireObject } from '../hub/index.ts';
import type { ClientFormat, HubMessage, HubRequest, HubResponse, StreamEncoder } from '../hub/index.ts';
import { commonToHub, contentToHub, EXAMPLE_MODEL, imagesToHub } from './request-to-hub.ts';
import { elapsedSinceCreated, errorBody, NO_USAGE, timings } from './response-from-hub.ts';
import { finishFromHub } from './common.ts';
import { NdjsonStreamEncoder } from './stream-encoder.ts';
import type { OllamaGenerateResponse } from './types.ts';

/** POST /api/generate body → hub request: `system` and `prompt` (with its images) become two messages. */
export function generateToHub(body: unknown): HubRequest {
  const b = requireObject(body, '{"model": "...", "prompt": "..."}');
  const model = requireModel(b.model, EXAMPLE_MODEL);
  const system = optionalString(b.system, 'system');
  const prompt = optionalString(b.prompt, 'prompt') ?? '';
  // suffix (fill-in-the-middle), raw, template and context have no hub form: they are checked and left out.
  optionalString(b.suffix, 'suffix');
  const messages: HubMessage[] = [];
  if (system) messages.push({ role: 'system', content: system });
  messages.push({ role: 'user', content: contentToHub(prompt, imagesToHub(b.images, 'images')) });
  const hub: HubRequest = { model, messages };
  commonToHub(b, hub);
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
  requestToHub: (body) => generateToHub(body),
  responseFromHub: (res, ctx) => generateResponseFromHub(res, ctx.model),
  streamEncoder: (ctx) => generateStreamEncoder(ctx.model),
  errorBody,
};
