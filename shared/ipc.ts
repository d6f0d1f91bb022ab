// The desktop contract: every call the UI makes (channel → request → response) and every push event, shared by
// the Electron main process (handlers), the preload (domain methods) and the renderer (its one data client).
import type { ConfigProblem } from './config.ts';
import type {
  ConfigBackupDocument,
  ConfigBackupInfo,
  ConfigBackupList,
  ConfigRestoreResult,
  ListenChange,
  RequestLogEntry,
  RouteExplanation,
  StatusResponse,
} from './admin.ts';
import type { AgentEvent } from './orchestrator.ts';
import type { ConnectOverview, ConnectResult, ConnectToolId, TryRequest, TryResult } from './connect.ts';
import type { Notification, UsageRange, UsageRequests, UsageSummary } from './usage.ts';
import type { AttributionQuery, AttributionResponse, LogBody, ReplayRequest, ReplayResponse } from './insight.ts';
import type { McpImportRequest, McpImportResult, McpOverview, McpServerState } from './mcp.ts';
import type { DesktopSettings, SetAutoUpdateRequest } from './desktop.ts';
import type { DetectResult } from './presets.ts';

/** An error as the server said it: status plus the error body. */
export type ApiFailure = {
  status: number;
  error: { code: string; message: string; type?: string; action?: string; details?: unknown };
};
/** Every call answers a result, never throws across the process boundary (Electron would drop the fields). */
export type ApiResult<T> = { ok: true; data: T } | { ok: false; failure: ApiFailure };

export type ConfigDocument = {
  path: string;
  config: unknown;
  error: ConfigProblem[] | null;
  /** After a save: the backup of the config it replaced (null when nothing changed). */
  backup?: ConfigBackupInfo | null;
  /** After a save that left no providers where there were some: how to get them back. */
  warning?: string;
  /** After a save: what the saved config does that is likely not meant (a rule naming a disabled provider). */
  warnings?: ConfigProblem[];
  /** After a save that changed listen_port: whether Switchboard moved to it now, and where the UI is. */
  listen?: ListenChange;
  /** After a save on an instance of a team (the Redis store): it changed this instance's config.json only. */
  team_note?: string;
};
export type ProviderTestResult = {
  provider: string;
  ok: boolean;
  latency_ms: number;
  models: number;
  error: string | null;
};
/** `label`: what the key is for (null when made without one); `ui`: the UI's own key ("Switchboard UI"). */
export type AgentKeyInfo = { id: string; tenant: string; label: string | null; ui: boolean; created_at: string };
/** The server's own model list (`GET /v1/models`, OpenAI's shape), for the UI's model pickers. */
export type ModelList = { object: 'list'; data: { id: string; owned_by?: string }[] };
export type CreatedAgentKey = AgentKeyInfo & { key: string };
/** A call to the agent API (/api/v1), sent with the UI's agent key. */
export type AgentApiRequest = { method: 'GET' | 'POST' | 'PUT' | 'DELETE'; path: string; body?: unknown };

/** What the window shows when listen_port was taken at start (the desktop shell fills it in). */
export type PortConflictInfo = {
  port: number;
  holder: string;
  message: string;
  /** A port near it that was free when the conflict was found; null when none near was free. */
  suggested_port: number | null;
  config_path: string;
  ollama: boolean;
};
/** Settings' listen_port check (`GET /admin/v1/port-check?port=`): `free` false names the holder and the fix. */
export type PortCheck = {
  port: number;
  host: string;
  free: boolean;
  current: boolean;
  holder: unknown;
  message: string | null;
};
/** What the desktop window shows when config.json could not be read at start: its problems in words, and where. */
export type ConfigProblemsInfo = {
  config_path: string;
  /** One line per problem, e.g. `listen_port (found "eleven") must be a number`. */
  problems: string[];
  message: string;
};
export type AppInfo = {
  shell: 'electron' | 'web';
  version: string;
  port_conflict: PortConflictInfo | null;
  /** The desktop app could not start the engine: config.json is invalid (null in the browser and once it starts). */
  config_problems?: ConfigProblemsInfo | null;
};

