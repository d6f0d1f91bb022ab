// The admin API (/admin/v1): status, config read/write with masked keys, request logs (JSON and SSE), route explain.
import type { HttpBindings } from '@hono/node-server';
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type {
  ConfigBackupDocument,
  ConfigBackupList,
  ConfigRestoreResult,
  ConfigSaveResult,
  RequestLogEntry,
  RouteDecision,
  RouteExplanation,
  StatusResponse,
  AgentStoreStatus,
} from '../../shared/admin.ts';
import { DEFAULT_TESTER_PROMPT_TOKENS, RouteSizeSchema } from '../../shared/admin.ts';
import {
  configWarnings,
  effectiveStore,
  isMaskedKey,
  isMaskedRedisPassword,
  maskKey,
  maskRedisPassword,
  type Config,
  parseConfig,
  restoreRedisPassword,
  SECRET_HEADER_NAME,
} from '../../shared/config.ts';
import {
  BACKUP_DAYS,
  BACKUP_POLICY,
  BACKUPS_KEPT,
  BACKUPS_MAX,
  BackupNotFoundError,
  backupsDir,
  listBackups,
  readBackup,
} from '../config/backups.ts';
import { ConfigError, type ConfigStore } from '../config/store.ts';
import { gatewayFor } from '../gateway/gateway.ts';
import type { Engine } from '../proxy/engine.ts';
import { type ResolvedRoute, Router } from '../proxy/routing.ts';
import { expectedOutput, type RequestSize } from '../proxy/strategy/choose.ts';
import { explainDecisions } from '../proxy/strategy/explain.ts';
import { offlineStatus } from '../proxy/offline.ts';
import { ApiError, invalidRequest } from '../errors.ts';
import { parseJsonBounded, readApiBody } from '../proxy/body.ts';
import { VERSION } from '../version.ts';

/** Said on every config save of an instance of a team (the Redis store): config.json is per instance (issue 36). */
export const TEAM_NOTE =
  'Saved on this instance only: with the Redis store config.json is per instance, so the other instances of the ' +
  'team keep theirs. Deploy the same config.json to every instance (docs/team.md) so that routing, limits, ' +
  'prices and budgets agree.';
import { performance } from 'node:perf_hooks';
import { fetchModels } from '../proxy/models.ts';
import { createKey, keysFile, labelProblem, readKeys, revokeKey, uiKey } from '../orchestrator/keys.ts';
import { freePortNear, identifyPortHolder, portConflictMessage, tryBind } from './port-conflict.ts';
import { usageRoutes } from './usage-routes.ts';
import { detectLocalServices } from './detect-local.ts';
import { connectRoutes } from './connect-routes.ts';
import { insightRoutes } from './insight-routes.ts';
import { listenChange, type ListenControl } from './listen-change.ts';
import { providerKeys, restoreProviderKey } from './provider-keys.ts';

type ProviderLike = { name?: unknown; api_key?: unknown; headers?: unknown };
type ConfigLike = { providers?: ProviderLike[]; gateway?: { jwt?: { secret?: unknown } } };

/**
 * Each secret of a config (providers' api_key, their credential-like headers, gateway.jwt.secret) as a reader and
 * a writer, keyed by where it lives, so a masked copy can be made and masked values sent back can be restored.
 */
type Secret = {
  get: () => string;
  set: (v: string) => void;
  /** How it is shown (default: maskKey). */
  mask?: (v: string) => string;
  /** Whether a value sent back is masked (default: isMaskedKey). */
  isMasked?: (v: string) => boolean;
  /** The value a masked one sent back stands for, given the stored one (default: the stored one when the masks match). */
  restore?: (given: string, stored: string) => string | null;
};

