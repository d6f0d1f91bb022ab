// Provider side: Gemini's `alt=sse` stream as hub chunks, on the shared SSE-JSON decoder (../hub/sse-json.ts).
import { answerText, hubChunk, isAnswerTool, newId, nowSeconds, SseJsonDecoder } from '../hub/index.ts';
import { UpstreamStreamError } from '../hub/index.ts';
import type { FinishReason, HubChunk, HubChunkToolCall, HubUsage, Json } from '../hub/index.ts';
import { finishToHub } from './common.ts';
import { callToHub, errorOf, upstreamError, usageToHub } from './response-to-hub.ts';
import type { GeminiResponse } from './types.ts';

/** Raw text kept when a stream is not SSE (Gemini may answer a JSON error body); bounded. */
const MAX_STRAY_CHARS = 64 * 1024;

/**
 * Each functionCall part becomes one whole tool call delta; finishReason and usage end a candidate. Gemini may also
 * answer with, or break into the stream with, a JSON error body written outside SSE framing (read from stray lines).
 */
export class GeminiStreamDecoder extends SseJsonDecoder {
  private stray = '';
  private started = false;
  private id = '';
  private readonly created = nowSeconds();
  private readonly callCount = new Map<number, number>();
  private readonly finished = new Set<number>();
  private readonly seen = new Set<number>();
  private usage: HubUsage | undefined;
  private usageSent = false;

  constructor(private modelName: string) {
    super();
  }

  private chunk(index: number, delta: HubChunk['choices'][0]['delta'], finish: FinishReason | null = null): HubChunk {
    return hubChunk({ id: this.id, created: this.created, model: this.modelName }, delta, finish, undefined, index);
  }

  /** A candidate's end: tool_calls when it called functions and ended normally. */
  private finishChunk(index: number, reason: string | undefined): HubChunk {
    return this.chunk(index, {}, finishToHub(reason, (this.callCount.get(index) ?? 0) > 0));
  }

  protected read(data: Json): void {
    const err = errorOf(data);
    if (err) throw upstreamError(err);
    this.out.push(...this.readEvent(data as GeminiResponse));
  }

  private readEvent(event: GeminiResponse): HubChunk[] {
    const out: HubChunk[] = [];
    if (!this.started) {
      this.started = true;
      this.id = event.responseId || newId('chatcmpl-');
      if (event.modelVersion) this.modelName = event.modelVersion;
      out.push(this.chunk(0, { role: 'assistant', content: '' }));
    }
    const usage = usageToHub(event.usageMetadata);
    if (usage) this.usage = usage;
    const candidates = Array.isArray(event.candidates) ? event.candidates : [];
    let finishing = false;
    candidates.forEach((c, k) => {
      const index = c.index ?? k;
      this.seen.add(index);
      for (const p of c.content?.parts ?? []) {
        // Switchboard's answer tool (structured output beside tools: structured-output.ts) is the answer's text.
        if (p.functionCall && isAnswerTool(p.functionCall.name)) {
          out.push(this.chunk(index, { content: answerText(p.functionCall.name, p.functionCall.args) }));
        } else if (p.functionCall) {
          const n = this.callCount.get(index) ?? 0;
          this.callCount.set(index, n + 1);
          const call = callToHub(p.functionCall);
          const tc: HubChunkToolCall = { index: n, id: call.id, type: 'function', function: call.function };
          out.push(this.chunk(index, { tool_calls: [tc] }));
        } else if (typeof p.text === 'string' && p.text !== '') {
          out.push(this.chunk(index, p.thought ? { reasoning_content: p.text } : { content: p.text }));
        }
      }
      if (c.finishReason && !this.finished.has(index)) {
        this.finished.add(index);
        finishing = true;
        out.push(this.finishChunk(index, c.finishReason));
      }
    });
    if (!candidates.length && event.promptFeedback?.blockReason && !this.finished.has(0)) {
      this.finished.add(0);
      finishing = true;
      out.push(this.chunk(0, {}, 'content_filter'));
    }
    if (finishing && this.usage) {
      out.at(-1)!.usage = this.usage;
      this.usageSent = true;
    } else if (this.usageSent && usage) {
      // Usage that changed after the finish.
      out.push({ ...this.chunk(0, {}), choices: [], usage });
    }
    return out;
  }

  /** Gemini can answer with, or break into the stream with, a plain JSON error body outside SSE framing. */
  protected override strayLine(line: string): void {
    if (this.stray.length >= MAX_STRAY_CHARS) return;
    this.stray += `${line}\n`;
    const text = this.stray.trim();
    if (!text.endsWith('}') && !text.endsWith(']')) return;
    const err = errorOf(text.slice(Math.max(0, text.search(/[[{]/))));
    if (err) this.fail(upstreamError(err));
  }

  /**
   * The end of the bytes: every candidate that came must have given its finishReason (Gemini's last event carries
   * it). A stream that stops before is cut, raised as UpstreamStreamError: never a reply, or a function call, taken
   * as whole when it is not.
   */
  protected override finish(): void {
    if (!this.started) throw new UpstreamStreamError('Gemini ended the stream without sending a response.');
    const open = [...this.seen].filter((i) => !this.finished.has(i));
    if (open.length > 0 || this.finished.size === 0) {
      throw new UpstreamStreamError('The Gemini stream ended before its finishReason: the reply is incomplete.');
    }
    // Usage that came only after the finish.
    if (this.usage && !this.usageSent) this.out.push({ ...this.chunk(0, {}), choices: [], usage: this.usage });
  }
}
