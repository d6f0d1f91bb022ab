// A hub stream folded into one response (non-stream clients of stream-only paths, the agents, tests).
import { newId } from './json.ts';
import { ToolCallAssembler } from './tool-calls.ts';
import type { FinishReason, HubAssistantMessage, HubChunk, HubResponse, HubUsage } from './types.ts';

export function foldChunks(chunks: HubChunk[], fallbackModel = ''): HubResponse {
  let content: string | null = null;
  let reasoning: string | undefined;
  const calls = new ToolCallAssembler();
  let finish: FinishReason | null = null;
  let usage: HubUsage | undefined;
  let id = '';
  let created = 0;
  let model = fallbackModel;
  for (const c of chunks) {
    id ||= c.id;
    created ||= c.created;
    model = c.model || model;
    if (c.usage) usage = c.usage;
    for (const ch of c.choices) {
      if (ch.index !== 0) continue;
      const d = ch.delta;
      if (typeof d.content === 'string') content = (content ?? '') + d.content;
      if (d.reasoning_content) reasoning = (reasoning ?? '') + d.reasoning_content;
      for (const tc of d.tool_calls ?? []) calls.add(tc);
      if (ch.finish_reason) finish = ch.finish_reason;
    }
  }
  const message: HubAssistantMessage = { role: 'assistant', content };
  if (calls.size) message.tool_calls = calls.toolCalls(() => newId('call_'));
  if (reasoning) message.reasoning_content = reasoning;
  return {
    id,
    object: 'chat.completion',
    created,
    model,
    choices: [{ index: 0, message, finish_reason: finish }],
    ...(usage ? { usage } : {}),
  };
}

/** One chunk of a stream (choice 0 unless `index` says otherwise). */
export function hubChunk(
  head: { id: string; created: number; model: string },
  delta: HubChunk['choices'][0]['delta'],
  finish: FinishReason | null = null,
  usage?: HubUsage,
  index = 0,
): HubChunk {
  const c: HubChunk = {
    id: head.id,
    object: 'chat.completion.chunk',
    created: head.created,
    model: head.model,
    choices: [{ index, delta, finish_reason: finish }],
  };
  if (usage) c.usage = usage;
  return c;
}
