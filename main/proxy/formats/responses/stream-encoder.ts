// Client side: hub chunks as the Responses SSE stream (response.created … output items … response.completed).
import { newId, nowSeconds, ToolCallAssembler } from '../hub/index.ts';
import type { FinishReason, HubChunk, HubChunkToolCall, HubUsage, StreamEncoder, WireError } from '../hub/index.ts';
import { responseObject } from './response-from-hub.ts';
import { finishFromHub } from './common.ts';
import { callAdded, callDelta, callDone, finalItem, textAdded, textDelta, textDone } from './stream-items.ts';
import type { CallExtra, Emit, StreamItem, TextItem } from './stream-items.ts';
import type { ClientTools } from './client-tools.ts';
import type { ItemStatus } from './types.ts';

export class ResponsesStreamEncoder implements StreamEncoder {
  readonly contentType = 'text/event-stream';
  private seq = 0;
  private started = false;
  private readonly id = newId('resp_');
  private createdAt = nowSeconds();
  /** Every output item, in output order. */
  private readonly items: StreamItem[] = [];
  /** The message or reasoning item text is being appended to (sequential); calls stay open until the finish. */
  private current: TextItem | undefined;
  /** The function calls by their hub index. */
  private readonly calls = new ToolCallAssembler<CallExtra>(() => ({
    kind: 'call',
    itemId: '',
    outputIndex: this.items.length,
    added: false,
    done: false,
    tools: this.clientTools,
  }));
  private finish: FinishReason | null = null;
  private usage: HubUsage | null = null;
  private ended = false;
  private failed = false;

  /** `clientTools` (from requestToHub): the tools whose calls go back as another kind than function_call. */
  constructor(
    private readonly model: string,
    private readonly clientTools: ClientTools = {},
  ) {}

  private readonly emit: Emit = (type, fields) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: this.seq++, ...fields })}\n\n`;

  private start(created?: number): string {
    if (this.started) return '';
    this.started = true;
    if (created) this.createdAt = created;
    const { id, createdAt, model } = this;
    const response = responseObject({ id, createdAt, model, status: 'in_progress', output: [] });
    return this.emit('response.created', { response }) + this.emit('response.in_progress', { response });
  }

  private itemStatus(): ItemStatus {
    return this.failed || finishFromHub(this.finish) ? 'incomplete' : 'completed';
  }

  private closeCurrent(): string {
    const item = this.current;
    this.current = undefined;
    return item ? textDone(this.emit, item, this.itemStatus()) : '';
  }

  /** Closes the calls still open (done events, in output order) before a text item starts after them. */
  private closeOpenCalls(): string {
    let out = '';
    for (const item of this.items) {
      if (item.kind !== 'call' || item.done || !item.name) continue;
      item.id ||= newId('call_');
      out += callDone(this.emit, item);
    }
    return out;
  }

  private appendText(kind: TextItem['kind'], delta: string): string {
    let out = '';
    let item = this.current;
    if (item?.kind !== kind || item.done) {
      out += this.closeCurrent() + this.closeOpenCalls();
      const id = newId(kind === 'message' ? 'msg_' : 'rs_');
      item = { kind, id, outputIndex: this.items.length, text: '', done: false };
      this.items.push(item);
      this.current = item;
      out += textAdded(this.emit, item);
    }
    return out + textDelta(this.emit, item, delta);
  }

  private toolDelta(tc: HubChunkToolCall): string {
    let out = '';
    const isNew = !this.calls.has(tc.index);
    if (isNew) out += this.closeCurrent();
    const call = this.calls.add(tc);
    if (isNew) this.items.push(call);
    // Arguments after the call closed cannot be streamed any more: the assembler keeps them for the final object.
    if (call.done) return out;
    // One call streams at a time: a call that starts while another is open waits, its arguments gathered, and goes
    // out whole when the open one closes (at the finish). Each item's output_item.done then comes before the next
    // one's output_item.added, as OpenAI streams them, and a provider that interleaves two calls' arguments never
    // gets a call closed (done, "completed") before its last piece.
    if (!call.added && this.items.some((i) => i !== call && i.kind === 'call' && i.added && !i.done)) return out;
    if (!call.added) {
      // Held until the name is known; the arguments that came first go out with the announcement.
      if (call.name) {
        call.id ||= newId('call_');
        out += callAdded(this.emit, call);
      }
      return out;
    }
    const args = tc.function?.arguments;
    return args ? out + callDelta(this.emit, call, args) : out;
  }

  private closeAll(): string {
    let out = this.closeCurrent();
    for (const item of this.items) {
      if (item.kind !== 'call') continue;
      item.id ||= newId('call_');
      out += callDone(this.emit, item);
    }
    return out;
  }

  chunk(c: HubChunk): string {
    if (this.ended) return '';
    let out = this.start(c.created);
    if (c.usage) this.usage = c.usage;
    for (const choice of c.choices) {
      if (choice.index !== 0) continue;
      const d = choice.delta;
      if (d.reasoning_content) out += this.appendText('reasoning', d.reasoning_content);
      if (typeof d.content === 'string' && d.content) out += this.appendText('message', d.content);
      for (const tc of d.tool_calls ?? []) out += this.toolDelta(tc);
      if (choice.finish_reason) {
        this.finish = choice.finish_reason;
        out += this.closeAll();
      }
    }
    return out;
  }

  private output(): ReturnType<typeof finalItem>[] {
    const status = this.itemStatus();
    return this.items.map((i) => finalItem(i, status));
  }

  end(): string {
    if (this.ended) return '';
    let out = this.start() + this.closeAll();
    this.ended = true;
    const finish = this.finish ?? (this.calls.size ? 'tool_calls' : 'stop');
    const status = finishFromHub(finish) ? 'incomplete' : 'completed';
    const { id, createdAt, model, usage } = this;
    const response = responseObject({ id, createdAt, model, status, output: this.output(), usage, finish });
    out += this.emit(status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response });
    return out;
  }

  error(e: WireError): string {
    if (this.ended) return '';
    this.ended = true;
    this.failed = true;
    const error = { code: e.code, message: e.message };
    const nested = { type: e.type, code: e.code, message: e.message, param: null };
    let out = this.emit('error', { code: e.code, message: e.message, param: null, error: nested });
    const { id, createdAt, model, usage } = this;
    const response = responseObject({ id, createdAt, model, status: 'failed', output: this.output(), usage, error });
    out += this.emit('response.failed', { response });
    return out;
  }
}
