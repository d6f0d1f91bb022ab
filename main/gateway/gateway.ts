// The gateway's per-engine state and checks: gateway mode, credentials (key, PAT, JWT), model allow-lists and the
// limiter's admission, used by every front door and by the gateway's own routes.
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Server } from 'node:net';
import path from 'node:path';
import { decodeProtectedHeader, importSPKI, jwtVerify, type JWTPayload } from 'jose';
import micromatch from 'micromatch';
import type { Config, LimitValues } from '../../shared/config.ts';
import type { Engine } from '../proxy/engine.ts';
import { type Admission, Limiter, limitsFor } from '../proxy/limits.ts';
import { ApiError } from '../errors.ts';
import { GatewayKeyRing, gatewayKeysFile, KEY_PREFIX, PAT_PREFIX } from './keys.ts';
import { VideoTaskStore } from './video-tasks.ts';

/** Who is calling in gateway mode: the limits scope, its allowed models and its own limits. */
export type Principal = { scope: string; models: string[]; limits: LimitValues };

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost|::ffff:127\.\d+\.\d+\.\d+)$/i;
export const isLoopback = (host: string | undefined): boolean =>
  host !== undefined && LOOPBACK.test(host.replace(/^\[|\]$/g, ''));

/** The address the server socket is bound to (0.0.0.0 or a LAN address means "exposed beyond loopback"). */
const boundOf = new WeakMap<Server, string | undefined>();
function boundAddress(req: IncomingMessage): string | undefined {
  const server = (req.socket as unknown as { server?: Server }).server;
  if (!server) return undefined;
  if (boundOf.has(server)) return boundOf.get(server);
  const addr = server.address();
  const bound = addr && typeof addr === 'object' ? addr.address : undefined;
  boundOf.set(server, bound);
  return bound;
}

/** Gateway mode: `gateway.enabled`, or a listen address beyond loopback (config or --host). */
export function isGatewayMode(config: Config, req: IncomingMessage): boolean {
  if (config.gateway.enabled) return true;
  const bound = boundAddress(req);
  return bound !== undefined ? !isLoopback(bound) : !isLoopback(config.listen_host);
}

function bearerOf(headers: IncomingHttpHeaders): string | null {
  const auth = headers.authorization;
  if (typeof auth === 'string') {
    const m = /^Bearer\s+(.+)$/i.exec(auth.trim());
    if (m) return m[1]!.trim();
  }
  const x = headers['x-api-key'];
  return typeof x === 'string' && x !== '' ? x.trim() : null;
}

const invalidKey = (message: string): ApiError =>
  new ApiError(
    'invalid_api_key',
    message,
    'Send Authorization: Bearer <key> with a key from `switchboard keys create --gateway`, a PAT from `switchboard keys create --pat`, or a JWT signed with the configured gateway.jwt key.',
  );

const resolveSecret = (v: string): string => (v.startsWith('env:') ? (process.env[v.slice(4)] ?? '') : v);

export class Gateway {
  readonly limiter = new Limiter();
  readonly keys: GatewayKeyRing;
  readonly videos: VideoTaskStore;

  constructor(readonly dir: string) {
    this.keys = new GatewayKeyRing(gatewayKeysFile(dir));
    this.videos = new VideoTaskStore(path.join(dir, 'video-tasks.jsonl'));
  }

  /** In gateway mode, the caller's credential checked (401 otherwise); in local mode null (any key accepted). */
  async authenticate(config: Config, req: IncomingMessage): Promise<Principal | null> {
    if (!isGatewayMode(config, req)) return null;
    const token = bearerOf(req.headers);
    if (!token)
      throw invalidKey('This Switchboard runs in gateway mode: an API key is required (Authorization: Bearer sk-...).');
    if (token.startsWith(KEY_PREFIX) || token.startsWith(PAT_PREFIX)) {
      const rec = await this.keys.lookup(token);
      const what = token.startsWith(PAT_PREFIX) ? 'personal access token' : 'API key';
      if (!rec) throw invalidKey(`The ${what} is not valid.`);
      if (rec.revoked_at) throw invalidKey(`The ${what} "${rec.name}" (${rec.id}) was revoked.`);
      if (rec.expires_at && Date.parse(rec.expires_at) <= Date.now())
        throw invalidKey(`The ${what} "${rec.name}" (${rec.id}) expired at ${rec.expires_at}.`);
      return {
        scope: `${rec.kind}:${rec.name}`,
        models: rec.models,
        limits: { ...rec.limits, ...config.limits.per_key[rec.name] },
      };
    }
    if (token.split('.').length === 3) return this.verifyJwt(config, token);
    throw invalidKey('The API key is not valid.');
  }

