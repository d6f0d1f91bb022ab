// The admin API (/admin/v1): status, config read/write with masked keys, request logs (JSON and SSE), route explain.
import type { HttpBindings } from '@hono/node-server';
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { RouteExplanation, StatusResponse } from '../../shared/admin.ts';
import { isMaskedKey, maskKey } from '../../shared/config.ts';
import { ConfigError, type ConfigStore } from '../config/store.ts';
import { gatewayFor } from '../gateway/gateway.ts';
import type { Engine } from '../proxy/engine.ts';
import { ApiError } from '../errors.ts';
import { VERSION } from '../version.ts';
import { performance } from 'node:perf_hooks';
import { fetchModels } from '../proxy/models.ts';
import { createKey, keysFile, readKeys, revokeKey } from '../orchestrator/keys.ts';
import net from 'node:net';
import { identifyPortHolder, portConflictMessage } from './port-conflict.ts';

type ProviderLike = { name?: unknown; api_key?: unknown };

function maskConfig(raw: unknown): unknown {
  if (!raw || typeof raw !== 'object') return raw;
  const copy = structuredClone(raw) as { providers?: ProviderLike[] };
  for (const p of copy.providers ?? []) {
    if (p && typeof p.api_key === 'string') p.api_key = maskKey(p.api_key);
  }
  return copy;
}

/** A key sent back in its masked form means "keep the key this provider has". */
function unmaskKeys(input: unknown, current: unknown): unknown {
  if (!input || typeof input !== 'object') return input;
  const known = new Map<string, string>();
  for (const p of (current as { providers?: ProviderLike[] })?.providers ?? []) {
    if (typeof p?.name === 'string' && typeof p.api_key === 'string') known.set(p.name, p.api_key);
  }
  const copy = structuredClone(input) as { providers?: ProviderLike[] };
  for (const p of Array.isArray(copy.providers) ? copy.providers : []) {
    if (!p || typeof p.api_key !== 'string' || !isMaskedKey(p.api_key)) continue;
    const old = typeof p.name === 'string' ? known.get(p.name) : undefined;
    if (old !== undefined && maskKey(old) === p.api_key) p.api_key = old;
    else {
      throw new ApiError(
        'config_invalid',
        `providers "${String(p.name)}": api_key is a masked key that matches no stored key.`,
        'Send the full key, or send back exactly the masked value you read to keep the stored one.',
      );
    }
  }
  return copy;
}

