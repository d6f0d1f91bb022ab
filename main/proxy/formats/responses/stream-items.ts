// Client side, stream: each output item's events (added, deltas, done) and the item as the final Response shows it.
import type { AssembledCall, Json } from '../hub/index.ts';
import { functionCallItem, messageItem, outputText, reasoningItem } from './response-from-hub.ts';
import type { ItemStatus, OutputItem } from './types.ts';

/** Writes one SSE event of the stream (the encoder numbers them). */
export type Emit = (type: string, fields: Json) => string;

/** A message or reasoning item: text goes to the current one until another item starts. */
export type TextItem = { kind: 'message' | 'reasoning'; id: string; outputIndex: number; text: string; done: boolean };

/** The state the encoder keeps beside each assembled call (whose `id` is the call id, `itemId` the item's). */
export type CallExtra = { kind: 'call'; itemId: string; outputIndex: number; added: boolean; done: boolean };

/** A function call item: announced once its name is known, open until the finish. */
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

/** Announces a call (once), with the arguments that came before its name. */
export function callAdded(emit: Emit, call: CallItem): string {
  if (call.added) return '';
  call.added = true;
  const item = functionCallItem(call.itemId, call.id, call.name, '', 'in_progress');
  let out = emit('response.output_item.added', { output_index: call.outputIndex, item });
  if (call.arguments) out += callDelta(emit, call, call.arguments);
  return out;
}

export function callDelta(emit: Emit, call: CallItem, delta: string): string {
  const at = { item_id: call.itemId, output_index: call.outputIndex };
  return emit('response.function_call_arguments.delta', { ...at, delta });
}

/** Closes a call (once), announcing it first if its name never came. */
export function callDone(emit: Emit, call: CallItem): string {
  if (call.done) return '';
  let out = callAdded(emit, call);
  call.done = true;
  const at = { item_id: call.itemId, output_index: call.outputIndex };
  out += emit('response.function_call_arguments.done', { ...at, name: call.name, arguments: call.arguments });
  const item = finalItem(call, 'completed');
  return out + emit('response.output_item.done', { output_index: call.outputIndex, item });
}

/** The item as the final Response shows it (calls are always completed: their arguments are all there). */
export function finalItem(item: StreamItem, status: ItemStatus): OutputItem {
  if (item.kind === 'call') return functionCallItem(item.itemId, item.id, item.name, item.arguments, 'completed');
  return item.kind === 'message' ? messageItem(item.id, item.text, status) : reasoningItem(item.id, item.text, status);
}