  private async verifyJwt(config: Config, token: string): Promise<Principal> {
    const jwt = config.gateway.jwt;
    const secret = jwt?.secret ? resolveSecret(jwt.secret) : '';
    const publicKey = jwt?.public_key ? resolveSecret(jwt.public_key) : '';
    if (!secret && !publicKey)
      throw invalidKey('A JWT was sent but no gateway.jwt.secret or gateway.jwt.public_key is configured.');
    let payload: JWTPayload;
    try {
      const opts = {
        ...(jwt?.issuer ? { issuer: jwt.issuer } : {}),
        ...(jwt?.audience ? { audience: jwt.audience } : {}),
      };
      if (publicKey) {
        const alg = decodeProtectedHeader(token).alg ?? 'RS256';
        payload = (await jwtVerify(token, await importSPKI(publicKey, alg), { ...opts, algorithms: [alg] })).payload;
      } else {
        payload = (
          await jwtVerify(token, new TextEncoder().encode(secret), { ...opts, algorithms: ['HS256', 'HS384', 'HS512'] })
        ).payload;
      }
    } catch (err) {
      throw invalidKey(`The JWT is not valid: ${(err as Error).message}.`);
    }
    if (typeof payload.sub !== 'string' || payload.sub === '')
      throw invalidKey('The JWT has no "sub" claim naming the caller.');
    const models = Array.isArray(payload.models)
      ? payload.models.filter((m): m is string => typeof m === 'string')
      : [];
    return { scope: `jwt:${payload.sub}`, models, limits: { ...config.limits.per_key[payload.sub] } };
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

  /** The limiter's admission for a request, or null when limits are off. Throws 429. */
  admit(config: Config, principal: Principal | null, app: string | null, estimatedTokens: number): Admission | null {
    const cfg = config.limits;
    if (!cfg.enabled) return null;
    if (principal) return this.limiter.admit(principal.scope, limitsFor(cfg, principal.limits), estimatedTokens);
    const name = app ?? 'unknown';
    return this.limiter.admit(`app:${name}`, limitsFor(cfg, cfg.per_app[name]), estimatedTokens);
  }
}

const gateways = new WeakMap<Engine, Gateway>();

/** The gateway state of an engine (one per running Switchboard), created on first use. */
export function gatewayFor(engine: Engine): Gateway {
  let g = gateways.get(engine);
  if (!g) {
    g = new Gateway(path.dirname(engine.configPath));
    gateways.set(engine, g);
  }
  return g;
}

/** Routes with their own auth (admin token, agent keys) or none needed (the UI's static files). */
const OWN_AUTH = /^\/(admin\/|api\/v1(\/|$)|ui(\/|$))/;

/**
 * Gateway-mode auth for the Hono routes that are not front doors (GET /v1/models, video polls, count_tokens...);
 * front doors (POST) check credentials themselves, after the host guard and before reading the body.
 */
export const gatewayAuth = (engine: () => Engine) =>
  async function gatewayAuth(
    c: { req: { method: string; path: string }; env: { incoming: IncomingMessage } },
    next: () => Promise<void>,
  ) {
    const { method, path: p } = c.req;
    if (!OWN_AUTH.test(p) && (method !== 'POST' || /count_?tokens/i.test(p))) {
      const e = engine();
      await gatewayFor(e).authenticate(e.config, c.env.incoming);
    }
    await next();
  };