function secretsOf(config: unknown): Map<string, Secret> {
  const out = new Map<string, Secret>();
  if (!config || typeof config !== 'object') return out;
  const c = config as ConfigLike;
  const at = (key: string, obj: Record<string, unknown>, field: string, more: Partial<Secret> = {}) => {
    if (typeof obj[field] === 'string')
      out.set(key, { get: () => obj[field] as string, set: (v) => (obj[field] = v), ...more });
  };
  for (const p of Array.isArray(c.providers) ? c.providers : []) {
    if (!p || typeof p !== 'object') continue;
    const name = typeof p.name === 'string' ? p.name : '';
    at(`providers.${name}.api_key`, p as Record<string, unknown>, 'api_key');
    const pool = (p as { api_keys?: unknown }).api_keys;
    if (Array.isArray(pool))
      pool.forEach((_, i) =>
        at(`providers.${name}.api_keys.${i}`, pool as unknown as Record<string, unknown>, String(i)),
      );
    if (p.headers && typeof p.headers === 'object')
      for (const h of Object.keys(p.headers))
        if (SECRET_HEADER_NAME.test(h)) at(`providers.${name}.headers.${h}`, p.headers as Record<string, unknown>, h);
  }
  // MCP servers: env values and headers with credential-like names (a bare "${VAR}" reference is not a secret).
  const mcp = (config as { mcp_servers?: unknown }).mcp_servers;
  for (const [name, srv] of Object.entries(mcp && typeof mcp === 'object' ? mcp : {})) {
    for (const field of ['env', 'headers']) {
      const map = srv && typeof srv === 'object' ? (srv as Record<string, unknown>)[field] : undefined;
      if (!map || typeof map !== 'object') continue;
      for (const [k, v] of Object.entries(map))
        if (SECRET_HEADER_NAME.test(k) && !/^\$\{[^}]+\}$/.test(String(v)))
          at(`mcp_servers.${name}.${field}.${k}`, map as Record<string, unknown>, k);
    }
  }
  const jwt = c.gateway && typeof c.gateway === 'object' ? c.gateway.jwt : undefined;
  if (jwt && typeof jwt === 'object') at('gateway.jwt.secret', jwt as Record<string, unknown>, 'secret');
  // The Redis URL's password (issue 33, item 8: status, logs and metrics masked it, the config read did not).
  const store = (config as { store?: unknown }).store;
  if (store && typeof store === 'object')
    at('store.url', store as Record<string, unknown>, 'url', {
      mask: maskRedisPassword,
      isMasked: isMaskedRedisPassword,
      restore: restoreRedisPassword,
    });
  return out;
}

function maskConfig(raw: unknown): unknown {
  if (!raw || typeof raw !== 'object') return raw;
  const copy = structuredClone(raw);
  for (const s of secretsOf(copy).values()) s.set((s.mask ?? maskKey)(s.get()));
  return copy;
}

/**
 * The stored secret a renamed provider's masked secret stands for: the same field of a provider whose name the config
 * sent no longer has, with the same mask, when exactly one fits (a rename in the UI sends the key back masked).
 */
function renamedSecret(
  where: string,
  given: string,
  known: Map<string, { get: () => string }>,
  sentNames: Set<string>,
): string | undefined {
  const field = /^providers\.[^.]*\.(.*)$/.exec(where)?.[1];
  if (field === undefined) return undefined;
  const fits = [...known].filter(([k, v]) => {
    const m = /^providers\.([^.]*)\.(.*)$/.exec(k);
    return m !== null && m[2] === field && !sentNames.has(m[1]!) && maskKey(v.get()) === given;
  });
  return fits.length === 1 ? fits[0]![1].get() : undefined;
}

