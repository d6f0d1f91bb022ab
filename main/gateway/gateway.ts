// The gateway's per-engine state and checks: gateway mode, credentials (key, PAT, JWT), model allow-lists and the
// limiter's admission, used by every front door and by the gateway's own routes.
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Server } from 'node:net';
import path from 'node:path';
import micromatch from 'micromatch';
import type { LimitsStatus, ScopeLimits } from '../../shared/admin.ts';
import type { Config, LimitsConfig, LimitValues } from '../../shared/config.ts';
import type { Engine } from '../proxy/engine.ts';
import {
  type Admission,
  defaultLimits,
  type EffectiveLimits,
  effectiveLimits,
  type LimitFiles,
  type LimitMode,
  Limiter,
  resolveLimits,
} from '../proxy/limits.ts';
import { ApiError } from '../errors.ts';
import { logger } from '../observability/logger.ts';
import type { HttpBindings } from '@hono/node-server';
import type { MiddlewareHandler } from 'hono';
import { errorFormatFor, isFrontDoor } from './front-doors.ts';
import { invalidKey, verifyJwt } from './jwt.ts';
import { GatewayKeyRing, gatewayKeysFile, KEY_PREFIX, PAT_PREFIX } from './keys.ts';
import { VideoTaskStore } from './video-tasks.ts';
import { openSharedState, storeConfigOf, type SharedState, type StoreStatus } from '../store/index.ts';
import type { ProviderPool } from '../proxy/provider-pool.ts';
import { SharedLimiter } from './shared-limiter.ts';
import { BreakerSync } from './shared-breakers.ts';

/**
 * Who is calling in gateway mode: the limits scope ("key:<name>", "pat:<name>", "jwt:<sub>"), the name
 * limits.per_key is keyed by, its allowed models and the key's own limits (`keys create --rpm …`).
 */
export type Principal = { scope: string; name: string; models: string[]; own: LimitValues };

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost|::ffff:127\.\d+\.\d+\.\d+)$/i;
export const isLoopback = (host: string | undefined): boolean =>
  host !== undefined && LOOPBACK.test(host.replace(/^\[|\]$/g, ''));

/**
 * The address a server socket is bound to (0.0.0.0 or a LAN address means "exposed beyond loopback") and whether it is
 * exposed: read once per server, as gateway mode is asked on every request.
 */
type Bound = { address: string | undefined; exposed: boolean };
const boundOf = new WeakMap<Server, Bound>();
function boundOfServer(req: IncomingMessage): Bound | undefined {
  const server = (req.socket as unknown as { server?: Server }).server;
  if (!server) return undefined;
  let b = boundOf.get(server);
  if (!b) {
    const addr = server.address();
    const address = addr && typeof addr === 'object' ? addr.address : undefined;
    b = { address, exposed: address !== undefined && !isLoopback(address) };
    boundOf.set(server, b);
  }
  return b;
}

/** Gateway mode: `gateway.enabled`, or a listen address beyond loopback (config or --host). */
export function isGatewayMode(config: Config, req: IncomingMessage): boolean {
  if (config.gateway.enabled) return true;
  const b = boundOfServer(req);
  return b?.address !== undefined ? b.exposed : !isLoopback(config.listen_host);
}

/** The mode and why, in words (the admin status and the Settings page say it). */
export function modeOf(config: Config, req: IncomingMessage): { mode: LimitMode; reason: string } {
  if (config.gateway.enabled) return { mode: 'gateway', reason: 'gateway.enabled is true' };
  const bound = boundOfServer(req)?.address ?? config.listen_host;
  return isLoopback(bound)
    ? { mode: 'local', reason: `bound to ${bound} (loopback) and gateway.enabled is false` }
    : { mode: 'gateway', reason: `bound to ${bound}, beyond loopback (listen_host or --host)` };
}

/**
 * The caller's credential, where each vendor's client sends its key: `Authorization: Bearer` (OpenAI, Ollama),
 * `x-api-key` (Anthropic), `x-goog-api-key` or `?key=` (Gemini).
 */
function credentialOf(headers: IncomingHttpHeaders, url: string | undefined): string | null {
  const auth = headers.authorization;
  if (typeof auth === 'string') {
    const m = /^Bearer\s+(.+)$/i.exec(auth.trim());
    if (m) return m[1]!.trim();
  }
  for (const name of ['x-api-key', 'x-goog-api-key'] as const) {
    const x = headers[name];
    if (typeof x === 'string' && x.trim() !== '') return x.trim();
  }
  const q = url?.indexOf('?') ?? -1;
  if (q === -1) return null;
  const key = new URLSearchParams(url!.slice(q + 1)).get('key');
  return key ? key.trim() : null;
}

