// OpenAI chat streams: hub chunks are OpenAI's own, so encoding writes them as SSE and decoding reads them back.
import type { WireError } from '../../../errors.ts';
import { type HubChunk, isObject, type Json, SseJsonDecoder, type StreamEncoder } from '../hub/index.ts';
import { UpstreamStreamError } from '../hub/index.ts';

/**
 * A provider message or delta's reasoning as the hub's: OpenRouter (and Ollama's and newer vLLM's /v1) send it as
 * `reasoning`, DeepSeek and vLLM as `reasoning_content`, the hub's name. A string `reasoning` becomes
 * reasoning_content (unless that is there already) and is taken out; OpenRouter's reasoning_details stay as they are.
 */
export function reasoningToHub(m: Json): void {
  const r = m.reasoning;
  if (typeof r !== 'string') return;
  if (typeof m.reasoning_content !== 'string' && r !== '') m.reasoning_content = r;
  delete m.reasoning;
}

export class OpenAIStreamEncoder implements StreamEncoder {
  readonly contentType = 'text/event-stream';

  chunk(c: HubChunk): string {
    return `data: ${JSON.stringify(c)}\n\n`;
  }

  end(): string {
    return 'data: [DONE]\n\n';
  }

  error(e: WireError): string {
    return `data: ${JSON.stringify({ error: { code: e.code, message: e.message, type: e.type } })}\n\n`;
  }
}

/** An OpenAI-compatible provider's stream: each event a chunk, or {"error": …} mid-stream. */
export class OpenAIStreamDecoder extends SseJsonDecoder {
  protected read(data: Json): void {
    const err = data.error as { message?: unknown; code?: unknown } | string | undefined;
    if (err !== undefined && err !== null) {
      const e = typeof err === 'string' ? { message: err } : err;
      throw new UpstreamStreamError(
        typeof e.message === 'string' ? e.message : 'the provider reported an error mid-stream',
        typeof e.code === 'string' ? e.code : 'upstream_error',
      );
    }
    const choices = data.choices;
    if (Array.isArray(choices)) for (const c of choices) if (isObject(c) && isObject(c.delta)) reasoningToHub(c.delta);
    this.out.push(data as HubChunk);
  }
}
