// The agent loop: model call through the engine's routing → tool calls through the registry → model again, until a
// final answer or config.max_iterations. Each step's events are durable before the next step starts.
import type { Agent, AgentEvent, ResponseFormat, Task, TokenUsage } from '../../shared/orchestrator.ts';
import { foldChunks } from '../proxy/formats/hub/index.ts';
import type {
  HubChunk,
  HubContentPart,
  HubMessage,
  HubRequest,
  HubTool,
  HubToolCall,
} from '../proxy/formats/hub/index.ts';
import type { Engine } from '../proxy/engine.ts';
import { chatInProcess } from '../proxy/in-process.ts';
import { addUsage } from './common.ts';
import { outputCheck, retryPrompt } from './structured-output.ts';
import type { ApprovalPolicy } from '../../shared/config.ts';
import type { Verdict } from './approvals.ts';
import type { McpManager } from './mcp/manager.ts';
import { runCalls, toolSetFor, type LoopState } from './tool-calls.ts';
import type { ToolContext } from './tools/registry.ts';

export const AGENT_APP = 'switchboard-agent';

/**
 * How the loop ended: `turn` is every message of this run (the user's, the model's, the tools'; the final answer
 * last), which a thread keeps. `invalid_output`: the answer did not fit context.response_format, twice (`error` says
 * how).
 */
export type RunOutcome = {
  result: string;
  stop_reason: 'final_answer' | 'max_iterations' | 'invalid_output';
  turn: HubMessage[];
  error?: string;
};

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
  /** The thread's earlier messages, between the system prompt and this run's message. */
  history?: HubMessage[];
  /** MCP servers (the agent's `tools` entries with a dot). */
  mcp?: McpManager;
  /** config.json's orchestrator.approvals, and the way to ask a person (approvals.ts). */
  approvals?: Record<string, ApprovalPolicy>;
  approve?: (
    call: { call_id: string; tool: string; arguments: Record<string, unknown> },
    state: LoopState,
  ) => Promise<Verdict>;
  /** Where to go on from: a task that was waiting for approval when Switchboard stopped. */
  resume?: LoopState;
};

export type ExtraTool = {
  schema: HubTool;
  run: (input: Record<string, unknown>, signal: AbortSignal) => Promise<string>;
};

function userText(task: Task): string {
  const {
    output_format,
    max_length,
    response_format: _format,
    ...rest
  } = task.context as {
    output_format?: string;
    max_length?: number;
    response_format?: unknown;
  };
  const lines = [task.message];
  if (output_format) lines.push(`\nAnswer format: ${output_format}.`);
  if (max_length) lines.push(`Keep the answer under ${max_length} characters.`);
  if (Object.keys(rest).length) lines.push(`\nContext:\n${JSON.stringify(rest, null, 2)}`);
  return lines.join('\n');
}

export async function runAgentLoop(agent: Agent, task: Task, deps: RunDeps): Promise<RunOutcome> {
  const set = await toolSetFor(agent, deps.extraTools ?? {}, deps.mcp, deps.signal);
  const r = deps.resume;
  const messages: HubMessage[] = r ? r.messages : [];
  if (!r && agent.system_prompt) messages.push({ role: 'system', content: agent.system_prompt });
  if (!r) messages.push(...(deps.history ?? []));
  const start = r ? r.start : messages.length;
  const notes = set.notes.length ? `\n\n${set.notes.join('\n')}` : '';
  if (!r) messages.push({ role: 'user', content: userText(task) + notes });
  const format = task.context.response_format as ResponseFormat | undefined;
  const check = outputCheck(format);
  // One more model call, beyond max_iterations, for an answer that does not fit the response_format.
  let limit = r ? r.limit : agent.config.max_iterations;
  const tools = set.schemas;
  let usage: TokenUsage = r ? r.usage : { ...task.usage };
  let last = r ? r.last : '';
  let i = r ? r.iteration : 1;
  const calls = (pending: HubToolCall[], images: HubContentPart[], resumed = false) =>
    runCalls(
      pending,
      set,
      messages,
      { ...deps, agent },
      (rest, imgs) => {
        const state = { messages, start, iteration: i, usage, limit, last, pending: rest, images: imgs };
        return structuredClone(state);
      },
      resumed,
      images,
    );
  if (r) await calls(r.pending, r.images, true);
  for (i = r ? i + 1 : 1; i <= limit; i++) {
    deps.signal.throwIfAborted();
    const { max_tokens, temperature } = agent.config;
    const req: HubRequest = { model: agent.model, messages, max_tokens, temperature };
    if (tools.length) req.tools = tools;
    if (format && format.type !== 'text') req.response_format = format;
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
    const toolCalls = msg?.tool_calls ?? [];
    if (toolCalls.length === 0) {
      const checked = check?.(content);
      if (checked && checked.problems.length) {
        messages.push({ role: 'assistant', content });
        const error = `the answer does not match context.response_format: ${checked.problems.join('; ')}`;
        if (limit > agent.config.max_iterations) {
          return { result: content, stop_reason: 'invalid_output', turn: messages.slice(start), error };
        }
        limit++;
        messages.push({ role: 'user', content: retryPrompt(checked.problems) });
        continue;
      }
      const result = checked ? checked.text : content;
      messages.push({ role: 'assistant', content: result });
      return { result, stop_reason: 'final_answer', turn: messages.slice(start) };
    }
    last = content;
    messages.push({ role: 'assistant', content: content || null, tool_calls: toolCalls });
    await calls(toolCalls, []);
  }
  const stopped = `Stopped after max_iterations (${agent.config.max_iterations}) model calls without a final answer.`;
  const result = `${stopped}${last ? ` Last model text: ${last}` : ''}`;
  await deps.emit({ type: 'output', content: result });
  messages.push({ role: 'assistant', content: result });
  return { result, stop_reason: 'max_iterations', turn: messages.slice(start) };
}
