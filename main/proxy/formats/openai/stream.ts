// OpenAI chat streams: hub chunks are OpenAI's own, so encoding writes them as SSE and decoding reads them back.
import type { WireError } from '../../../errors.ts';
import { type HubChunk, type Json, SseJsonDecoder, type StreamEncoder, UpstreamStreamError } from '../hub/index.ts';

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
    this.out.push(data as HubChunk);
  }
}
