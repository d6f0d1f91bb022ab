// OpenAI chat completions: the hub's own wire format (front door /v1/chat/completions, and OpenAI-compatible providers).
import { createParser } from 'eventsource-parser';
import { ChatRequestSchema } from '../../../shared/openai.ts';
import { ApiError } from '../../errors.ts';
import {
  type ClientFormat,
  type HubChunk,
  type HubRequest,
  type HubResponse,
  type ProviderFormat,
  type StreamDecoder,
  type StreamEncoder,
  UpstreamStreamError,
  type WireError,
} from './hub.ts';

/** Validates an OpenAI chat request; the body itself is the hub request (no copy). */
export function validateChatRequest(json: unknown): HubRequest {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new ApiError('invalid_request', 'The request body must be a JSON object.', 'Send {"model": "...", "messages": [...]}.');
  }
  const model = (json as { model?: unknown }).model;
  if (model === undefined || model === null || model === '') {
    throw new ApiError('model_required', 'The request has no "model"; Switchboard routes by model name.', 'Add "model": "<name>", e.g. "gpt-4o-mini".');
  }
  const r = ChatRequestSchema.safeParse(json);
  if (!r.success) {
    const details = r.error.issues.map((i) => ({ field: i.path.join('.') || '(body)', message: i.message }));
    throw new ApiError(
      'invalid_request',
      `Invalid request: ${details.map((d) => `${d.field} ${d.message}`).join('; ')}.`,
      'Fix the fields named in error.details and send the request again.',
      details,
    );
  }
  return json as HubRequest;
}

export function openaiErrorBody(e: WireError): unknown {
  const error: Record<string, unknown> = { code: e.code, message: e.message, type: e.type };
  if (e.action) error.action = e.action;
  if (e.details !== undefined) error.details = e.details;
  return { error };
}

function encoder(): StreamEncoder {
  return {
    contentType: 'text/event-stream',
    chunk: (c: HubChunk) => `data: ${JSON.stringify(c)}\n\n`,
    end: () => 'data: [DONE]\n\n',
    error: (e: WireError) => `data: ${JSON.stringify({ error: { code: e.code, message: e.message, type: e.type } })}\n\n`,
  };
}

function decoder(): StreamDecoder {
  let out: HubChunk[] = [];
  let failure: UpstreamStreamError | null = null;
  const parser = createParser({
    onEvent(event) {
      if (event.data === '[DONE]' || failure) return;
      let json: unknown;
      try {
        json = JSON.parse(event.data);
      } catch {
        return; // a comment-like or partial line from an odd server: skip it, as the SDKs do
      }
      const err = (json as { error?: { message?: string; code?: string } }).error;
      if (err) {
        failure = new UpstreamStreamError(err.message ?? 'the provider reported an error mid-stream', err.code ?? 'upstream_error');
        return;
      }
      out.push(json as HubChunk);
    },
  });
  const drain = (): HubChunk[] => {
    if (failure) throw failure;
    const r = out;
    out = [];
    return r;
  };
  return {
    push(text) {
      parser.feed(text);
      return drain();
    },
    end() {
      parser.reset({ consume: true });
      return drain();
    },
  };
}

export const openaiFormat: ClientFormat & ProviderFormat = {
  name: 'openai',
  toHub: (body) => validateChatRequest(body),
  fromHubResponse: (res: HubResponse) => res,
  streamEncoder: () => encoder(),
  errorBody: openaiErrorBody,
  fromHubRequest: (req: HubRequest) => req,
  toHubResponse: (body: unknown) => body as HubResponse,
  streamDecoder: () => decoder(),
  errorMessage(body: unknown): string | undefined {
    const e = (body as { error?: { message?: unknown } | string })?.error;
    if (typeof e === 'string') return e;
    return typeof e?.message === 'string' ? e.message : undefined;
  },
};
