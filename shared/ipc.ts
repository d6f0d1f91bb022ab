// The desktop contract: every call the UI makes (channel → request → response) and every push event, shared by
// the Electron main process (handlers), the preload (domain methods) and the renderer (its one data client).
import type { ConfigProblem } from './config.ts';
import type {
  ConfigBackupInfo,
  ConfigBackupList,
  ConfigRestoreResult,
  RequestLogEntry,
  RouteExplanation,
  StatusResponse,
} from './admin.ts';
import type { AgentEvent } from './orchestrator.ts';

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
};
export type ProviderTestResult = {
  provider: string;
  ok: boolean;
  latency_ms: number;
  models: number;
  error: string | null;
};
export type AgentKeyInfo = { id: string; tenant: string; created_at: string };
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
export type AppInfo = { shell: 'electron' | 'web'; version: string; port_conflict: PortConflictInfo | null };

export interface IpcContract {
  getAppInfo: { req: void; res: AppInfo };
  getStatus: { req: void; res: StatusResponse };
  getConfig: { req: void; res: ConfigDocument };
  saveConfig: { req: unknown; res: ConfigDocument };
  recentLogs: { req: { limit: number }; res: { data: RequestLogEntry[] } };
  explainRoute: { req: { model: string; app: string | null }; res: RouteExplanation };
  testProvider: { req: { name: string }; res: ProviderTestResult };
  setPaused: { req: { paused: boolean }; res: { paused: boolean } };
  listAgentKeys: { req: void; res: { data: AgentKeyInfo[] } };
  createAgentKey: { req: { tenant?: string }; res: CreatedAgentKey };
  revokeAgentKey: { req: { id: string }; res: { id: string; revoked: boolean } };
  agentApi: { req: AgentApiRequest; res: unknown };
  checkPort: { req: { port: number }; res: PortCheck };
  listConfigBackups: { req: void; res: ConfigBackupList };
  restoreConfigBackup: { req: { id: string }; res: ConfigRestoreResult };
}
export type IpcChannel = keyof IpcContract;

/** Push events from main to the renderer. */
export interface IpcEvents {
  log: RequestLogEntry;
  agentEvent: AgentEvent;
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
  setPaused: 'sb:setPaused',
  listAgentKeys: 'sb:listAgentKeys',
  createAgentKey: 'sb:createAgentKey',
  revokeAgentKey: 'sb:revokeAgentKey',
  agentApi: 'sb:agentApi',
  checkPort: 'sb:checkPort',
  listConfigBackups: 'sb:listConfigBackups',
  restoreConfigBackup: 'sb:restoreConfigBackup',
} as const satisfies Record<IpcChannel, string>;
export const IPC_EVENTS = { log: 'sb:event:log', agentEvent: 'sb:event:agentEvent' } as const satisfies Record<
  keyof IpcEvents,
  string
>;

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
