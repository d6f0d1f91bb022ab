// Provider side: a Responses SSE stream read into hub chunks, on the shared SSE-JSON rules (../hub/sse-json.ts).
// Servers differ in which events they send: arguments and text that only arrive in done events or in the final
// Response are filled in, never lost and never repeated.
import type { EventSourceMessage } from 'eventsource-parser';
import { hubChunk, isObject, newId, nowSeconds, SseJsonDecoder, UpstreamStreamError } from '../hub/index.ts';
import type { FinishReason, HubDelta, HubUsage, Json } from '../hub/index.ts';
import { failureToHub, messageText } from './response-to-hub.ts';
import { finishToHub, RESPONSES_USAGE } from './common.ts';

type CallState = { index: number; sent: string; announced: boolean };

export class ResponsesStreamDecoder extends SseJsonDecoder {
  private id = newId('resp_');
  private created = nowSeconds();
  private roleSent = false;
  /** Function calls by item id (and by output index, for servers that omit item ids). */
  private readonly calls = new Map<string, CallState>();
  private callCount = 0;
  /** Text streamed so far per message item, so done events can fill in what deltas missed. */
  private readonly texts = new Map<string, string>();

  constructor(private model: string) {
    super();
  }

  private chunk(delta: HubDelta, finish: FinishReason | null = null, usage?: HubUsage): void {
    this.out.push(hubChunk({ id: this.id, created: this.created, model: this.model }, delta, finish, usage));
  }

  private role(): void {
    if (this.roleSent) return;
    this.roleSent = true;
    this.chunk({ role: 'assistant', content: '' });
  }

  private readResponse(r: unknown): void {
    if (!isObject(r)) return;
    if (typeof r.id === 'string') this.id = r.id;
    if (typeof r.created_at === 'number') this.created = r.created_at;
    if (typeof r.model === 'string' && r.model) this.model = r.model;
  }

  private callFor(e: Json, item: Json | undefined): CallState {
    const byIndex = `#${String(e.output_index)}`;
    const byId = typeof item?.id === 'string' ? item.id : typeof e.item_id === 'string' ? e.item_id : byIndex;
    const keys = [byId, byIndex];
    let state = keys.map((k) => this.calls.get(k)).find(Boolean);
    if (!state) {
      state = { index: this.callCount++, sent: '', announced: false };
      for (const k of keys) this.calls.set(k, state);
    }
    if (!state.announced && item) {
      state.announced = true;
      this.role();
      const id = typeof item.call_id === 'string' && item.call_id ? item.call_id : newId('call_');
      const name = typeof item.name === 'string' ? item.name : '';
      this.chunk({ tool_calls: [{ index: state.index, id, type: 'function', function: { name, arguments: '' } }] });
    }
    return state;
  }

  private args(state: CallState, delta: string): void {
    state.sent += delta;
    this.chunk({ tool_calls: [{ index: state.index, function: { arguments: delta } }] });
  }

  /** Sends whatever part of `full` the deltas have not carried (never loses arguments). */
  private catchUpArgs(state: CallState, full: unknown): void {
    if (typeof full !== 'string' || full === state.sent) return;
    const rest = full.startsWith(state.sent) ? full.slice(state.sent.length) : state.sent ? '' : full;
    if (rest) this.args(state, rest);
  }

  private catchUpText(itemId: string, full: string): void {
    // Text streamed without item ids cannot be matched to items: trust the deltas then.
    if (!this.texts.has(itemId) && this.texts.has('')) return;
    const sent = this.texts.get(itemId) ?? '';
    if (full === sent || !full.startsWith(sent)) return;
    this.texts.set(itemId, full);
    this.role();
    this.chunk({ content: full.slice(sent.length) });
  }

  private item(e: Json): void {
    const item = isObject(e.item) ? e.item : undefined;
    if (item?.type === 'function_call') this.catchUpArgs(this.callFor(e, item), item.arguments);
    else if (item?.type === 'message' && e.type === 'response.output_item.done' && typeof item.id === 'string') {
      this.catchUpText(item.id, messageText(item));
    }
  }

  private completed(e: Json): void {
    const response = isObject(e.response) ? e.response : {};
    this.readResponse(response);
    this.role();
    // Fill in output items whose events never came (servers that only send the final object).
    for (const [i, item] of (Array.isArray(response.output) ? response.output : []).entries()) {
      if (!isObject(item)) continue;
      if (item.type === 'function_call') this.catchUpArgs(this.callFor({ output_index: i }, item), item.arguments);
      else if (item.type === 'message' && typeof item.id === 'string') this.catchUpText(item.id, messageText(item));
    }
    this.done = true;
    this.chunk({}, finishToHub(response, this.callCount > 0), RESPONSES_USAGE.toHub(response.usage));
  }

  protected read(e: Json, event: EventSourceMessage): void {
    if (typeof e.type !== 'string' && event.event) e.type = event.event;
    switch (e.type) {
      case 'response.created':
      case 'response.in_progress':
        this.readResponse(e.response);
        this.role();
        return;
      case 'response.output_text.delta':
      case 'response.refusal.delta':
        if (typeof e.delta === 'string' && e.delta) {
          const key = typeof e.item_id === 'string' ? e.item_id : '';
          this.texts.set(key, (this.texts.get(key) ?? '') + e.delta);
          this.role();
          this.chunk({ content: e.delta });
        }
        return;
      case 'response.output_text.done':
        if (typeof e.text === 'string' && typeof e.item_id === 'string') this.catchUpText(e.item_id, e.text);
        return;
      case 'response.reasoning_text.delta':
      case 'response.reasoning_summary_text.delta':
        if (typeof e.delta === 'string' && e.delta) {
          this.role();
          this.chunk({ reasoning_content: e.delta });
        }
        return;
      case 'response.output_item.added':
      case 'response.output_item.done':
        return this.item(e);
      case 'response.function_call_arguments.delta':
        if (typeof e.delta === 'string' && e.delta) this.args(this.callFor(e, undefined), e.delta);
        return;
      case 'response.function_call_arguments.done':
        return this.catchUpArgs(this.callFor(e, undefined), e.arguments);
      case 'response.completed':
      case 'response.incomplete':
        return this.completed(e);
      case 'response.failed':
        throw failureToHub(isObject(e.response) ? e.response : {});
      case 'error':
        throw errorEventToHub(e);
      default:
        return;
    }
  }

  protected override finish(): void {
    if (!this.done) {
      throw new UpstreamStreamError('The provider\'s Responses stream ended before "response.completed".');
    }
  }
}

/** The `error` event: the documented top-level code and message, or the nested `error` object the live API sends. */
function errorEventToHub(e: Json): UpstreamStreamError {
  const nested = isObject(e.error) ? e.error : {};
  const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
  return new UpstreamStreamError(
    text(e.message) ?? text(nested.message) ?? 'The provider sent an error event.',
    text(e.code) ?? text(nested.code) ?? 'upstream_error',
  );
}
