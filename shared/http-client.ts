// The HTTP transport of the data client: the admin API (/admin/v1) with the admin token, the agent API (/api/v1)
// with an agent key, SSE for pushed events. fetch only, so the renderer and the desktop shell's IPC handlers share it.
import type { RequestLogEntry } from './admin.ts';
import type { ApiFailure, ApiResult, CreatedAgentKey, SwitchboardApi } from './ipc.ts';
import { EVENT_TYPES, type AgentEvent } from './orchestrator.ts';
import type { Notification } from './usage.ts';
import { openSse } from './sse.ts';

export type HttpTransportOptions = {
  /**
   * The server's origin, e.g. http://127.0.0.1:11434 ('' for the page's own); a function is read at each call and
   * each stream (re)connect, so a client follows a server that moved to another port (the desktop shell's).
   */
  base: string | (() => string);
  token: string | (() => string);
  /**
   * Where the client caches the UI's agent key (default: in memory). The key itself is the server's one UI key
   * (`POST /admin/v1/agent-keys/ui`), handed back to every page load and launch, never a new key each time.
   */
  keyStore?: { get(): string | null; set(key: string): void };
};

async function call<T>(url: string, init: RequestInit): Promise<ApiResult<T>> {
  let res: Response;
  try {
    res = await fetch(url, init);
  } catch (err) {
    return {
      ok: false,
      failure: {
        status: 0,
        error: {
          code: 'unreachable',
          message: `Switchboard did not answer (${(err as Error).message}).`,
          action: 'Check that Switchboard is running.',
        },
      },
    };
  }
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  if (res.ok) return { ok: true, data: body as T };
  const error = (body as { error?: ApiFailure['error'] } | null)?.error;
  return {
    ok: false,
    failure: {
      status: res.status,
      error:
        error && typeof error === 'object' ? error : { code: `http_${res.status}`, message: text || res.statusText },
    },
  };
}

/** What the browser answers for a call only the desktop app serves (its own settings, kept by the shell). */
function desktopOnly(): { ok: false; failure: ApiFailure } {
  return {
    ok: false,
    failure: {
      status: 501,
      error: {
        code: 'desktop_only',
        message: 'This setting belongs to the desktop app.',
        action: 'Open Switchboard from its tray icon to change it.',
      },
    },
  };
}