export class Gateway {
  readonly limiter = new Limiter();
  readonly keys: GatewayKeyRing;
  readonly videos: VideoTaskStore;
  /** Files as a refusal names them: full paths for a caller on this machine, bare names for a remote one. */
  private readonly localFiles: LimitFiles;
  private readonly remoteFiles: LimitFiles;
  /** Each app's limits under one config (the hot path resolves an app once per config, not per request). */
  private appLimitsOf: LimitsConfig | null = null;
  private readonly appLimits = new Map<string, EffectiveLimits | null>();
  /** The shared state (store kind "redis"); null in embedded mode, where every path stays this process's own. */
  shared: SharedState | null = null;
  private sharedLimiter: SharedLimiter | null = null;
  private breakerSync: BreakerSync | null = null;
  /** While the Redis store is being opened (its module loads by dynamic import): requests wait for it. */
  private opening: Promise<void> | null = null;

  constructor(
    readonly dir: string,
    configFile = path.join(dir, 'config.json'),
  ) {
    this.keys = new GatewayKeyRing(gatewayKeysFile(dir));
    this.videos = new VideoTaskStore(path.join(dir, 'video-tasks.jsonl'));
    this.localFiles = { config: configFile, keys: this.keys.file };
    this.remoteFiles = { config: path.basename(configFile), keys: path.basename(this.keys.file) };
  }

  /** Store kind "redis": limits, keys, video tasks and the pool's breakers go through the shared state. */
  share(state: SharedState, pool: ProviderPool): void {
    this.shared = state;
    this.sharedLimiter = new SharedLimiter(state.limits);
    this.keys.share(state.credentials);
    this.videos.share(state.videos);
    const sync = new BreakerSync(state.breakers, `${process.pid}@${Math.random().toString(36).slice(2, 10)}`);
    this.breakerSync = sync;
    pool.linkBreakers((name, breaker) => sync.attach(name, breaker));
  }

  /** Opens the store of this config (embedded: nothing to do); requests wait until it is open. */
  openStore(config: Config, pool: ProviderPool): void {
    let cfg;
    try {
      cfg = storeConfigOf(config.store);
    } catch (err) {
      logger.error(`shared state: ${(err as Error).message}; this instance keeps its own state`);
      return;
    }
    if (cfg.kind === 'embedded') return;
    this.opening = openSharedState(cfg).then(
      (state) => {
        this.share(state, pool);
        this.opening = null;
      },
      (err: unknown) => {
        logger.error({ err }, 'shared state: the Redis store could not be loaded; this instance keeps its own state');
        this.opening = null;
      },
    );
  }

  /** The shared state once it is open (null: embedded, or it could not be loaded). */
  async whenOpen(): Promise<SharedState | null> {
    await this.opening;
    return this.shared;
  }

  /** The store, for the admin status and /health: embedded, or Redis up, down or slow since when. */
  storeStatus(): StoreStatus {
    if (this.shared) return this.shared.status();
    if (this.opening)
      return { kind: 'redis', up: false, since: this.startedAt, state: 'down', reached: false, fail_open: true };
    return { kind: 'embedded', up: true, since: this.startedAt };
  }
  private readonly startedAt = new Date().toISOString();

  async close(): Promise<void> {
    await this.opening;
    this.breakerSync?.close();
    this.keys.close();
    await this.shared?.close();
  }

  /** In gateway mode, the caller's credential checked (401 otherwise); in local mode null (any key accepted). */
  async authenticate(config: Config, req: IncomingMessage): Promise<Principal | null> {
    if (!isGatewayMode(config, req)) return null;
    if (this.opening) await this.opening;
    const token = credentialOf(req.headers, req.url);
    if (!token)
      throw invalidKey('This Switchboard runs in gateway mode: an API key is required (Authorization: Bearer sk-...).');
    if (token.startsWith(KEY_PREFIX) || token.startsWith(PAT_PREFIX)) {
      const rec = await this.keys.lookup(token);
      const what = token.startsWith(PAT_PREFIX) ? 'personal access token' : 'API key';
      if (!rec) throw invalidKey(`The ${what} is not valid.`);
      if (rec.revoked_at) throw invalidKey(`The ${what} "${rec.name}" (${rec.id}) was revoked.`);
      if (rec.expires_at && Date.parse(rec.expires_at) <= Date.now())
        throw invalidKey(`The ${what} "${rec.name}" (${rec.id}) expired at ${rec.expires_at}.`);
      return { scope: `${rec.kind}:${rec.name}`, name: rec.name, models: rec.models, own: rec.limits };
    }
    if (token.split('.').length === 3) return verifyJwt(config, token);
    throw invalidKey('The API key is not valid.');
  }

  /** 403 when the credential's model globs do not allow this model. */
  checkModel(principal: Principal | null, model: string): void {
    if (!principal || principal.models.length === 0) return;
    if (micromatch.isMatch(model, principal.models, { nocase: true, bash: true })) return;
    throw new ApiError(
      'model_not_allowed',
      `The credential ${principal.scope} may not use model "${model}" (allowed: ${principal.models.join(', ')}).`,
      'Use an allowed model, or issue a key with --models covering it.',
    );
  }

