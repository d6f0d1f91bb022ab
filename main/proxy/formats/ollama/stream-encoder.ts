// Client side: hub chunks written as Ollama's NDJSON stream, in the shape of /api/chat or of /api/generate.
import { messageWithAction, ToolCallAssembler } from '../hub/index.ts';
import type { FinishReason, HubChunk, HubUsage, StreamEncoder, WireError } from '../hub/index.ts';
import { timings, toolCallsFromHub } from './response-from-hub.ts';
import { finishFromHub } from './common.ts';
import { NDJSON_CONTENT_TYPE, type OllamaToolCall } from './types.ts';

type Delta = { content?: string; thinking?: string; tool_calls?: OllamaToolCall[] };

const line = (o: unknown): string => `${JSON.stringify(o)}\n`;

/**
 * Hub chunks as Ollama NDJSON: one line per text delta; tool calls buffered until the reply finishes and then
 * written whole in one line (Ollama sends complete calls with object arguments); a final `done: true` line with
 * durations measured from the encoder's creation and token counts (the provider's usage, else one per delta).
 */
export class NdjsonStreamEncoder implements StreamEncoder {
  readonly contentType = NDJSON_CONTENT_TYPE;
  private readonly started = performance.now();
  private readonly calls = new ToolCallAssembler();
  private finish: FinishReason | null = null;
  private usage: HubUsage | undefined;
  private deltas = 0;
  private closed = false;

  constructor(
    private readonly model: string,
    private readonly shape: 'chat' | 'generate',
  ) {}

  private partial(delta: Delta): string {
    const head = { model: this.model, created_at: new Date().toISOString() };
    if (this.shape === 'generate') {
      const thinking = delta.thinking ? { thinking: delta.thinking } : {};
      return line({ ...head, response: delta.content ?? '', ...thinking, done: false });
    }
    return line({ ...head, message: { role: 'assistant', content: delta.content ?? '', ...delta }, done: false });
  }

  private flushCalls(): string {
    const complete = this.calls.list();
    this.calls.clear();
    // /api/generate has no tool calls: a generate client never offered tools, so there is nothing to write.
    if (complete.length === 0 || this.shape === 'generate') return '';
    return this.partial({ tool_calls: toolCallsFromHub(complete) });
  }

  chunk(c: HubChunk): string {
    if (this.closed) return '';
    if (c.usage) this.usage = c.usage;
    let out = '';
    for (const choice of c.choices) {
      if (choice.index !== 0) continue;
      const d = choice.delta;
      if (d.reasoning_content) {
        out += this.partial({ thinking: d.reasoning_content });
        this.deltas++;
      }
      if (typeof d.content === 'string' && d.content !== '') {
        out += this.flushCalls() + this.partial({ content: d.content });
        this.deltas++;
      }
      for (const tc of d.tool_calls ?? []) this.calls.add(tc);
      if (choice.finish_reason) {
        this.finish = choice.finish_reason;
        out += this.flushCalls();
      }
    }
    return out;
  }

  end(): string {
    if (this.closed) return '';
    this.closed = true;
    const head = { model: this.model, created_at: new Date().toISOString() };
    const usage = this.usage ?? { prompt_tokens: 0, completion_tokens: this.deltas, total_tokens: this.deltas };
    const counted = timings(performance.now() - this.started, usage);
    const done = { done: true, done_reason: finishFromHub(this.finish) };
    const body =
      this.shape === 'generate'
        ? { ...head, response: '', ...done, context: [], ...counted }
        : { ...head, message: { role: 'assistant', content: '' }, ...done, ...counted };
    return this.flushCalls() + line(body);
  }

  /** Ollama's error line, {"error": "<text>"}, ending the stream. */
  error(e: WireError): string {
    if (this.closed) return '';
    this.closed = true;
    return line({ error: messageWithAction(e) });
  }
}