export function adminRoutes(
  engine: () => Engine,
  store: ConfigStore,
  listenPort: () => number,
): Hono<{ Bindings: HttpBindings }> {
  const admin = new Hono<{ Bindings: HttpBindings }>();

  admin.get('/status', async (c) => {
    const e = engine();
    const body: StatusResponse = {
      version: VERSION,
      listen_port: listenPort(),
      config_path: store.file,
      config_error: store.error?.map((p) => `${p.path}: ${p.message}`) ?? null,
      paused: e.paused,
      providers: e.pool.all().map((p) => p.status()),
      routing: e.config.routing,
      app_rules: e.config.app_rules,
      recent_logs: e.requestLog.recent(50),
      limits: await gatewayFor(e).limitsStatus(e.config, c.env.incoming),
    };
    return c.json(body);
  });

  admin.get('/config', async (c) => {
    return c.json({ path: store.file, config: maskConfig(await store.readRaw()), error: store.error });
  });

  admin.put('/config', async (c) => {
    let input: unknown;
    try {
      input = await c.req.json();
    } catch {
      throw new ApiError(
        'invalid_json',
        'The config sent is not valid JSON.',
        'Send the whole config.json object as JSON.',
      );
    }
    const merged = unmaskKeys(input, await store.readRaw());
    try {
      await store.save(merged);
    } catch (err) {
      if (err instanceof ConfigError) {
        throw new ApiError(
          'config_invalid',
          `The config was not saved: ${err.problems.map((p) => `${p.path} ${p.message}`).join('; ')}.`,
          'Fix the fields listed in error.details; config.json on disk is unchanged.',
          err.problems,
        );
      }
      throw err;
    }
    return c.json({ path: store.file, config: maskConfig(await store.readRaw()), error: null });
  });

  admin.get('/logs', (c) => {
    const limit = Math.min(Math.max(Number(c.req.query('limit') ?? 100) || 100, 1), 1000);
    return c.json({ data: engine().requestLog.recent(limit) });
  });

  admin.get('/logs/stream', (c) =>
    streamSSE(c, async (stream) => {
      const e = engine();
      let id = 0;
      const queue = e.requestLog.subscribe((entry) => {
        void stream.writeSSE({ event: 'request', id: String(++id), data: JSON.stringify(entry) });
      });
      const heartbeat = setInterval(() => void stream.write(': heartbeat\n\n'), 15_000);
      await stream.write('retry: 2000\n\n');
      await new Promise<void>((resolve) => stream.onAbort(resolve));
      clearInterval(heartbeat);
      queue();
    }),
  );

  admin.get('/route', (c) => {
    const model = c.req.query('model');
    if (!model)
      throw new ApiError(
        'invalid_request',
        'The query parameter "model" is required.',
        'Call /admin/v1/route?model=<name>&app=<app>.',
      );
    const app = c.req.query('app') || null;
    const e = engine();
    const route = e.router.resolve(model, app);
    const explanation: RouteExplanation & { circuits: Record<string, string> } = {
      requested_model: route.requested_model,
      model: route.model,
      app,
      app_rule: route.app_rule,
      candidates: route.candidates.map(({ provider, reason }) => ({ provider, reason })),
      skipped: route.skipped,
      steps: route.steps,
      circuits: Object.fromEntries(
        route.candidates.map((cand) => [cand.provider, e.pool.get(cand.provider)?.breaker.state ?? 'closed']),
      ),
    };
    return c.json(explanation);
  });

  // --- Routes the desktop UI needs (issue 6) ---

  /** Pause or resume routing (the tray's Pause/Resume, the UI's header switch). */
  admin.post('/pause', async (c) => {
    const body = (await c.req.json().catch(() => null)) as { paused?: unknown } | null;
    if (typeof body?.paused !== 'boolean')
      throw new ApiError(
        'invalid_request',
        'Send {"paused": true} or {"paused": false}.',
        'Set "paused" to a boolean.',
      );
    engine().paused = body.paused;
    return c.json({ paused: engine().paused });
  });

  /** Test connection: GET <base_url>/models now, recorded as the provider's state like a health check. */
  admin.post('/providers/:name/test', async (c) => {
    const name = c.req.param('name');
    const e = engine();
    const p = e.pool.get(name);
    if (!p)
      throw new ApiError(
        'not_found',
        `No provider named "${name}" in the running config.`,
        'Save the provider first, then test it.',
      );
    const t0 = performance.now();
    try {
      const models = await fetchModels(p, e.config.health_check.timeout_ms);
      const latency = performance.now() - t0;
      p.recordSuccess(latency);
      return c.json({ provider: name, ok: true, latency_ms: Math.round(latency), models: models.length, error: null });
    } catch (err) {
      const latency = performance.now() - t0;
      const message = `test: ${(err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message}`;
      const status = (err as { status?: number }).status ?? null;
      if (status === 401 || status === 403) p.recordRefusal(message, latency);
      else p.recordFailure({ retryable: true, status, kind: 'other', message }, latency);
      return c.json({ provider: name, ok: false, latency_ms: Math.round(latency), models: 0, error: message });
    }
  });

  /** Agent API keys (Settings page): list, create (the key is shown once), revoke. Same file as `switchboard keys`. */
  admin.get('/agent-keys', async (c) => {
    const keys = await readKeys(keysFile(store.dir));
    return c.json({ data: keys.map(({ id, tenant, created_at }) => ({ id, tenant, created_at })) });
  });
  admin.post('/agent-keys', async (c) => {
    const body = (await c.req.json().catch(() => ({}))) as { tenant?: unknown };
    const tenant = typeof body.tenant === 'string' && body.tenant.trim() !== '' ? body.tenant.trim() : undefined;
    if (tenant !== undefined && !/^[A-Za-z0-9._-]{1,64}$/.test(tenant)) {
      throw new ApiError(
        'invalid_request',
        `The tenant "${tenant}" is not valid.`,
        'Use 1-64 letters, digits, ".", "_" or "-".',
      );
    }
    const { key, record } = await createKey(keysFile(store.dir), tenant);
    return c.json({ key, id: record.id, tenant: record.tenant, created_at: record.created_at }, 201);
  });
  admin.delete('/agent-keys/:id', async (c) => {
    const id = c.req.param('id');
    if (!(await revokeKey(keysFile(store.dir), id)))
      throw new ApiError('not_found', `No agent API key "${id}".`, 'List the keys and pick one of their ids.');
    return c.json({ id, revoked: true });
  });

  /**
   * Settings' listen_port check: can this port be bound on the configured host now? Binds and closes at once; when
   * taken, says who holds it and the fix. The port Switchboard listens on counts as fine.
   */
  admin.get('/port-check', async (c) => {
    const raw = c.req.query('port') ?? '';
    const port = Number(raw);
    if (!/^\d+$/.test(raw) || !Number.isInteger(port) || port < 1 || port > 65535) {
      throw new ApiError(
        'invalid_request',
        `The port "${raw}" is not a port number.`,
        'Send ?port= a whole number from 1 to 65535.',
      );
    }
    const host = engine().config.listen_host;
    if (port === listenPort()) return c.json({ port, host, free: true, current: true, holder: null, message: null });
    const error = await tryBind(port, host);
    if (!error) return c.json({ port, host, free: true, current: false, holder: null, message: null });
    if (error.code !== 'EADDRINUSE') {
      const message =
        error.code === 'EACCES'
          ? `Port ${port} needs administrator rights on this system. Pick a port above 1023.`
          : `Port ${port} cannot be used on ${host} (${error.code ?? error.message}). Pick another port.`;
      return c.json({ port, host, free: false, current: false, holder: null, message });
    }
    const holder = await identifyPortHolder(port, host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host);
    return c.json({
      port,
      host,
      free: false,
      current: false,
      holder,
      message: portConflictMessage(port, holder, store.file),
    });
  });

  return admin;
}

/** Binds port on host and closes at once: null when it could be bound, else the error (EADDRINUSE, EACCES...). */
function tryBind(port: number, host: string): Promise<NodeJS.ErrnoException | null> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', (err: NodeJS.ErrnoException) => resolve(err));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(null)));
  });
}
