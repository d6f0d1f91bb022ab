// Provider side: an Anthropic SSE stream read as hub chunks (on the SSE-JSON decoder base, ../hub/sse-json.ts).
import type { EventSourceMessage } from 'eventsource-parser';
import { argumentsToHub, hubChunk, isObject, newId, nowSeconds, SseJsonDecoder } from '../hub/index.ts';
import { UpstreamStreamError } from '../hub/index.ts';
import type { FinishReason, HubDelta, Json } from '../hub/index.ts';
import { ANTHROPIC_USAGE, finishToHub } from './common.ts';
import { ANSWER_TOOL, answerTextOfJson, isAnswerTool } from './structured-output.ts';

/**
 * What a content block is, by its index; a tool block keeps an input sent whole in content_block_start. An answer
 * block (Switchboard's structured-output tool) is text: its input JSON streams as content (the value tool's is kept
 * until the block stops, to take `value` out of it).
 */
type StreamBlock =
  | { kind: 'text' | 'thinking' | 'other' }
  | { kind: 'tool'; tool: number; startInput?: string; gotDelta: boolean }
  | { kind: 'answer'; name: string; json: string; startInput?: string; gotDelta: boolean };

/** The status and Switchboard code an Anthropic mid-stream error type stands for. */
function streamFailure(error: unknown): UpstreamStreamError {
  const e = isObject(error) ? error : {};
  const message = typeof e.message === 'string' ? e.message : 'The Anthropic provider reported an error mid-stream.';
  if (e.type === 'rate_limit_error') return new UpstreamStreamError(message, 'upstream_rate_limited', 429);
  if (e.type === 'overloaded_error') return new UpstreamStreamError(message, 'upstream_error', 503);
  return new UpstreamStreamError(message);
}

/**
 * One reply's events as hub chunks: a role chunk first, then text, thinking (as reasoning_content) and tool call
 * deltas (one hub index per tool_use block), then a finish chunk carrying the usage. A stream that ends without
 * message_stop and without a stop_reason is cut: it raises UpstreamStreamError.
 */
export class AnthropicStreamDecoder extends SseJsonDecoder {
  private id = '';
  private readonly created = nowSeconds();
  private started = false;
  private finishReason: FinishReason | null = null;
  /** The usage counters seen so far (message_start's, then message_delta's), each the latest number given. */
  private readonly usage: Json = {};
  private readonly blocks = new Map<number, StreamBlock>();
  private tools = 0;
  /** A call of Switchboard's answer tool came (structured output). */
  private answered = false;

  constructor(private model: string) {
    super();
  }

  protected read(raw: Json, event: EventSourceMessage): void {
    // Some servers leave `type` out of the data: the SSE event name says it.
    const data = typeof raw.type === 'string' || !event.event ? raw : { ...raw, type: event.event };
    const index = typeof data.index === 'number' ? data.index : -1;
    switch (data.type) {
      case 'message_start': {
        const m = isObject(data.message) ? data.message : {};
        if (typeof m.id === 'string') this.id = m.id;
        if (typeof m.model === 'string' && m.model) this.model = m.model;
        this.readUsage(m.usage);
        this.ensureStarted();
        return;
      }
      case 'content_block_start':
        this.ensureStarted();
        this.blockStart(index, isObject(data.content_block) ? data.content_block : {});
        return;
      case 'content_block_delta':
        this.ensureStarted();
        this.blockDelta(index, isObject(data.delta) ? data.delta : {});
        return;
      case 'content_block_stop': {
        const block = this.blocks.get(index);
        if (block?.kind === 'tool' && !block.gotDelta && block.startInput) {
          this.emit({ tool_calls: [{ index: block.tool, function: { arguments: block.startInput } }] });
        } else if (block?.kind === 'answer') this.answerStop(block);
        return;
      }
      case 'message_delta': {
        this.ensureStarted();
        const d = isObject(data.delta) ? data.delta : {};
        if (typeof d.stop_reason === 'string') this.finishReason = finishToHub(d.stop_reason);
        this.readUsage(data.usage);
        return;
      }
      case 'message_stop':
        this.ensureStarted();
        this.finishStream();
        return;
      case 'error':
        throw streamFailure(data.error);
      default:
        return; // ping and event types added later
    }
  }

  /** The end of the bytes: a stream that gave its stop_reason but no message_stop is whole; without either, cut. */
  protected override finish(): void {
    if (this.done) return;
    if (this.finishReason === null) {
      throw new UpstreamStreamError('The Anthropic stream ended before message_stop: the reply is incomplete.');
    }
    this.finishStream();
  }