  /**
   * The limiter's admission for a request, or null when no limit is in force. A principal means gateway mode (its
   * credential is the scope); without one, local mode (the calling app is). Throws 429, or 413 for a request whose
   * estimate alone exceeds the TPM.
   */
  admit(
    config: Config,
    principal: Principal | null,
    app: string | null,
    estimatedTokens: number,
  ): Admission | null | Promise<Admission | null> {
    if (this.opening) return this.opening.then(() => this.admit(config, principal, app, estimatedTokens));
    const cfg = config.limits;
    if (!cfg.enabled) return null;
    const lim = principal
      ? effectiveLimits(
          cfg,
          'gateway',
          { kind: 'credential', scope: principal.scope, name: principal.name, own: principal.own },
          this.remoteFiles,
        )
      : this.limitsOfApp(cfg, app ?? 'unknown');
    if (!lim) return null;
    return this.sharedLimiter
      ? this.sharedLimiter.admit(lim, estimatedTokens)
      : this.limiter.admit(lim, estimatedTokens);
  }

  private limitsOfApp(cfg: LimitsConfig, name: string): EffectiveLimits | null {
    if (this.appLimitsOf !== cfg || this.appLimits.size > 1000) {
      this.appLimitsOf = cfg;
      this.appLimits.clear();
    }
    let lim = this.appLimits.get(name);
    if (lim === undefined) {
      lim = effectiveLimits(cfg, 'local', { kind: 'app', name }, this.localFiles);
      this.appLimits.set(name, lim);
    }
    return lim;
  }

  /** The limits in force, for the admin status: the mode and why, the default scope and each scope with entries. */
  async limitsStatus(config: Config, req: IncomingMessage): Promise<LimitsStatus> {
    const { mode, reason } = modeOf(config, req);
    const cfg = config.limits;
    const scopes: ScopeLimits[] = [];
    if (mode === 'local') {
      for (const name of Object.keys(cfg.per_app)) scopes.push(resolveLimits(cfg, mode, { kind: 'app', name }));
    } else {
      const now = Date.now();
      const keys = await this.keys.records().catch(() => []);
      const named = new Set<string>();
      for (const k of keys) {
        if (k.revoked_at || (k.expires_at && Date.parse(k.expires_at) <= now)) continue;
        if (Object.keys(k.limits).length === 0 && !cfg.per_key[k.name]) continue;
        named.add(k.name);
        const subject = { kind: 'credential' as const, scope: `${k.kind}:${k.name}`, name: k.name, own: k.limits };
        scopes.push(resolveLimits(cfg, mode, subject));
      }
      // A per_key entry no key carries names a JWT subject (or a key made later).
      for (const name of Object.keys(cfg.per_key)) {
        if (!named.has(name))
          scopes.push(resolveLimits(cfg, mode, { kind: 'credential', scope: `jwt:${name}`, name, own: {} }));
      }
    }
    return {
      mode,
      mode_reason: reason,
      enabled: cfg.enabled,
      scope_kind: mode === 'local' ? 'app' : 'credential',
      window_ms: cfg.window_ms,
      default: defaultLimits(cfg, mode),
      scopes,
    };
  }
}

const gateways = new WeakMap<Engine, Gateway>();

/** Closes the gateway state of an engine (its Redis connections, when the store is Redis). */
export async function closeGateway(engine: Engine): Promise<void> {
  const g = gateways.get(engine);
  gateways.delete(engine);
  await g?.close();
}

/** The gateway's store for the admin status and /health, without making the gateway state (embedded until it is). */
export function gatewayStoreStatus(engine: Engine): StoreStatus {
  return (gateways.get(engine) ?? embeddedGateway).storeStatus();
}
const embeddedGateway = { storeStatus: (): StoreStatus => ({ kind: 'embedded', up: true, since: STARTED_AT }) };
const STARTED_AT = new Date().toISOString();

/** The gateway state of an engine (one per running Switchboard), created on first use. */
export function gatewayFor(engine: Engine): Gateway {
  let g = gateways.get(engine);
  if (!g) {
    g = new Gateway(path.dirname(engine.configPath), engine.configPath);
    g.openStore(engine.config, engine.pool);
    gateways.set(engine, g);
  }
  return g;
}

/** Routes with their own auth (admin token, agent keys) or none needed (the UI's static files, /health). */
const OWN_AUTH = /^\/(admin\/|api\/v1(\/|$)|ui(\/|$)|health$)/;

/**
 * Gateway-mode auth for every Hono route but the front doors (exactly those, `isFrontDoor`: they check credentials
 * themselves, after the host guard and before reading the body) and the routes with their own auth: model lists,
 * /api/show, count_tokens, video polls, unknown paths. A refusal is a 401 in the route's own format.
 */
export const gatewayAuth = (engine: () => Engine): MiddlewareHandler<{ Bindings: HttpBindings }> =>
  async function gatewayAuth(c, next) {
    const { method, path: p } = c.req;
    if (!OWN_AUTH.test(p) && !isFrontDoor(method, p)) {
      const e = engine();
      try {
        await gatewayFor(e).authenticate(e.config, c.env.incoming);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        const format = errorFormatFor(p, c.env.incoming.headers, new URL(c.req.url).searchParams);
        return c.json(format.errorBody(err.toWire()) as object, err.status as 401, err.headers);
      }
    }
    await next();
  };
