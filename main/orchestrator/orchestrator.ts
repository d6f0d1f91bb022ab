// The orchestrator: one store, the agent and task services, workflows and swarms on the task service; start and close.
import type { McpServerConfig } from '../../shared/config.ts';
import type { WalLog } from '../wal/index.ts';
import { AgentService } from './agents.ts';
import type { TaskDeps } from './executor.ts';
import type { ProtectedEnv } from './mcp/env.ts';
import { McpManager } from './mcp/manager.ts';
import type { DispatchQueue } from './queue.ts';
import { OrchestratorStore } from './store.ts';
import { SwarmService } from './swarms.ts';
import { TaskService } from './tasks.ts';
import { WorkflowService } from './workflows.ts';

export type OrchestratorDeps = TaskDeps & {
  wal: WalLog;
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
    this.store = new OrchestratorStore(deps.wal, () => deps.config().event_retention);
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

  /** Rebuilds state from snapshot + WAL; tasks that were running are marked failed, queued ones are queued again. */
  async start(): Promise<void> {
    await this.store.load();
    await this.tasks.recover();
    await this.workflows.resume();
    await this.swarms.resume();
  }

  configure(): void {
    this.tasks.configure();
    void this.mcp.configure();
  }

  async close(): Promise<void> {
    this.store.endSubscriptions();
    await this.tasks.close();
    await this.mcp.close();
  }
}
