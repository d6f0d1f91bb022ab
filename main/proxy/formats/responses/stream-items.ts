// Client side, stream: each output item's events (added, deltas, done) and the item as the final Response shows it.
import { type AssembledCall, type Json, newId } from '../hub/index.ts';
import { callItemFromHub, CustomInputStream, inputFromArguments, itemPrefix } from './client-calls.ts';
import type { ClientTools } from './client-tools.ts';
import { messageItem, outputText, reasoningItem } from './response-from-hub.ts';
import type { ItemStatus, OutputItem } from './types.ts';

/** Writes one SSE event of the stream (the encoder numbers them). */
export type Emit = (type: string, fields: Json) => string;

/** A message or reasoning item: text goes to the current one until another item starts. */
export type TextItem = { kind: 'message' | 'reasoning'; id: string; outputIndex: number; text: string; done: boolean };

/**
 * The state the encoder keeps beside each assembled call (whose `id` is the call id, `itemId` the item's, given when
 * the call is announced), with the client's tools it looks the call's name up in (their kind decides the item's).
 */
export type CallExtra = {
  kind: 'call';
  itemId: string;
  outputIndex: number;
  added: boolean;
  done: boolean;
  tools: ClientTools;
  /** A custom tool's input, read out of the streamed arguments. */
  input?: CustomInputStream;
};

/** A tool call item: announced once its name is known, open until the next item starts or the finish. */
type CallItem = AssembledCall & CallExtra;

export type StreamItem = TextItem | CallItem;

const textAt = (item: TextItem): Json => ({ item_id: item.id, output_index: item.outputIndex, content_index: 0 });

export function textAdded(emit: Emit, item: TextItem): string {
  const at = textAt(item);
  const empty =
    item.kind === 'message'
      ? messageItem(item.id, '', 'in_progress')
      : { type: 'reasoning', id: item.id, status: 'in_progress', summary: [], content: [] };
  const part = item.kind === 'message' ? outputText('') : { type: 'reasoning_text', text: '' };
  return (
    emit('response.output_item.added', { output_index: item.outputIndex, item: empty }) +
    emit('response.content_part.added', { ...at, part })
  );
}

export function textDelta(emit: Emit, item: TextItem, delta: string): string {
  item.text += delta;
  if (item.kind === 'message') return emit('response.output_text.delta', { ...textAt(item), delta, logprobs: [] });
  return emit('response.reasoning_text.delta', { ...textAt(item), delta });
}

/** Closes a text item (once): its text done, its part done, the item done (events numbered in that order). */
export function textDone(emit: Emit, item: TextItem, status: ItemStatus): string {
  if (item.done) return '';
  item.done = true;
  const at = textAt(item);
  const out =
    item.kind === 'message'
      ? emit('response.output_text.done', { ...at, text: item.text, logprobs: [] }) +
        emit('response.content_part.done', { ...at, part: outputText(item.text) })
      : emit('response.reasoning_text.done', { ...at, text: item.text }) +
        emit('response.content_part.done', { ...at, part: { type: 'reasoning_text', text: item.text } });
  return out + emit('response.output_item.done', { output_index: item.outputIndex, item: finalItem(item, status) });
}

const toolOf = (call: CallItem) => call.tools[call.name];

/** The call's item id, given on first use, with the prefix of the item kind its tool makes. */
function itemIdOf(call: CallItem): string {
  return (call.itemId ||= newId(itemPrefix(toolOf(call))));
}

const callAt = (call: CallItem): Json => ({ item_id: itemIdOf(call), output_index: call.outputIndex });

/** Announces a call (once), with the arguments that came before its name. */
export function callAdded(emit: Emit, call: CallItem): string {
  if (call.added) return '';
  call.added = true;
  const tool = toolOf(call);
  if (tool?.kind === 'custom') call.input = new CustomInputStream();
  const item = callItemFromHub(tool, { itemId: itemIdOf(call), callId: call.id }, call.name, '', 'in_progress');
  let out = emit('response.output_item.added', { output_index: call.outputIndex, item });
  if (call.arguments) out += callDelta(emit, call, call.arguments);
  return out;
}

/**
 * Streams a piece of a call's arguments: a function's as function_call_arguments.delta, a custom tool's as the raw
 * input it completes (custom_tool_call_input.delta); other kinds' items are whole only when done.
 */
export function callDelta(emit: Emit, call: CallItem, delta: string): string {
  const kind = toolOf(call)?.kind ?? 'function';
  if (kind === 'function') return emit('response.function_call_arguments.delta', { ...callAt(call), delta });
  const input = call.input?.push(delta);
  return input ? emit('response.custom_tool_call_input.delta', { ...callAt(call), delta: input }) : '';
}

/** Closes a call (once), announcing it first if its name never came. */
export function callDone(emit: Emit, call: CallItem): string {
  if (call.done) return '';
  let out = callAdded(emit, call);
  call.done = true;
  const tool = toolOf(call);
  const kind = tool?.kind ?? 'function';
  if (kind === 'function') {
    const name = tool?.name ?? call.name;
    out += emit('response.function_call_arguments.done', { ...callAt(call), name, arguments: call.arguments });
  } else if (kind === 'custom') {
    const input = inputFromArguments(call.arguments);
    const sent = call.input?.sent ?? '';
    // What the streamed deltas did not carry (arguments of another shape, or a cut escape) goes out before done.
    if (input.length > sent.length && input.startsWith(sent)) {
      out += emit('response.custom_tool_call_input.delta', { ...callAt(call), delta: input.slice(sent.length) });
    }
    out += emit('response.custom_tool_call_input.done', { ...callAt(call), input });
  }
  const item = finalItem(call, 'completed');
  return out + emit('response.output_item.done', { output_index: call.outputIndex, item });
}

/**
 * The item as the final Response shows it. A call is completed once it was closed (its arguments are all there); a
 * call still open when the stream failed is incomplete: its arguments may be cut, and no client may run it.
 */
export function finalItem(item: StreamItem, status: ItemStatus): OutputItem {
  if (item.kind === 'call') {
    const ids = { itemId: itemIdOf(item), callId: item.id };
    return callItemFromHub(toolOf(item), ids, item.name, item.arguments, item.done ? 'completed' : 'incomplete');
  }
  return item.kind === 'message' ? messageItem(item.id, item.text, status) : reasoningItem(item.id, item.text, status);
}
