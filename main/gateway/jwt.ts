// Gateway JWTs: verified with gateway.jwt.secret (HMAC, at least as long as the hash: RFC 7518 §3.2) or
// gateway.jwt.public_key; every token must carry `exp` and live at most gateway.jwt.max_lifetime_s.
import type { JWTPayload } from 'jose';
import { type Config, JWT_HMAC_MIN_BYTES, JWT_SECRET_FIX } from '../../shared/config.ts';
import { ApiError } from '../errors.ts';
import { logger } from '../observability/logger.ts';
import type { Principal } from './gateway.ts';

export const invalidKey = (message: string): ApiError =>
  new ApiError(
    'invalid_api_key',
    message,
    'Send Authorization: Bearer <key> with a key from `switchboard keys create --gateway`, a PAT from `switchboard keys create --pat`, or a JWT signed with the configured gateway.jwt key.',
  );

const resolveSecret = (v: string): string => (v.startsWith('env:') ? (process.env[v.slice(4)] ?? '') : v);

/** When each operator-side problem was last logged: a caller sending tokens in a loop logs it once a minute. */
const logged = new Map<string, number>();
const LOG_EVERY_MS = 60_000;

/**
 * A refusal caused by the gateway's own configuration: the caller (not yet authenticated) is told only that its token
 * is refused; the operator's log says which setting and why. The secret's variable name, its length and the
 * algorithms it allows are never in the answer (issue 33, item 11).
 */
function configRefusal(answer: string, detail: string): ApiError {
  const now = Date.now();
  if ((logged.get(detail) ?? 0) + LOG_EVERY_MS <= now) {
    logged.set(detail, now);
    if (logged.size > 100) logged.delete(logged.keys().next().value as string);
    logger.warn(`gateway JWT refused: ${detail}`);
  }
  return invalidKey(`${answer} The server's log says why.`);
}

/**
 * The HMAC key of gateway.jwt.secret and the algorithms it is long enough for (RFC 7518 §3.2: at least the hash's
 * size). config.json's own secret was checked at load; one from env: is checked here, at each verify.
 */
function hmacKey(
  jose: typeof import('jose'),
  configured: string,
  token: string,
): { key: Uint8Array; algorithms: string[] } {
  const key = new TextEncoder().encode(resolveSecret(configured));
  const where = configured.startsWith('env:') ? `gateway.jwt.secret (${configured})` : 'gateway.jwt.secret';
  const algorithms = Object.entries(JWT_HMAC_MIN_BYTES)
    .filter(([, min]) => key.length >= min)
    .map(([alg]) => alg);
  if (algorithms.length === 0) {
    throw configRefusal(
      "JWTs are refused: this gateway's JWT secret is not usable.",
      `${where} is ${key.length} bytes, and an HMAC secret must be at least ${JWT_HMAC_MIN_BYTES.HS256} bytes; ` +
        `${JWT_SECRET_FIX}.`,
    );
  }
  const alg = jose.decodeProtectedHeader(token).alg ?? '';
  const need = (JWT_HMAC_MIN_BYTES as Record<string, number>)[alg];
  if (need !== undefined && key.length < need) {
    throw configRefusal(
      `The JWT is signed with ${alg}, which this gateway does not accept.`,
      `a JWT signed with ${alg} was refused: ${alg} needs a secret of at least ${need} bytes and ${where} is ` +
        `${key.length}; tokens must be signed with ${algorithms.join(' or ')}, or configure a longer secret.`,
    );
  }
  return { key, algorithms };
}

/** A JWT must expire, and live at most `maxS` seconds: exp - iat, counted from now when iat is absent or ahead. */
function checkLifetime(payload: JWTPayload, maxS: number): void {
  if (typeof payload.exp !== 'number') {
    throw invalidKey(
      `The JWT has no "exp" claim: only tokens that expire are accepted, at most gateway.jwt.max_lifetime_s ` +
        `(${maxS} s) after they are issued.`,
    );
  }
  const now = Math.floor(Date.now() / 1000);
  const fromIat = typeof payload.iat === 'number' && payload.iat <= now;
  const lifetime = payload.exp - (fromIat ? (payload.iat as number) : now);
  if (lifetime > maxS) {
    throw invalidKey(
      `The JWT lives ${lifetime} s (exp - ${fromIat ? 'iat' : 'now'}), more than gateway.jwt.max_lifetime_s ` +
        `(${maxS} s) allows: issue tokens that expire sooner, or raise gateway.jwt.max_lifetime_s in config.json.`,
    );
  }
}

/** A JWT checked against gateway.jwt: signature, issuer and audience, `exp` and lifetime, `sub`. */
export async function verifyJwt(config: Config, token: string): Promise<Principal> {
  const jwt = config.gateway.jwt;
  const publicKey = jwt?.public_key ? resolveSecret(jwt.public_key) : '';
  if (!jwt || (!jwt.secret && !publicKey))
    throw invalidKey('A JWT was sent but no gateway.jwt.secret or gateway.jwt.public_key is configured.');
  let payload: JWTPayload;
  try {
    const jose = await import('jose'); // loaded on the first JWT, not at start
    const { decodeProtectedHeader, importSPKI, jwtVerify } = jose;
    const opts = {
      ...(jwt.issuer ? { issuer: jwt.issuer } : {}),
      ...(jwt.audience ? { audience: jwt.audience } : {}),
    };
    if (publicKey) {
      const alg = decodeProtectedHeader(token).alg ?? 'RS256';
      payload = (await jwtVerify(token, await importSPKI(publicKey, alg), { ...opts, algorithms: [alg] })).payload;
    } else {
      const { key, algorithms } = hmacKey(jose, jwt.secret!, token);
      payload = (await jwtVerify(token, key, { ...opts, algorithms })).payload;
    }
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw invalidKey(`The JWT is not valid: ${(err as Error).message}.`);
  }
  checkLifetime(payload, jwt.max_lifetime_s);
  if (typeof payload.sub !== 'string' || payload.sub === '')
    throw invalidKey('The JWT has no "sub" claim naming the caller.');
  const models = Array.isArray(payload.models) ? payload.models.filter((m): m is string => typeof m === 'string') : [];
  return { scope: `jwt:${payload.sub}`, name: payload.sub, models, own: {} };
}
