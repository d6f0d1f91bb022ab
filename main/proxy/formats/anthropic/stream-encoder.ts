// Client side: a hub stream written as Anthropic's SSE events (message_start … message_stop).
import { messageWithAction, newId, ToolCallAssembler } from '../hub/index.ts';
import type { AssembledCall, FinishReason, HubChunk, HubChunkToolCall, HubUsage, Json } from '../hub/index.ts';
import type { StreamEncoder, WireError } from '../hub/index.ts';
import { finishFromHub, THINKING_SIGNATURE } from './common.ts';
import { messageId, usageFromHub } from './response-from-hub.ts';

const sse = (type: string, data: Json = {}): string => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

const argsDelta = (index: number, partial: string): string =>
  sse('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: partial } });

/** What the encoder keeps beside each call: its block once opened, and how much of its arguments went out. */
type ToolBlock = { block?: number; sent: number };

/** The text-like blocks: how each opens and carries a delta. */
const TEXT_LIKE = {
  text: { block: { type: 'text', text: '' }, delta: (text: string) => ({ type: 'text_delta', text }) },
  thinking: {
    block: { type: 'thinking', thinking: '', signature: '' },
    delta: (thinking: string) => ({ type: 'thinking_delta', thinking }),
  },
} as const;

/**
 * One reply's events. The provider's reasoning goes as thinking blocks (thinking_delta, then a signature_delta with
 * Switchboard's signature before the block stops, as Anthropic's clients expect). A tool call's block opens once its
 * name is known (Anthropic needs it up front); arguments that came before are sent then. Ping goes once right after
 * message_start, whose usage is the request's estimated input tokens (`inputEstimate`, extras.ts) until the
 * provider's exact counts arrive with message_delta.
 */
export class AnthropicStreamEncoder implements StreamEncoder {
  readonly contentType = 'text/event-stream';
  private started = false;
  private done = false;
  private nextBlock = 0;
  private open: { index: number; kind: 'text' | 'thinking' | 'tool' } | null = null;
  private readonly tools = new ToolCallAssembler<ToolBlock>(() => ({ sent: 0 }));
  private finish: FinishReason | null = null;
  private usage: HubUsage | undefined;

  constructor(
    private readonly model: string,
    private readonly inputEstimate = 0,
  ) {}

  private start(hubId: string | undefined): string {
    this.started = true;
    const message = {
      id: messageId(hubId),
      type: 'message',
      role: 'assistant',
      model: this.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: this.usage
        ? { ...usageFromHub(this.usage), output_tokens: 0 }
        : { input_tokens: this.inputEstimate, output_tokens: 0 },
    };
    return sse('message_start', { message }) + sse('ping');
  }

  private closeOpen(): string {
    if (!this.open) return '';
    const { index, kind } = this.open;
    const signature = { type: 'signature_delta', signature: THINKING_SIGNATURE };
    const out =
      (kind === 'thinking' ? sse('content_block_delta', { index, delta: signature }) : '') +
      sse('content_block_stop', { index });
    this.open = null;
    return out;
  }

  private openTool(call: AssembledCall & ToolBlock): string {
    let out = this.closeOpen();
    const index = this.nextBlock++;
    call.block = index;
    this.open = { index, kind: 'tool' };
    const block = { type: 'tool_use', id: call.id || newId('toolu_'), name: call.name, input: {} };
    out += sse('content_block_start', { index, content_block: block });
    if (call.arguments) out += argsDelta(index, call.arguments);
    call.sent = call.arguments.length;
    return out;
  }

  private toolDelta(tc: HubChunkToolCall): string {
    const call = this.tools.add(tc);
    if (call.block === undefined) return call.name ? this.openTool(call) : '';
    // A delta for a block already closed (a provider interleaving calls) still goes out, under its own index:
    // losing arguments is worse than an unusual order, and Anthropic's SDK accumulates by index.
    const args = call.arguments.slice(call.sent);
    call.sent = call.arguments.length;
    return args ? argsDelta(call.block, args) : '';
  }

  /** Text or reasoning, in the open block of its kind or a new one. */
  private textLike(kind: keyof typeof TEXT_LIKE, content: string): string {
    let out = '';
    if (this.open?.kind !== kind) {
      out += this.closeOpen();
      this.open = { index: this.nextBlock++, kind };
      out += sse('content_block_start', { index: this.open.index, content_block: TEXT_LIKE[kind].block });
    }
    return out + sse('content_block_delta', { index: this.open.index, delta: TEXT_LIKE[kind].delta(content) });
  }

  chunk(c: HubChunk): string {
    if (this.done) return '';
    if (c.usage) this.usage = c.usage;
    let out = this.started ? '' : this.start(c.id);
    for (const choice of c.choices) {
      if (choice.index !== 0) continue;
      const d = choice.delta;
      if (typeof d.reasoning_content === 'string' && d.reasoning_content !== '') {
        out += this.textLike('thinking', d.reasoning_content);
      }
      if (typeof d.content === 'string' && d.content !== '') out += this.textLike('text', d.content);
      for (const tc of d.tool_calls ?? []) out += this.toolDelta(tc);
      if (choice.finish_reason) this.finish = choice.finish_reason;
    }
    return out;
  }

  end(): string {
    if (this.done) return '';
    this.done = true;
    let out = this.started ? '' : this.start(undefined);
    out += this.closeOpen();
    for (const call of this.tools.list()) {
      if (call.block === undefined) out += this.openTool(call) + this.closeOpen();
    }
    const delta = { stop_reason: finishFromHub(this.finish, this.tools.size > 0), stop_sequence: null };
    // message_delta carries input_tokens too (as the real API does): message_start went out before the usage came.
    const usage = this.usage ? usageFromHub(this.usage) : { output_tokens: 0 };
    return out + sse('message_delta', { delta, usage }) + sse('message_stop');
  }

  error(e: WireError): string {
    if (this.done) return '';
    this.done = true;
    const type = e.status === 503 || e.status === 529 ? 'overloaded_error' : 'api_error';
    return sse('error', { error: { type, message: messageWithAction(e) } });
  }
}
