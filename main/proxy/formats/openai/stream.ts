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

/**
 * Where an OpenAI-style stream (chat or text completions) is in its end: `[DONE]`, or a finish_reason for every
 * choice that came (some servers send no `[DONE]`). Bytes that end before either are a cut stream.
 */
export class OpenAIStreamEnd {
  /** Choices that came, and those that gave their finish_reason. */
  private readonly choices = new Set<number>();
  private readonly finished = new Set<number>();
  private chunks = 0;
  private doneEvent = false;

  /** One chunk's choices (each an object with `index` and `finish_reason`). */
  chunk(choices: unknown): void {
    this.chunks++;
    if (!Array.isArray(choices)) return;
    for (const c of choices) {
      if (!isObject(c)) continue;
      const index = typeof c.index === 'number' ? c.index : 0;
      this.choices.add(index);
      if (typeof c.finish_reason === 'string' && c.finish_reason !== '') this.finished.add(index);
    }
  }

  done(): void {
    this.doneEvent = true;
  }

  /** Raises UpstreamStreamError when the stream stopped before its end (not when it carried no chunk at all). */
  check(): void {
    // No chunk at all: the SSE base's "carried no events" says more (it quotes what came instead).
    if (this.doneEvent || this.chunks === 0) return;
    if (this.choices.size > 0 && [...this.choices].every((i) => this.finished.has(i))) return;
    throw new UpstreamStreamError(
      "The provider's stream ended before its finish_reason and [DONE]: the reply is incomplete.",
    );
  }
}

/**
 * An OpenAI-compatible provider's stream: each event a chunk, or {"error": …} mid-stream. A stream that stops before
 * its end (OpenAIStreamEnd) raises UpstreamStreamError: never a reply, or a tool call's arguments, taken as whole
 * when it is not.
 */
export class OpenAIStreamDecoder extends SseJsonDecoder {
  private readonly ends = new OpenAIStreamEnd();

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
    this.ends.chunk(choices);
    if (Array.isArray(choices)) for (const c of choices) if (isObject(c) && isObject(c.delta)) reasoningToHub(c.delta);
    this.out.push(data as HubChunk);
  }

  protected override doneEvent(): void {
    this.ends.done();
    this.done = true;
  }

  protected override finish(): void {
    this.ends.check();
  }
}
