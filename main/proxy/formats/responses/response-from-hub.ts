// Client side: a hub response as a Response object (the non-stream reply, the stream's final object) and its items.
import { type FinishReason, type HubResponse, type HubUsage, type Json, newId } from '../hub/index.ts';
import { callItemFromHub, itemPrefix } from './client-calls.ts';
import type { ClientTools } from './client-tools.ts';
import { finishFromHub, RESPONSES_USAGE } from './common.ts';
import type { ItemStatus, OutputItem, ResponseStatus } from './types.ts';

export const outputText = (text: string): Json => ({ type: 'output_text', text, annotations: [], logprobs: [] });

export function messageItem(id: string, text: string, status: ItemStatus): OutputItem {
  return { type: 'message', id, status, role: 'assistant', content: text ? [outputText(text)] : [] };
}

export function reasoningItem(id: string, text: string, status: ItemStatus): OutputItem {
  return { type: 'reasoning', id, status, summary: [], content: [{ type: 'reasoning_text', text }] };
}

/** The Response object; fields the hub does not carry (tools, instructions, sampling) are echoed as defaults. */
export function responseObject(p: {
  id: string;
  createdAt: number;
  model: string;
  status: ResponseStatus;
  output: OutputItem[];
  usage?: HubUsage | null;
  finish?: FinishReason | null;
  error?: { code: string; message: string } | null;
}): Json {
  const reason = p.status === 'incomplete' ? finishFromHub(p.finish) : undefined;
  return {
    id: p.id,
    object: 'response',
    created_at: p.createdAt,
    status: p.status,
    error: p.error ?? null,
    incomplete_details: reason ? { reason } : null,
    instructions: null,
    max_output_tokens: null,
    model: p.model,
    output: p.output,
    parallel_tool_calls: true,
    previous_response_id: null,
    store: false,
    temperature: null,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: [],
    top_p: null,
    usage: p.status !== 'in_progress' && p.usage ? RESPONSES_USAGE.fromHub(p.usage) : null,
    metadata: {},
  };
}

/**
 * Reasoning, text and tool calls as separate output items, in that order; each call as the kind of item the client
 * declared its tool as (`clientTools`, from requestToHub): function_call, custom_tool_call, local_shell_call…
 */
export function responseFromHub(res: HubResponse, model: string, clientTools: ClientTools = {}): Json {
  const choice = res.choices[0];
  const finish = choice?.finish_reason ?? 'stop';
  const incomplete = finishFromHub(finish) !== undefined;
  const itemStatus = incomplete ? 'incomplete' : 'completed';
  const output: OutputItem[] = [];
  const message = choice?.message;
  if (message?.reasoning_content) output.push(reasoningItem(newId('rs_'), message.reasoning_content, itemStatus));
  const text = typeof message?.content === 'string' ? message.content : '';
  if (text) output.push(messageItem(newId('msg_'), text, itemStatus));
  for (const tc of message?.tool_calls ?? []) {
    const { name, arguments: args } = tc.function;
    const tool = clientTools[name];
    const ids = { itemId: newId(itemPrefix(tool)), callId: tc.id || newId('call_') };
    output.push(callItemFromHub(tool, ids, name, args, 'completed'));
  }
  return responseObject({
    id: res.id.startsWith('resp_') ? res.id : newId('resp_'),
    createdAt: res.created,
    model,
    status: incomplete ? 'incomplete' : 'completed',
    output,
    usage: res.usage,
    finish,
  });
}
