// The agent loop: model call through the engine's routing → tool calls through the registry → model again, until a
// final answer or config.max_iterations. Each step's events are durable before the next step starts.
import type { Agent, AgentEvent, Task, TokenUsage } from '../../shared/orchestrator.ts';
import { foldChunks, isObject } from '../proxy/formats/hub/index.ts';
import type { HubChunk, HubMessage, HubRequest, HubTool } from '../proxy/formats/hub/index.ts';
import type { Engine } from '../proxy/engine.ts';
import { chatInProcess } from '../proxy/in-process.ts';
import { addUsage } from './common.ts';
import { runTool, TOOLS, type ToolContext } from './tools/registry.ts';

export const AGENT_APP = 'switchboard-agent';

export type RunOutcome = { result: string; stop_reason: 'final_answer' | 'max_iterations' };

export type RunDeps = {
  engine: Engine;
  /** Makes an event durable and publishes it. */
  emit: (e: Pick<AgentEvent, 'type'> & Partial<AgentEvent>) => Promise<void>;
  /** Records progress (iterations, usage) on the task. */
  progress: (iterations: number, usage: TokenUsage) => Promise<void>;
  tool: Omit<ToolContext, 'signal'>;
  signal: AbortSignal;
  /** Tools of this run only, beside the agent's own (a swarm coordinator's `delegate`). */
  extraTools?: Record<string, ExtraTool>;
};

export type ExtraTool = {
  schema: HubTool;
  run: (input: Record<string, unknown>, signal: AbortSignal) => Promise<string>;
};

function userText(task: Task): string {
  const { output_format, max_length, ...rest } = task.context as { output_format?: string; max_length?: number };
  const lines = [task.message];
  if (output_format) lines.push(`\nAnswer format: ${output_format}.`);
  if (max_length) lines.push(`Keep the answer under ${max_length} characters.`);
  if (Object.keys(rest).length) lines.push(`\nContext:\n${JSON.stringify(rest, null, 2)}`);
  return lines.join('\n');
}

function parseArgs(raw: string): Record<string, unknown> {
  try {
    const v = JSON.parse(raw || '{}') as unknown;
    return isObject(v) ? v : { value: v };
  } catch {
    return { raw };
  }
}

export async function runAgentLoop(agent: Agent, task: Task, deps: RunDeps): Promise<RunOutcome> {
  const messages: HubMessage[] = [];
  if (agent.system_prompt) messages.push({ role: 'system', content: agent.system_prompt });
  messages.push({ role: 'user', content: userText(task) });
  const extra = deps.extraTools ?? {};
  const agentTools = agent.tools.map((t) => TOOLS[t]?.schema).filter((t) => t !== undefined);
  const tools = [...agentTools, ...Object.values(extra).map((t) => t.schema)];
  let usage: TokenUsage = { ...task.usage };
  let last = '';
  for (let i = 1; i <= agent.config.max_iterations; i++) {
    deps.signal.throwIfAborted();
    const { max_tokens, temperature } = agent.config;
    const req: HubRequest = { model: agent.model, messages, max_tokens, temperature };
    if (tools.length) req.tools = tools;
    const chunks: HubChunk[] = [];
    // Streamed as it arrives: reasoning → thinking; text → output until the turn shows a tool call, thinking after.
    let toolTurn = false;
    for await (const chunk of chatInProcess(deps.engine, req, { app: AGENT_APP, signal: deps.signal })) {
      chunks.push(chunk);
      const delta = chunk.choices[0]?.delta;
      if (!delta) continue;
      if (delta.reasoning_content) await deps.emit({ type: 'thinking', content: delta.reasoning_content });
      if (delta.tool_calls?.length) toolTurn = true;
      if (delta.content) await deps.emit({ type: toolTurn ? 'thinking' : 'output', content: delta.content });
    }
    const reply = foldChunks(chunks, agent.model);
    if (reply.usage) usage = addUsage(usage, reply.usage);
    await deps.progress(i, usage);
    const msg = reply.choices[0]?.message;
    const content = msg?.content ?? '';
    const calls = msg?.tool_calls ?? [];
    if (calls.length === 0) return { result: content, stop_reason: 'final_answer' };
    last = content;
    messages.push({ role: 'assistant', content: content || null, tool_calls: calls });
    for (const call of calls) {
      const input = parseArgs(call.function.arguments);
      await deps.emit({ type: 'tool_call', tool: call.function.name, input });
      let output: string;
      try {
        const own = extra[call.function.name];
        output = own
          ? await own.run(input, deps.signal)
          : agent.tools.includes(call.function.name)
            ? await runTool(call.function.name, input, { ...deps.tool, signal: deps.signal })
            : `error: tool "${call.function.name}" is not enabled for this agent`;
      } catch (err) {
        if (deps.signal.aborted) throw err;
        output = `error: ${(err as Error).message}`;
      }
      await deps.emit({ type: 'tool_result', tool: call.function.name, output });
      messages.push({ role: 'tool', tool_call_id: call.id, content: output });
    }
  }
  const stopped = `Stopped after max_iterations (${agent.config.max_iterations}) model calls without a final answer.`;
  const result = `${stopped}${last ? ` Last model text: ${last}` : ''}`;
  await deps.emit({ type: 'output', content: result });
  return { result, stop_reason: 'max_iterations' };
}