/** A secret sent back in its masked form means "keep the one stored there" (or, for a renamed provider, its own). */
function unmaskKeys(input: unknown, current: unknown): unknown {
  if (!input || typeof input !== 'object') return input;
  const known = secretsOf(current);
  const copy = structuredClone(input);
  const sent = (copy as ConfigLike).providers;
  const sentNames = new Set((Array.isArray(sent) ? sent : []).map((p) => (typeof p?.name === 'string' ? p.name : '')));
  const storedKeys = providerKeys(current);
  const sentKeys = providerKeys(copy);
  for (const [where, s] of secretsOf(copy)) {
    const given = s.get();
    if (s.restore) {
      // A value masked its own way (the Redis URL): restored when it is masked and there is a stored one.
      const stored = known.get(where)?.get();
      const restored = stored === undefined ? null : s.restore(given, stored);
      if (restored !== null) s.set(restored);
      else if (s.isMasked?.(given))
        throw new ApiError(
          'config_invalid',
          `${where} has a masked password that matches no stored one.`,
          'Send the full value, or send back exactly the masked value you read to keep the stored one.',
        );
      continue;
    }
    if (!isMaskedKey(given)) continue;
    // A provider's key (api_key or one of its pool): found by its mask among that provider's stored keys.
    const key = /^providers\.([^.]*)\.(api_key|api_keys\.\d+)$/.exec(where);
    if (key) {
      s.set(restoreProviderKey(key[1]!, key[2]!, given, sentKeys.get(key[1]!), storedKeys, sentNames));
      continue;
    }
    const old = known.get(where)?.get();
    const renamed = old === undefined ? renamedSecret(where, given, known, sentNames) : undefined;
    if (old !== undefined && maskKey(old) === given) s.set(old);
    else if (renamed !== undefined) s.set(renamed);
    else {
      throw new ApiError(
        'config_invalid',
        `${where.replace(/^providers\.([^.]*)\./, 'providers "$1": ')} is a masked value that matches no stored secret.`,
        'Send the full value, or send back exactly the masked value you read to keep the stored one.',
      );
    }
  }
  return copy;
}

/** A small admin body as JSON, null when it is not JSON (the route says what it wanted); 413 past 2 MB. */
async function lenientJson(c: { env: unknown; req: { raw: Request } }): Promise<unknown> {
  try {
    return parseJsonBounded(await readApiBody(c));
  } catch (err) {
    if (err instanceof SyntaxError) return null;
    throw err;
  }
}