export interface IpcContract {
  getAppInfo: { req: void; res: AppInfo };
  getStatus: { req: void; res: StatusResponse };
  getConfig: { req: void; res: ConfigDocument };
  saveConfig: { req: unknown; res: ConfigDocument };
  recentLogs: { req: { limit: number }; res: { data: RequestLogEntry[] } };
  /** With `config`: the route that config (not saved) would give, e.g. the Routing page's edits. */
  explainRoute: { req: { model: string; app: string | null; config?: unknown }; res: RouteExplanation };
  testProvider: { req: { name: string }; res: ProviderTestResult };
  /** Local inference services running now (Ollama, LM Studio, llama.cpp, vLLM): the presets' detection. */
  detectProviders: { req: void; res: DetectResult };
  setPaused: { req: { paused: boolean }; res: { paused: boolean } };
  listAgentKeys: { req: void; res: { data: AgentKeyInfo[] } };
  createAgentKey: { req: { tenant?: string; label?: string }; res: CreatedAgentKey };
  revokeAgentKey: { req: { id: string }; res: { id: string; revoked: boolean } };
  agentApi: { req: AgentApiRequest; res: unknown };
  listModels: { req: void; res: ModelList };
  checkPort: { req: { port: number }; res: PortCheck };
  listConfigBackups: { req: void; res: ConfigBackupList };
  /** One backup with the config it holds, keys masked (GET /admin/v1/config/backups/:id): Settings' compare. */
  getConfigBackup: { req: { id: string }; res: ConfigBackupDocument };
  restoreConfigBackup: { req: { id: string }; res: ConfigRestoreResult };
  getConnect: { req: void; res: ConnectOverview };
  /** `force`: replace a setting that points elsewhere (after the user confirmed). */
  connectTool: { req: { tool: ConnectToolId; force?: boolean }; res: ConnectResult };
  /** `force`: undo even though the tool's file changed since Connect wrote it (after the user confirmed). */
  undoConnect: { req: { tool: ConnectToolId; force?: boolean }; res: ConnectResult };
  tryMessage: { req: TryRequest; res: TryResult };
  getUsage: { req: { range: UsageRange }; res: UsageSummary };
  usageRequests: { req: { limit?: number; before?: string }; res: UsageRequests };
  /** Request capture, replay and attribution (issue 38): GET /admin/v1/logs/:id/body, POST /admin/v1/replay, GET /admin/v1/usage/attribution. */
  getLogBody: { req: { id: string }; res: LogBody };
  replay: { req: ReplayRequest; res: ReplayResponse };
  getAttribution: { req: AttributionQuery; res: AttributionResponse };
  /** MCP servers (GET /admin/v1/mcp), a refresh of one (start it, list its tools), an import of other tools' servers. */
  getMcp: { req: void; res: McpOverview };
  refreshMcp: { req: { name: string }; res: McpServerState };
  setMcpEnabled: { req: { name: string; enabled: boolean }; res: McpServerState };
  importMcp: { req: McpImportRequest; res: McpImportResult };
  /** The desktop app's own settings (auto-update, the login item's state); the browser answers 501 desktop_only. */
  getDesktopSettings: { req: void; res: DesktopSettings };
  /** Settings' auto-update switch, kept in the desktop app's own store (electron-store), applied at once. */
  setAutoUpdate: { req: SetAutoUpdateRequest; res: DesktopSettings };
}
export type IpcChannel = keyof IpcContract;

/** Push events from main to the renderer. */
export interface IpcEvents {
  log: RequestLogEntry;
  agentEvent: AgentEvent;
  /** A notice of the usage engine (provider down/up, failover, budgets): `event: notification` on /admin/v1/events. */
  notification: Notification;
}

/** The wire names; `satisfies` makes a missing or extra channel a compile error. */
export const IPC_CHANNELS = {
  getAppInfo: 'sb:getAppInfo',
  getStatus: 'sb:getStatus',
  getConfig: 'sb:getConfig',
  saveConfig: 'sb:saveConfig',
  recentLogs: 'sb:recentLogs',
  explainRoute: 'sb:explainRoute',
  testProvider: 'sb:testProvider',
  detectProviders: 'sb:detectProviders',
  setPaused: 'sb:setPaused',
  listAgentKeys: 'sb:listAgentKeys',
  createAgentKey: 'sb:createAgentKey',
  revokeAgentKey: 'sb:revokeAgentKey',
  agentApi: 'sb:agentApi',
  listModels: 'sb:listModels',
  checkPort: 'sb:checkPort',
  listConfigBackups: 'sb:listConfigBackups',
  getConfigBackup: 'sb:getConfigBackup',
  restoreConfigBackup: 'sb:restoreConfigBackup',
  getConnect: 'sb:getConnect',
  connectTool: 'sb:connectTool',
  undoConnect: 'sb:undoConnect',
  tryMessage: 'sb:tryMessage',
  getUsage: 'sb:getUsage',
  usageRequests: 'sb:usageRequests',
  getLogBody: 'sb:getLogBody',
  replay: 'sb:replay',
  getAttribution: 'sb:getAttribution',
  getMcp: 'sb:getMcp',
  refreshMcp: 'sb:refreshMcp',
  setMcpEnabled: 'sb:setMcpEnabled',
  importMcp: 'sb:importMcp',
  getDesktopSettings: 'sb:getDesktopSettings',
  setAutoUpdate: 'sb:setAutoUpdate',
} as const satisfies Record<IpcChannel, string>;
export const IPC_EVENTS = {
  log: 'sb:event:log',
  agentEvent: 'sb:event:agentEvent',
  notification: 'sb:event:notification',
} as const satisfies Record<keyof IpcEvents, string>;

/** Main's side: one handler per channel. A channel without a handler does not compile. */
export type IpcHandlers = {
  [K in IpcChannel]: (req: IpcContract[K]['req']) => Promise<ApiResult<IpcContract[K]['res']>>;
};

/**
 * The renderer's data client: the same domain methods over either transport (the preload bridge or HTTP + SSE).
 * `subscribe` returns an unsubscribe function.
 */
export type SwitchboardApi = {
  [K in IpcChannel]: IpcContract[K]['req'] extends void
    ? () => Promise<ApiResult<IpcContract[K]['res']>>
    : (req: IpcContract[K]['req']) => Promise<ApiResult<IpcContract[K]['res']>>;
} & {
  subscribe<E extends keyof IpcEvents>(event: E, listener: (payload: IpcEvents[E]) => void): () => void;
};

/** The name the preload exposes the bridge under (`window.switchboard`). */
export const BRIDGE_KEY = 'switchboard';
