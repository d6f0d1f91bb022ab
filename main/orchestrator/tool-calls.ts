// The tools of one run and the calls of one model turn: built-in tools (tools/registry.ts), the run's own tools (a
// swarm coordinator's `delegate`) and MCP tools (mcp/), each call under its approval policy (approval-policy.ts):
// run at once, asked of a person first (approvals.ts), or refused. Results go back to the model as tool messages,
// images as image parts of one user message after the turn's tool results.
import type { ApprovalPolicy } from '../../shared/config.ts';
import type { Agent, AgentEvent, TokenUsage } from '../../shared/orchestrator.ts';
import { isObject } from '../proxy/formats/hub/index.ts';
import type { HubContentPart, HubMessage, HubTool, HubToolCall } from '../proxy/formats/hub/index.ts';
import { policyFor } from './approval-policy.ts';
import type { Verdict } from './approvals.ts';
import type { ExtraTool } from './runner.ts';
import { toolOutput } from './mcp/content.ts';
import type { McpManager } from './mcp/manager.ts';
import { wireName } from './mcp/names.ts';
import { runTool, TOOLS, type ToolContext } from './tools/registry.ts';

/** Where the loop was when a call waited for approval: a restart resumes the task from it. */
export type LoopState = {
  messages: HubMessage[];
  /** Where this run's own messages start in `messages` (before: system prompt, thread history). */
  start: number;
  iteration: number;
  usage: TokenUsage;
  limit: number;
  last: string;
  /** The turn's calls not run yet, the waiting one first. */
  pending: HubToolCall[];
  /** Images of this turn's earlier calls, not given to the model yet. */
  images: HubContentPart[];
};

type Offered =
  | { kind: 'builtin'; name: string }
  | { kind: 'extra'; name: string; tool: ExtraTool }
  | { kind: 'mcp'; name: string; server: string; tool: string; readOnly: boolean; unavailable?: string };

/** The tools a run offers the model, by the name the model calls them, and notes for the model on missing ones. */
export type ToolSet = { byWire: Map<string, Offered>; schemas: HubTool[]; notes: string[] };

const GLOB_CHARS = /[*?[\]{}!()]/;

/**
 * The agent's built-in tools, the run's own, and the MCP tools its allow list names (each server's tools listed now,
 * starting it if needed). A server that cannot be asked still offers the tools its list names exactly (a call then
 * tries again and gives the model the error), and the model is told which servers are missing and why.
 */
export async function toolSetFor(
  agent: Agent,
  extra: Record<string, ExtraTool>,
  mcp: McpManager | undefined,
  signal: AbortSignal,
): Promise<ToolSet> {
  const set: ToolSet = { byWire: new Map(), schemas: [], notes: [] };
  for (const name of agent.tools) {
    const t = TOOLS[name];
    if (!t) continue;
    set.byWire.set(name, { kind: 'builtin', name });
    set.schemas.push(t.schema);
  }
  if (mcp && agent.tools.some((t) => t.includes('.'))) {
    const { tools, unavailable } = await mcp.toolsFor(agent.tools, signal);
    for (const t of tools) {
      const server = t.name.slice(0, t.name.length - t.tool.length - 1);
      set.byWire.set(t.wire_name, { kind: 'mcp', name: t.name, server, tool: t.tool, readOnly: t.read_only });
      const parameters =
        isObject(t.input_schema) && t.input_schema.type === 'object'
          ? t.input_schema
          : { type: 'object', properties: {} };
      const description = [t.title, t.description].filter(Boolean).join(': ') || `${t.name} (MCP)`;
      set.schemas.push({ type: 'function', function: { name: t.wire_name, description, parameters } });
    }
    for (const u of unavailable) {
      set.notes.push(`The MCP server "${u.server}" is unavailable (${u.error}), so its tools may fail or be missing.`);
      for (const entry of u.entries) {
        if (GLOB_CHARS.test(entry)) continue;
        const tool = entry.slice(u.server.length + 1);
        const wire = wireName(u.server, tool);
        if (set.byWire.has(wire)) continue;
        set.byWire.set(wire, {
          kind: 'mcp',
          name: entry,
          server: u.server,
          tool,
          readOnly: false,
          unavailable: u.error,
        });
        const description = `${entry} (MCP; its server is unavailable now: ${u.error})`;
        set.schemas.push({ type: 'function', function: { name: wire, description, parameters: { type: 'object' } } });
      }
    }
  }
  for (const [name, tool] of Object.entries(extra)) {
    set.byWire.set(name, { kind: 'extra', name, tool });
    set.schemas.push(tool.schema);
  }
  return set;
}

