// Client side: hub chunks as Gemini stream events, as SSE (`alt=sse`) or as one JSON array written piece by piece.
import { ToolCallAssembler } from '../hub/index.ts';
import type { FinishReason, HubChunk, HubUsage, ReplyContext, StreamEncoder, WireError } from '../hub/index.ts';
import { callFromHub, candidateFromHub, errorBody, usageFromHub } from './response-from-hub.ts';
import type { GeminiCandidate, GeminiResponse } from './types.ts';

type CandidateStream = {
  calls: ToolCallAssembler;
  finish: FinishReason | null;
  /** The final event (tool calls, finishReason) went out. */
  closed: boolean;
};

/** Text goes out as it comes; tool calls are put together and sent whole in each candidate's final event. */
export class GeminiStreamEncoder implements StreamEncoder {
  readonly contentType: string;
  private readonly sse: boolean;
  private readonly candidates = new Map<number, CandidateStream>();
  private usage: HubUsage | undefined;
  private responseId = '';
  private modelVersion: string;
  private events = 0;
  private done = false;

  constructor(ctx: ReplyContext) {
    this.sse = ctx.query?.get('alt') === 'sse';
    this.contentType = this.sse ? 'text/event-stream' : 'application/json';
    this.modelVersion = ctx.model;
  }

  private frame(event: unknown): string {
    const json = JSON.stringify(event);
    if (this.sse) return `data: ${json}\r\n\r\n`;
    return (this.events++ === 0 ? '[' : ',\r\n') + json;
  }

  private event(candidates: GeminiCandidate[], usage?: HubUsage): string {
    const e: GeminiResponse = { candidates };
    if (usage) e.usageMetadata = usageFromHub(usage);
    e.modelVersion = this.modelVersion;
    e.responseId = this.responseId;
    return this.frame(e);
  }

  private textEvent(index: number, text: string, thought: boolean): string {
    const part = thought ? { text, thought: true } : { text };
    return this.event([{ content: { parts: [part], role: 'model' }, index }]);
  }

  private state(index: number): CandidateStream {
    let s = this.candidates.get(index);
    if (!s) this.candidates.set(index, (s = { calls: new ToolCallAssembler(), finish: null, closed: false }));
    return s;
  }

  /** The final events: each candidate's whole tool calls and finishReason; usage rides on the last one. */
  private flushFinals(all: boolean): string {
    const ready = [...this.candidates.entries()].filter(([, s]) => !s.closed && (all || s.finish));
    let out = '';
    ready.forEach(([index, s], k) => {
      s.closed = true;
      const parts = s.calls.list().map((c) => ({ functionCall: callFromHub(c.id, c.name, c.arguments) }));
      const finish = s.finish ?? (parts.length ? 'tool_calls' : 'stop');
      out += this.event([candidateFromHub(index, parts, finish)], k === ready.length - 1 ? this.usage : undefined);
    });
    return out;
  }

  chunk(c: HubChunk): string {
    if (this.done) return '';
    this.responseId ||= c.id;
    if (c.model) this.modelVersion = c.model;
    if (c.usage) this.usage = c.usage;
    let out = '';
    for (const choice of c.choices) {
      const s = this.state(choice.index);
      const d = choice.delta;
      if (d.reasoning_content) out += this.textEvent(choice.index, d.reasoning_content, true);
      if (typeof d.content === 'string' && d.content !== '') out += this.textEvent(choice.index, d.content, false);
      for (const tc of d.tool_calls ?? []) s.calls.add(tc);
      if (choice.finish_reason) s.finish = choice.finish_reason;
    }
    // Hold the final event for the usage chunk that OpenAI-style streams send after the finish chunk.
    if (c.usage) out += this.flushFinals(false);
    return out;
  }

  end(): string {
    if (this.done) return '';
    this.done = true;
    const out = this.flushFinals(true);
    if (this.sse) return out;
    return out + (this.events === 0 ? '[]' : ']');
  }

  error(e: WireError): string {
    if (this.done) return '';
    this.done = true;
    const body = errorBody(e);
    if (this.sse) return this.frame(body);
    return this.frame(body) + ']';
  }
}