export function adminRoutes(
  engine: () => Engine,
  store: ConfigStore,
  listenPort: () => number,
  /** The admin token: the UI's own agent key is derived from it. */
  adminToken: () => string,
  /** How a listen_port change is applied (absent: never moved, as with `--port`). */
  listen?: ListenControl,
  /** Where the agent API's state lives (absent without the agent API). */
  agentStore?: () => AgentStoreStatus,
): Hono<{ Bindings: HttpBindings }> {
  const admin = new Hono<{ Bindings: HttpBindings }>();

  admin.get('/status', async (c) => {
    const e = engine();
    const body: StatusResponse = {
      version: VERSION,
      listen_port: listenPort(),
      listen_port_pinned: listen?.pinned ?? true,
      config_path: store.file,
      config_error: store.error?.map((p) => `${p.path}: ${p.message}`) ?? null,
      paused: e.paused,
      providers: e.pool.all().map((p) => p.status()),
      routing: e.config.routing,
      app_rules: e.config.app_rules,
      recent_logs: e.requestLog.recentByStart(50),
      limits: await gatewayFor(e).limitsStatus(e.config, c.env.incoming),
      store: gatewayFor(e).storeStatus(),
      ...(agentStore ? { agent_store: agentStore() } : {}),
      offline: offlineStatus(e),
    };
    return c.json(body);
  });

  admin.get('/config', async (c) => {
    return c.json({ path: store.file, config: maskConfig(await store.readRaw()), error: store.error });
  });

  admin.put('/config', async (c) => {
    let input: unknown;
    const raw = await readApiBody(c); // 2 MB at most, refused (413) as it streams
    try {
      input = parseJsonBounded(raw);
    } catch (err) {
      throw new ApiError(
        'invalid_json',
        `The config sent is not valid JSON: ${(err as Error).message}.`,
        'Send the whole config.json object as JSON.',
      );
    }
    const merged = unmaskKeys(input, await store.readRaw());
    const hadProviders = store.config.providers.length;
    const [before, portBefore] = [store.config, listenPort()];
    let saved: Awaited<ReturnType<ConfigStore['save']>>;
    try {
      saved = await store.save(merged);
    } catch (err) {
      if (err instanceof ConfigError) {
        throw new ApiError(
          'config_invalid',
          `The config was not saved: ${err.problems.map((p) => `${p.path} ${p.message}`).join('; ')}.`,
          'Fix the fields listed in error.details; config.json on disk is unchanged.',
          err.problems,
        );
      }
      throw notSaved(err);
    }
    const body: ConfigSaveResult = {
      path: store.file,
      config: maskConfig(await store.readRaw()),
      error: null,
      backup: saved.backup,
      warnings: configWarnings(saved.config),
    };
    if (effectiveStore(saved.config.store, process.env.SWITCHBOARD_REDIS_URL).kind === 'redis')
      body.team_note = TEAM_NOTE;
    const moved = await listenChange(before, saved.config, portBefore, listenPort, listen, c.req.header('host'));
    if (moved) body.listen = moved;
    // Saved as asked (a reset is allowed), but said: the way back is the backup of what was there.
    if (hadProviders > 0 && saved.config.providers.length === 0 && saved.backup) {
      const id = saved.backup.id;
      body.warning =
        `The config saved has no providers (it had ${hadProviders}), so every request now gets no_route. ` +
        `The previous config is kept as backup ${id}: restore it with POST /admin/v1/config/backups/${id}/restore, ` +
        `the Settings page's Backups list, or \`switchboard config restore ${id}\`.`;
    }
    return c.json(body);
  });

  // --- config.json backups (main/config/backups.ts): list, read (keys masked), restore ---

  admin.get('/config/backups', async (c) => {
    const body: ConfigBackupList = {
      dir: backupsDir(store.file),
      keep: BACKUPS_KEPT,
      days: BACKUP_DAYS,
      max: BACKUPS_MAX,
      policy: BACKUP_POLICY,
      data: await listBackups(store.file),
    };
    return c.json(body);
  });

  admin.get('/config/backups/:id', async (c) => {
    const id = c.req.param('id');
    const found = await readBackup(store.file, id);
    if (!found) throw backupNotFound(id);
    let config: unknown = null;
    try {
      if (found.text !== null) config = maskConfig(JSON.parse(found.text));
    } catch {
      // not JSON: listed with valid false, no config to show
    }
    const body: ConfigBackupDocument = { ...found.info, config };
    return c.json(body);
  });

  admin.post('/config/backups/:id/restore', async (c) => {
    const id = c.req.param('id');
    const [before, portBefore] = [store.config, listenPort()];
    let r: Awaited<ReturnType<ConfigStore['restore']>>;
    try {
      r = await store.restore(id);
    } catch (err) {
      if (err instanceof BackupNotFoundError) throw backupNotFound(id);
      if (err instanceof ConfigError) {
        throw new ApiError(
          'config_invalid',
          `The backup "${id}" is not a valid config and was not restored: ` +
            `${err.problems.map((p) => `${p.path} ${p.message}`).join('; ')}.`,
          'Restore another backup (GET /admin/v1/config/backups lists them with "valid"); config.json is unchanged.',
          err.problems,
        );
      }
      throw notSaved(err);
    }
    const body: ConfigRestoreResult = {
      path: store.file,
      config: maskConfig(await store.readRaw()),
      error: null,
      restored: r.restored,
      backup: r.backup,
    };
    const moved = await listenChange(before, r.config, portBefore, listenPort, listen, c.req.header('host'));
    if (moved) body.listen = moved;
    return c.json(body);
  });

  admin.get('/logs', async (c) => {
    const limit = Math.min(Math.max(Number(c.req.query('limit') ?? 100) || 100, 1), 1000);
    const log = engine().requestLog;
    // Store "redis": the team's newest, from the stream (this instance's own when Redis cannot be read).
    const team = log.team ? await log.team.recent(limit) : null;
    return c.json({ data: team ?? log.recentByStart(limit) });
  });

  admin.get('/logs/stream', (c) =>
    streamSSE(c, async (stream) => {
      const e = engine();
      let id = 0;
      const send = (entry: RequestLogEntry) =>
        void stream.writeSSE({ event: 'request', id: String(++id), data: JSON.stringify(entry) });
      const queue = e.requestLog.subscribe(send);
      // The team's other instances' entries too (store "redis": the stream is read while this view is open).
      const team = e.requestLog.team?.follow(send);
      const heartbeat = setInterval(() => void stream.write(': heartbeat\n\n'), 15_000);
      await stream.write('retry: 2000\n\n');
      await new Promise<void>((resolve) => stream.onAbort(resolve));
      clearInterval(heartbeat);
      queue();
      team?.();
    }),
  );

  /** The request size the tester explains for: prompt_tokens and max_tokens from the query or the body. */
  const sizeOf = (input: unknown) => {
    const parsed = RouteSizeSchema.safeParse(input ?? {});
    if (!parsed.success)
      throw new ApiError(
        'invalid_request',
        `prompt_tokens and max_tokens must be whole numbers (prompt_tokens 0 to 10,000,000, max_tokens 1 to 10,000,000): ${parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}.`,
        'Leave them out for a 1,000-token prompt without max_tokens.',
      );
    return {
      promptTokens: parsed.data.prompt_tokens ?? DEFAULT_TESTER_PROMPT_TOKENS,
      outputTokens: expectedOutput(parsed.data.max_tokens),
    };
  };

  /**
   * A route explained as the API answers it, with each candidate's circuit in the running engine and the decisions:
   * the order the candidates would be tried in now for a request of `size`, each with why (strategy/explain.ts).
   */
  const explained = (route: ResolvedRoute, app: string | null, config: Config, size: RequestSize) => {
    const e = engine();
    const decisions: RouteDecision[] = explainDecisions(
      { pool: e.pool, book: e.prices, config },
      route,
      size,
      Date.now(),
    );
    const explanation: RouteExplanation & {
      circuits: Record<string, string>;
      request: { prompt_tokens: number; expected_output_tokens: number };
    } = {
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
      request: { prompt_tokens: size.promptTokens, expected_output_tokens: size.outputTokens },
      decisions,
    };
    return explanation;
  };

  admin.get('/route', (c) => {
    const model = c.req.query('model');
    if (!model)
      throw new ApiError(
        'invalid_request',
        'The query parameter "model" is required.',
        'Call /admin/v1/route?model=<name>&app=<app>.',
      );
    const app = c.req.query('app') || null;
    const size = sizeOf({ prompt_tokens: c.req.query('prompt_tokens'), max_tokens: c.req.query('max_tokens') });
    return c.json(explained(engine().router.resolve(model, app), app, engine().config, size));
  });

  /**
   * The route a config not saved yet would give (the Routing page's tester explains the edits on screen): the body is
   * {model, app?, config}; the config is validated like a save (400 config_invalid naming its problems), nothing is
   * saved or changed.
   */
  admin.post('/route', async (c) => {
    const body = (await lenientJson(c)) as {
      model?: unknown;
      app?: unknown;
      config?: unknown;
      prompt_tokens?: unknown;
      max_tokens?: unknown;
    } | null;
    if (!body || typeof body !== 'object' || Array.isArray(body))
      throw new ApiError(
        'invalid_request',
        'The body must be a JSON object: {"model": "<name>", "app": "<app>", "config": {…}}.',
        'Send the model, the app (optional) and the whole config to explain the route with.',
      );
    if (typeof body.model !== 'string' || body.model === '')
      throw new ApiError('invalid_request', 'The field "model" is required (a model name).', 'Send "model": "<name>".');
    if (body.app !== undefined && body.app !== null && typeof body.app !== 'string')
      throw new ApiError('invalid_request', 'The field "app" must be a string or null.', 'Send "app": "<app>".');
    if (body.config === undefined)
      throw new ApiError(
        'invalid_request',
        'The field "config" is required (the config to explain the route with).',
        'Send "config": the whole config.json object, or call GET /admin/v1/route for the saved one.',
      );
    const parsed = parseConfig(body.config);
    if (!parsed.ok)
      throw new ApiError(
        'config_invalid',
        `The config sent is not valid: ${parsed.problems.map((p) => `${p.path} ${p.message}`).join('; ')}.`,
        'Fix the fields listed in error.details, then explain again.',
        parsed.problems,
      );
    const app = typeof body.app === 'string' && body.app !== '' ? body.app : null;
    const size = sizeOf({ prompt_tokens: body.prompt_tokens, max_tokens: body.max_tokens });
    const route = new Router(parsed.config, store.file).resolve(body.model, app);
    return c.json(explained(route, app, parsed.config, size));
  });

  // --- Routes the desktop UI needs (issue 6) ---

  /** Pause or resume routing (the tray's Pause/Resume, the UI's header switch). */
  admin.post('/pause', async (c) => {
    const body = (await lenientJson(c)) as { paused?: unknown } | null;
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
      e.models.record(name, models, null);
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

  /**
   * Local inference services running now (the Providers page's presets): Ollama, LM Studio, llama.cpp, vLLM on their
   * usual ports (never the one Switchboard listens on), with their models and the provider already at that address.
   */
  admin.get('/providers/detect', async (c) =>
    c.json(
      await detectLocalServices({ listenPort: listenPort(), providers: engine().config.providers, env: process.env }),
    ),
  );

  /** Agent API keys (Settings page): list, create (the key is shown once), revoke. Same file as `switchboard keys`. */
  admin.get('/agent-keys', async (c) => {
    const keys = await readKeys(keysFile(store.dir));
    return c.json({
      data: keys.map(({ id, tenant, created_at, label, ui }) => ({
        id,
        tenant,
        label: label ?? null,
        ui: ui === true,
        created_at,
      })),
    });
  });
  admin.post('/agent-keys', async (c) => {
    const body = ((await lenientJson(c)) ?? {}) as { tenant?: unknown; label?: unknown };
    const tenant = typeof body.tenant === 'string' && body.tenant.trim() !== '' ? body.tenant.trim() : undefined;
    if (tenant !== undefined && !/^[A-Za-z0-9._-]{1,64}$/.test(tenant)) {
      throw new ApiError(
        'invalid_request',
        `The tenant "${tenant}" is not valid.`,
        'Use 1-64 letters, digits, ".", "_" or "-".',
      );
    }
    let label: string | undefined;
    if (body.label !== undefined && body.label !== null) {
      const problem = typeof body.label === 'string' ? labelProblem(body.label.trim()) : 'must be a string';
      if (problem) throw invalidRequest([{ field: 'label', message: problem }], 'Send a short label, or leave it out.');
      label = (body.label as string).trim();
    }
    const { key, record } = await createKey(keysFile(store.dir), tenant, label);
    return c.json(
      {
        key,
        id: record.id,
        tenant: record.tenant,
        label: record.label ?? null,
        ui: false,
        created_at: record.created_at,
      },
      201,
    );
  });
  /**
   * The UI's own agent key, labelled "Switchboard UI": made the first time, the same key for every later page
   * load, browser profile and desktop launch (its secret is derived from the admin token, so only a token holder
   * gets it). 201 when it was made now, 200 when it existed.
   */
  admin.post('/agent-keys/ui', async (c) => {
    const { key, record, created } = await uiKey(keysFile(store.dir), adminToken());
    const { id, tenant, created_at } = record;
    return c.json({ key, id, tenant, label: record.label ?? null, ui: true, created_at, created }, created ? 201 : 200);
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
      message: portConflictMessage(port, holder, store.file, await freePortNear(port, host)),
    });
  });

  admin.route('/', usageRoutes(engine)); // usage, usage/requests, events (usage-routes.ts)
  admin.route('/', connectRoutes(engine, store, listenPort)); // connect, connect/:tool[/undo], try
  admin.route('/', insightRoutes(engine)); // logs/:id/body, replay (insight-routes.ts)
  return admin;
}

function backupNotFound(id: string): ApiError {
  return new ApiError(
    'not_found',
    `No config backup "${id}".`,
    'GET /admin/v1/config/backups lists the backups and their ids ("latest" is the newest).',
  );
}

/** A save or restore that failed on the disk (the backup or the file could not be written): said, not hidden. */
function notSaved(err: unknown): unknown {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (typeof code !== 'string' || !code.startsWith('E')) return err;
  return new ApiError(
    'internal_error',
    `config.json was not changed: writing it or its backup failed (${(err as Error).message}).`,
    'Check the disk and the permissions of the config folder and its config-backups folder, then retry.',
  );
}
