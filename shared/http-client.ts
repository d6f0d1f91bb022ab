// The HTTP transport of the data client: the admin API (/admin/v1) with the admin token, the agent API (/api/v1)
// with an agent key, SSE for pushed events. fetch only, so the renderer and the desktop shell's IPC handlers share it.
import type { RequestLogEntry } from './admin.ts';
import type { ApiFailure, ApiResult, CreatedAgentKey, SwitchboardApi } from './ipc.ts';
import type { AgentEvent } from './orchestrator.ts';
import { openSse } from './sse.ts';

export type HttpTransportOptions = {
  /** The server's origin, e.g. http://127.0.0.1:11434 ('' for the page's own). */
  base: string;
  token: string;
  /** Where the UI keeps the agent key it made for itself (localStorage in a browser). */
  keyStore: { get(): string | null; set(key: string): void };
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

export function httpTransport(opts: HttpTransportOptions): SwitchboardApi {
  const adminHeaders = () => ({ authorization: `Bearer ${opts.token}` });
  const admin = <T>(method: string, route: string, body?: unknown) =>
    call<T>(`${opts.base}/admin/v1${route}`, {
      method,
      headers: { ...adminHeaders(), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });

  const createAgentKey = (req: { tenant?: string }) => admin<CreatedAgentKey>('POST', '/agent-keys', req);
  /** The UI's own agent key: made once through the admin API (the token holder may make keys anyway). */
  let making: Promise<string | null> | null = null;
  const agentKey = (): Promise<string | null> => {
    const known = opts.keyStore.get();
    if (known) return Promise.resolve(known);
    // One key at a time: concurrent callers (the event stream, the first page load) share it.
    making ??= createAgentKey({}).then((made) => {
      making = null;
      if (!made.ok) return null;
      opts.keyStore.set(made.data.key);
      return made.data.key;
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
    explainRoute: ({ model, app }) =>
      admin('GET', `/route?model=${encodeURIComponent(model)}${app ? `&app=${encodeURIComponent(app)}` : ''}`),
    testProvider: ({ name }) => admin('POST', `/providers/${encodeURIComponent(name)}/test`, {}),
    setPaused: (req) => admin('POST', '/pause', req),
    listAgentKeys: () => admin('GET', '/agent-keys'),
    createAgentKey,
    revokeAgentKey: ({ id }) => admin('DELETE', `/agent-keys/${encodeURIComponent(id)}`),
    checkPort: ({ port }) => admin('GET', `/port-check?port=${encodeURIComponent(String(port))}`),
    listConfigBackups: () => admin('GET', '/config/backups'),
    restoreConfigBackup: ({ id }) => admin('POST', `/config/backups/${encodeURIComponent(id)}/restore`, {}),
    agentApi: async ({ method, path, body }) => {
      let key = await agentKey();
      if (!key)
        return {
          ok: false,
          failure: {
            status: 401,
            error: {
              code: 'unauthorized',
              message: 'The UI could not get an agent API key.',
              action: 'Create one in Settings.',
            },
          },
        };
      const send = (k: string) =>
        call<unknown>(`${opts.base}/api/v1${path}`, {
          method,
          headers: { 'x-api-key': k, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        });
      let r = await send(key);
      if (!r.ok && r.failure.status === 401) {
        // The stored key was revoked: make a new one once.
        opts.keyStore.set('');
        key = await agentKey();
        if (key) r = await send(key);
      }
      return r;
    },
    subscribe(event, listener) {
      if (event === 'log') {
        return openSse(`${opts.base}/admin/v1/logs/stream`, adminHeaders, (m) => {
          if (m.event === 'request') (listener as (e: RequestLogEntry) => void)(JSON.parse(m.data) as RequestLogEntry);
        });
      }
      // The key is read at each (re)connect, so a key made or replaced later is picked up.
      return openSse(
        `${opts.base}/api/v1/events`,
        async () => {
          const key = await agentKey();
          return key ? { 'x-api-key': key } : null;
        },
        (m) => {
          // The server ends the stream of a revoked key with an `error` frame: make a new key on reconnecting.
          if (m.event === 'error') opts.keyStore.set('');
          if (m.event !== 'message') return;
          (listener as (e: AgentEvent) => void)(JSON.parse(m.data) as AgentEvent);
        },
      );
    },
  };
  return api;
}
