// The tool-call assembler: puts whole calls together from OpenAI-style stream deltas (by index: the id once, the name
// and the arguments in pieces). Used wherever a format needs whole calls (Gemini, Ollama, a folded reply) or keeps
// per-call state while it streams (Anthropic blocks, Responses items).
import type { HubChunkToolCall, HubToolCall } from './types.ts';

export type AssembledCall = { index: number; id: string; name: string; arguments: string };

export class ToolCallAssembler<Extra extends object = object> {
  private readonly calls = new Map<number, AssembledCall & Extra>();

  /** `extra` gives each new call the fields its user keeps beside it (a block index, an item id...). */
  constructor(private readonly extra: () => Extra = () => ({}) as Extra) {}

  /** Adds one delta to its call (created on its first delta) and returns the call. */
  add(d: HubChunkToolCall): AssembledCall & Extra {
    let call = this.calls.get(d.index);
    if (!call) {
      call = { ...this.extra(), index: d.index, id: '', name: '', arguments: '' };
      this.calls.set(d.index, call);
    }
    if (d.id && !call.id) call.id = d.id;
    if (d.function?.name) call.name += d.function.name;
    if (d.function?.arguments) call.arguments += d.function.arguments;
    return call;
  }

  has(index: number): boolean {
    return this.calls.has(index);
  }

  get size(): number {
    return this.calls.size;
  }

  /** The calls in index order. */
  list(): (AssembledCall & Extra)[] {
    return [...this.calls.values()].sort((a, b) => a.index - b.index);
  }

  /** The calls as hub tool calls (ids minted by `mintId` where the stream gave none). */
  toolCalls(mintId: () => string): HubToolCall[] {
    return this.list().map((c) => ({
      id: c.id || mintId(),
      type: 'function',
      function: { name: c.name, arguments: c.arguments },
    }));
  }

  clear(): void {
    this.calls.clear();
  }
}