export type CallDeps = {
  agent: Agent;
  emit: (e: Pick<AgentEvent, 'type'> & Partial<AgentEvent>) => Promise<void>;
  signal: AbortSignal;
  tool: Omit<ToolContext, 'signal'>;
  mcp?: McpManager;
  /** config.json's orchestrator.approvals. */
  approvals?: Record<string, ApprovalPolicy>;
  /** Asks a person; absent: every call runs as if its policy were auto (deny still refuses). */
  approve?: (
    call: { call_id: string; tool: string; arguments: Record<string, unknown> },
    state: LoopState,
  ) => Promise<Verdict>;
};

/** Why an MCP server still cannot be asked (starting it and listing its tools again), or null once it answers. */
async function stillUnavailable(server: string, deps: CallDeps): Promise<string | null> {
  if (!deps.mcp) return 'MCP tools are not available here';
  try {
    await deps.mcp.refresh(server, deps.signal);
    return null;
  } catch (err) {
    if (deps.signal.aborted) throw err;
    return (err as Error).message;
  }
}

function parseArgs(raw: string): Record<string, unknown> {
  try {
    const v = JSON.parse(raw || '{}') as unknown;
    return isObject(v) ? v : { value: v };
  } catch {
    return { raw };
  }
}

/** What the model is told of a call that did not run, by why. */
function notRun(v: Exclude<Verdict, { approved: true }>): string {
  const why = v.reason ? `: ${v.reason}` : '';
  if (v.status === 'expired')
    return `error: the call was not run: it needed a person's approval, and ${v.reason ?? 'none came in time'}`;
  return `error: a person denied this call${why}. It was not run; do not retry it unless asked to.`;
}

/**
 * Runs a turn's calls in order (`resumed`: the first one was waiting for approval when Switchboard stopped, and its
 * tool_call event is out already). Each result is a tool message; the turn's images follow in one user message.
 */
export async function runCalls(
  calls: HubToolCall[],
  set: ToolSet,
  messages: HubMessage[],
  deps: CallDeps,
  checkpoint: (pending: HubToolCall[], images: HubContentPart[]) => LoopState,
  resumed = false,
  images: HubContentPart[] = [],
): Promise<void> {
  for (const [k, call] of calls.entries()) {
    const offered = set.byWire.get(call.function.name);
    const name = offered?.name ?? call.function.name;
    let input = parseArgs(call.function.arguments);
    if (!(resumed && k === 0)) await deps.emit({ type: 'tool_call', tool: name, input, call_id: call.id });
    let output: string;
    try {
      output = await runOne();
    } catch (err) {
      if (deps.signal.aborted) throw err;
      output = `error: ${(err as Error).message}`;
    }
    await deps.emit({ type: 'tool_result', tool: name, output, call_id: call.id });
    messages.push({ role: 'tool', tool_call_id: call.id, content: output });

    async function runOne(): Promise<string> {
      if (!offered) return `error: tool "${call.function.name}" is not enabled for this agent`;
      if (offered.kind === 'extra') return offered.tool.run(input, deps.signal);
      const builtin = offered.kind === 'builtin';
      const { policy, source } = policyFor(name, deps.agent.approvals, deps.approvals, !builtin && offered.readOnly);
      if (policy === 'deny')
        return `error: the tool "${name}" may not be used (approval policy "deny", from ${source})`;
      let note = '';
      // A server known to be unavailable is asked again before a person is: no one is asked to approve a call that
      // cannot run (issue 35).
      if (offered.kind === 'mcp' && offered.unavailable && policy === 'ask' && deps.approve) {
        const down = await stillUnavailable(offered.server, deps);
        if (down)
          return `error: the MCP server "${offered.server}" is unavailable (${down}); the call was not run, and no approval was asked for it`;
      }
      if (policy === 'ask' && deps.approve) {
        const verdict = await deps.approve(
          { call_id: call.id, tool: name, arguments: input },
          checkpoint(calls.slice(k), images),
        );
        if (!verdict.approved) return notRun(verdict);
        if (verdict.edited) {
          input = verdict.arguments;
          note = `(a person edited the arguments before approving; the call ran with ${JSON.stringify(input)})\n`;
        }
      }
      if (builtin) return note + (await runTool(name, input, { ...deps.tool, signal: deps.signal }));
      if (!deps.mcp) return `error: MCP tools are not available here`;
      const out = toolOutput(await deps.mcp.call(offered.server, offered.tool, input, deps.signal));
      images.push(...out.images);
      return note + out.text;
    }
  }
  if (images.length)
    messages.push({ role: 'user', content: [{ type: 'text', text: 'Images the tools above returned:' }, ...images] });
}
