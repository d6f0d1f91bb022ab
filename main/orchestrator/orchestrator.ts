// The orchestrator: one store (embedded WAL, or Redis for a team), the agent and task services, workflows and swarms
// on the task service; start and close.
import type { McpServerConfig } from '../../shared/config.ts';
import type { WalLog } from '../wal/index.ts';
import { AgentService } from './agents.ts';
import type { TaskDeps } from './executor.ts';
import type { ProtectedEnv } from './mcp/env.ts';
import { McpManager } from './mcp/manager.ts';
import type { DispatchQueue } from './queue.ts';
import { EmbeddedStore } from './store/embedded.ts';
import { retentionRuleOf } from './store/retention.ts';
import type { OrchestratorStore } from './store/types.ts';
import { SwarmService } from './swarms.ts';
import { TaskService } from './tasks.ts';
import { WorkflowService } from './workflows.ts';

export type OrchestratorDeps = TaskDeps & {
  /** The store: given (Redis mode, tests), or the embedded one on `wal`. */
  store?: OrchestratorStore;
  wal?: WalLog;
  /** config.json's mcp_servers, read at each use (absent: none). */
  mcpServers?: () => Record<string, McpServerConfig>;
  /** Switchboard's version, sent to MCP servers. */
  version?: string;
  /** What of Switchboard's environment no MCP server may get (mcp/env.ts). */
  mcpProtectedEnv?: () => ProtectedEnv;
};

export class Orchestrator {
  readonly store: OrchestratorStore;
  readonly agents: AgentService;
  readonly tasks: TaskService;
  readonly workflows: WorkflowService;
  readonly swarms: SwarmService;
  /** The MCP servers agents' tools come from (mcp/). */
  readonly mcp: McpManager;

  constructor(deps: OrchestratorDeps) {
    this.mcp = new McpManager({
      servers: deps.mcpServers ?? (() => ({})),
      version: deps.version ?? '0.0.0',
      ...(deps.mcpProtectedEnv ? { protectedEnv: deps.mcpProtectedEnv } : {}),
    });
    if (deps.store) this.store = deps.store;
    else if (deps.wal)
      this.store = new EmbeddedStore(
        deps.wal,
        () => deps.config().event_retention,
        () => retentionRuleOf(deps.config()),
      );
    else throw new Error('Orchestrator: give a store or a WAL');
    // Deleting an agent asks the task service whether it is busy; the task service looks agents up here.
    this.agents = new AgentService(this.store, {
      activeTaskOf: (id) => this.tasks.activeTaskOf(id),
      isSubmitting: (id) => this.tasks.isSubmitting(id),
    });
    this.tasks = new TaskService({ ...deps, mcp: this.mcp }, this.store, this.agents);
    this.workflows = new WorkflowService(this.tasks);
    this.swarms = new SwarmService(this.tasks);
  }

  get queue(): DispatchQueue<string> {
    return this.tasks.queue;
  }

  /**
   * Loads the state, then hands out the work left unfinished (the spec's rule: a task that was running is failed,
   * interrupted, unless it waited for an approval; queued tasks are queued again; workflow runs go on at their step;
   * swarm tasks fail) and starts taking new work.
   */
  async start(): Promise<void> {
    await this.store.load();
    await this.store.startWork();
  }

  configure(): void {
    this.tasks.configure();
    void this.mcp.configure();
  }

  async close(): Promise<void> {
    this.store.endSubscriptions();
    await this.tasks.close();
    await this.mcp.close();
    await this.store.close();
  }
}