  private emit(delta: HubDelta, finish: FinishReason | null = null): void {
    const usage = finish ? ANTHROPIC_USAGE.toHub(this.usage) : undefined;
    this.out.push(hubChunk({ id: this.id, created: this.created, model: this.model }, delta, finish, usage));
  }

  private ensureStarted(): void {
    if (this.started) return;
    this.started = true;
    this.id ||= newId('msg_');
    this.emit({ role: 'assistant', content: '' });
  }

  private readUsage(u: unknown): void {
    if (!isObject(u)) return;
    for (const [key, v] of Object.entries(u)) if (typeof v === 'number' && Number.isFinite(v)) this.usage[key] = v;
    // The 5-minute / 1-hour split of the cache writes (priced apart): its numbers, the latest given.
    if (isObject(u.cache_creation)) {
      const split: Json = isObject(this.usage.cache_creation) ? this.usage.cache_creation : {};
      for (const [key, v] of Object.entries(u.cache_creation))
        if (typeof v === 'number' && Number.isFinite(v)) split[key] = v;
      this.usage.cache_creation = split;
    }
  }

  private finishStream(): void {
    this.done = true;
    // A reply whose only call was the answer tool is a normal stop.
    const answerOnly = this.answered && this.tools === 0;
    const finish = this.finishReason === 'tool_calls' && answerOnly ? 'stop' : this.finishReason;
    this.emit({}, finish ?? 'stop');
  }

  /** The end of an answer block: the value tool's answer, or an input sent whole in content_block_start. */
  private answerStop(block: Extract<StreamBlock, { kind: 'answer' }>): void {
    const json = block.gotDelta ? block.json : (block.startInput ?? '');
    if (block.name === ANSWER_TOOL) {
      if (!block.gotDelta && json) this.emit({ content: json });
    } else if (json) this.emit({ content: answerTextOfJson(block.name, json) });
  }

  private blockStart(index: number, b: Json): void {
    if (b.type === 'text') {
      this.blocks.set(index, { kind: 'text' });
      if (typeof b.text === 'string' && b.text) this.emit({ content: b.text });
    } else if (b.type === 'thinking') {
      this.blocks.set(index, { kind: 'thinking' });
      if (typeof b.thinking === 'string' && b.thinking) this.emit({ reasoning_content: b.thinking });
    } else if (b.type === 'tool_use') {
      // Some Anthropic-compatible servers send the whole input here and no deltas: keep it until the block stops.
      const startInput = isObject(b.input) && Object.keys(b.input).length > 0 ? JSON.stringify(b.input) : undefined;
      const start = startInput ? { startInput } : {};
      if (isAnswerTool(b.name)) {
        this.answered = true;
        this.blocks.set(index, { kind: 'answer', name: b.name, json: '', gotDelta: false, ...start });
        return;
      }
      const tool = this.tools++;
      const startArgs = startInput ? { startInput: argumentsToHub(b.input) } : {};
      this.blocks.set(index, { kind: 'tool', tool, gotDelta: false, ...startArgs });
      const id = typeof b.id === 'string' ? b.id : newId('toolu_');
      const name = typeof b.name === 'string' ? b.name : '';
      this.emit({ tool_calls: [{ index: tool, id, type: 'function', function: { name, arguments: '' } }] });
    } else this.blocks.set(index, { kind: 'other' });
  }

  private blockDelta(index: number, d: Json): void {
    const block = this.blocks.get(index);
    if (d.type === 'text_delta' && typeof d.text === 'string' && d.text) this.emit({ content: d.text });
    else if (d.type === 'thinking_delta' && typeof d.thinking === 'string' && d.thinking) {
      this.emit({ reasoning_content: d.thinking });
    } else if (d.type === 'input_json_delta' && block?.kind === 'tool') {
      block.gotDelta = true;
      const args = d.partial_json;
      if (typeof args === 'string' && args) {
        this.emit({ tool_calls: [{ index: block.tool, function: { arguments: args } }] });
      }
    } else if (d.type === 'input_json_delta' && block?.kind === 'answer') {
      block.gotDelta = true;
      const json = d.partial_json;
      if (typeof json !== 'string' || !json) return;
      if (block.name === ANSWER_TOOL) this.emit({ content: json });
      else block.json += json;
    }
  }
}