export function httpTransport(opts: HttpTransportOptions): SwitchboardApi {
  const { base: b, token: t } = opts;
  const base = typeof b === 'function' ? b : () => b;
  const token = typeof t === 'function' ? t : () => t;
  const adminHeaders = () => ({ authorization: `Bearer ${token()}` });
  const admin = <T>(method: string, route: string, body?: unknown) =>
    call<T>(`${base()}/admin/v1${route}`, {
      method,
      headers: { ...adminHeaders(), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });

  const createAgentKey = (req: { tenant?: string; label?: string }) =>
    admin<CreatedAgentKey>('POST', '/agent-keys', req);
  const keyStore =
    opts.keyStore ??
    (() => {
      let key: string | null = null;
      return { get: () => key, set: (k: string) => void (key = k || null) };
    })();
  /** The UI's own agent key, labelled "Switchboard UI": the server makes it once and hands it back to token holders. */
  let making: Promise<string | null> | null = null;
  /** Why the last attempt to get the UI key failed (said by agentApi instead of a guess). */
  let keyFailure: ApiFailure | null = null;
  const agentKey = (): Promise<string | null> => {
    const known = keyStore.get();
    if (known) return Promise.resolve(known);
    // One request at a time: concurrent callers (the event stream, the first page load) share it.
    making ??= admin<CreatedAgentKey>('POST', '/agent-keys/ui', {}).then((got) => {
      making = null;
      keyFailure = got.ok ? null : got.failure;
      if (!got.ok) return null;
      keyStore.set(got.data.key);
      return got.data.key;
    });
    return making;
  };

  const api: SwitchboardApi = {
    getAppInfo: async () => {
      const s = await admin<{ version: string }>('GET', '/status');
      return { ok: true, data: { shell: 'web', version: s.ok ? s.data.version : 'unknown', port_conflict: null } };
    },
    getStatus: () => admin('GET', '/status'),
    getConfig: () => admin('GET', '/config'),
    saveConfig: (config) => admin('PUT', '/config', config),
    recentLogs: ({ limit }) => admin('GET', `/logs?limit=${limit}`),
    explainRoute: ({ model, app, config }) =>
      config !== undefined
        ? admin('POST', '/route', { model, app, config })
        : admin('GET', `/route?model=${encodeURIComponent(model)}${app ? `&app=${encodeURIComponent(app)}` : ''}`),
    testProvider: ({ name }) => admin('POST', `/providers/${encodeURIComponent(name)}/test`, {}),
    detectProviders: () => admin('GET', '/providers/detect'),
    setPaused: (req) => admin('POST', '/pause', req),
    listAgentKeys: () => admin('GET', '/agent-keys'),
    createAgentKey,
    revokeAgentKey: ({ id }) => admin('DELETE', `/agent-keys/${encodeURIComponent(id)}`),
    checkPort: ({ port }) => admin('GET', `/port-check?port=${encodeURIComponent(String(port))}`),
    listConfigBackups: () => admin('GET', '/config/backups'),
    getConfigBackup: ({ id }) => admin('GET', `/config/backups/${encodeURIComponent(id)}`),
    restoreConfigBackup: ({ id }) => admin('POST', `/config/backups/${encodeURIComponent(id)}/restore`, {}),
    getConnect: () => admin('GET', '/connect'),
    connectTool: ({ tool, force }) =>
      admin('POST', `/connect/${encodeURIComponent(tool)}`, force === undefined ? {} : { force }),
    undoConnect: ({ tool, force }) =>
      admin('POST', `/connect/${encodeURIComponent(tool)}/undo`, force === undefined ? {} : { force }),
    tryMessage: (req) => admin('POST', '/try', req),
    getUsage: ({ range }) => admin('GET', `/usage?range=${encodeURIComponent(range)}`),
    usageRequests: ({ limit, before }) => {
      const q = new URLSearchParams();
      if (limit !== undefined) q.set('limit', String(limit));
      if (before !== undefined) q.set('before', before);
      const qs = q.toString();
      return admin('GET', `/usage/requests${qs ? `?${qs}` : ''}`);
    },
    getLogBody: ({ id }) => admin('GET', `/logs/${encodeURIComponent(id)}/body`),
    replay: (req) => admin('POST', '/replay', req),
    getAttribution: (q) => {
      const qs = new URLSearchParams(
        Object.entries(q).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1] !== ''),
      ).toString();
      return admin('GET', `/usage/attribution${qs ? `?${qs}` : ''}`);
    },
    getMcp: () => admin('GET', '/mcp'),
    refreshMcp: ({ name }) => admin('POST', `/mcp/${encodeURIComponent(name)}/refresh`, {}),
    setMcpEnabled: ({ name, enabled }) =>
      admin('POST', `/mcp/${encodeURIComponent(name)}/${enabled ? 'enable' : 'disable'}`, {}),
    importMcp: (req) => admin('POST', '/mcp/import', req),
    getDesktopSettings: async () => desktopOnly(),
    setAutoUpdate: async () => desktopOnly(),
    listModels: () => call(`${base()}/v1/models`, { method: 'GET' }),
    agentApi: async ({ method, path, body }) => {
      let key = await agentKey();
      if (!key)
        return {
          ok: false,
          failure: keyFailure ?? {
            status: 401,
            error: { code: 'unauthorized', message: 'The UI could not get its agent API key.' },
          },
        };
      const send = (k: string) =>
        call<unknown>(`${base()}/api/v1${path}`, {
          method,
          headers: { 'x-api-key': k, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        });
      let r = await send(key);
      if (!r.ok && r.failure.status === 401) {
        // The UI key was revoked: ask for it again once (the server replaces a revoked UI key).
        keyStore.set('');
        key = await agentKey();
        if (key) r = await send(key);
      }
      return r;
    },
    subscribe(event, listener) {
      if (event === 'log') {
        return openSse(
          () => `${base()}/admin/v1/logs/stream`,
          adminHeaders,
          (m) => {
            if (m.event === 'request')
              (listener as (e: RequestLogEntry) => void)(JSON.parse(m.data) as RequestLogEntry);
          },
        );
      }
      if (event === 'notification') {
        return openSse(
          () => `${base()}/admin/v1/events`,
          adminHeaders,
          (m) => {
            if (m.event === 'notification') (listener as (e: Notification) => void)(JSON.parse(m.data) as Notification);
          },
        );
      }
      // The key is read at each (re)connect, so a key made or replaced later is picked up.
      return openSse(
        () => `${base()}/api/v1/events`,
        async () => {
          const key = await agentKey();
          return key ? { 'x-api-key': key } : null;
        },
        (m) => {
          // The server ends the stream of a revoked key with an `error` frame: ask for the UI key on reconnecting.
          if (m.event === 'error') return void keyStore.set('');
          // Every event frame is named after its type (`event: output`...); the UI follows tasks' events, so the
          // run-level events of workflows and swarms (run_started, step_completed...) are left out here.
          if (!(EVENT_TYPES as readonly string[]).includes(m.event)) return;
          (listener as (e: AgentEvent) => void)(JSON.parse(m.data) as AgentEvent);
        },
      );
    },
  };
  return api;
}
