// Gateway JWTs (issue 13, item 7): HMAC secrets at least as long as the hash (RFC 7518 §3.2), checked when config.json
// is read and, for env: secrets, when a token is verified; `exp` required, and a lifetime of at most
// gateway.jwt.max_lifetime_s.
import fs from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { generateKeyPair, exportSPKI, SignJWT, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Config, parseConfig, problemToText } from '../../shared/config.ts';
import { ApiError } from '../errors.ts';
import { logger } from '../observability/logger.ts';
import { Gateway } from './gateway.ts';

const SECRET_64 = 'k'.repeat(40) + '0123456789abcdef01234567'; // 64 bytes
const SECRET_48 = SECRET_64.slice(0, 48);
const SECRET_32 = SECRET_64.slice(0, 32);
const HOUR = 3600;

let dir: string;
let gateway: Gateway;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-jwt-'));
  gateway = new Gateway(dir);
});
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

function config(jwt: Record<string, unknown>): Config {
  const r = parseConfig({ gateway: { enabled: true, jwt } });
  if (!r.ok) throw new Error(r.problems.map(problemToText).join('\n'));
  return r.config;
}
/** A config that skipped the load-time check (a secret given as env:NAME), for the verify-time check. */
const envConfig = (name: string, extra: Record<string, unknown> = {}) => config({ secret: `env:${name}`, ...extra });

const request = (token: string) => ({ headers: { authorization: `Bearer ${token}` } }) as unknown as IncomingMessage;

type Claims = { exp?: number; iat?: number | null; alg?: string };
async function sign(secret: string, { exp, iat, alg = 'HS256' }: Claims = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const payload: JWTPayload = { sub: 'bob' };
  if (iat !== null) payload.iat = iat ?? now;
  if (exp !== undefined) payload.exp = exp;
  return new SignJWT(payload).setProtectedHeader({ alg }).sign(new TextEncoder().encode(secret));
}

async function refusal(cfg: Config, token: string): Promise<string> {
  const err = await gateway.authenticate(cfg, request(token)).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ApiError);
  expect((err as ApiError).status).toBe(401);
  expect((err as ApiError).code).toBe('invalid_api_key');
  return (err as ApiError).message;
}

describe('the HMAC secret', () => {
  it('is refused at config load when shorter than 32 bytes, naming the field and the fix, never echoing it', () => {
    for (const secret of ['abc', 'x'.repeat(31), 'é'.repeat(15)]) {
      const r = parseConfig({ gateway: { jwt: { secret } } });
      expect(r.ok).toBe(false);
      if (r.ok) continue;
      expect(r.problems).toHaveLength(1);
      const text = problemToText(r.problems[0]!);
      expect(r.problems[0]!.path).toBe('gateway.jwt.secret');
      expect(text).toContain('at least 32 bytes');
      expect(text).toContain('openssl rand -base64 48');
      expect(text).not.toContain(secret);
    }
    // 32 bytes (16 two-byte characters count as 32), an env: reference, or no secret at all are fine.
    for (const secret of [SECRET_32, 'é'.repeat(16), 'env:SB_JWT_SECRET', '']) {
      expect(parseConfig({ gateway: { jwt: { secret } } }).ok).toBe(true);
    }
  });

  it('from env: is checked when a token is verified: too short (or unset) refuses every HS token; the log says why, the 401 does not', async () => {
    process.env.SB_TEST_SHORT_SECRET = 'abc';
    const logs = captureWarnings();
    const short = await refusal(envConfig('SB_TEST_SHORT_SECRET'), await sign('abc', { exp: now() + 60 }));
    // The caller is not authenticated: it learns neither the variable's name nor the secret's length (issue 33, item 11).
    expect(short).toBe("JWTs are refused: this gateway's JWT secret is not usable. The server's log says why.");
    expect(short).not.toMatch(/SB_TEST_SHORT_SECRET|\b3 bytes|env:/);
    expect(logs.text()).toContain('gateway.jwt.secret (env:SB_TEST_SHORT_SECRET) is 3 bytes');
    expect(logs.text()).toContain('at least 32');
    delete process.env.SB_TEST_UNSET_SECRET;
    const unset = await refusal(envConfig('SB_TEST_UNSET_SECRET'), await sign(SECRET_32, { exp: now() + 60 }));
    expect(unset).not.toContain('SB_TEST_UNSET_SECRET');
    expect(logs.text()).toContain('gateway.jwt.secret (env:SB_TEST_UNSET_SECRET) is 0 bytes');
    logs.stop();
    process.env.SB_TEST_GOOD_SECRET = SECRET_32;
    const ok = await gateway.authenticate(
      envConfig('SB_TEST_GOOD_SECRET'),
      request(await sign(SECRET_32, { exp: now() + 60 })),
    );
    expect(ok).toMatchObject({ scope: 'jwt:bob' });
  });

  it('must be as long as the hash of the algorithm the token uses: HS384 needs 48 bytes, HS512 64', async () => {
    const cfg48 = config({ secret: SECRET_48 });
    const exp = now() + 60;
    expect(await gateway.authenticate(cfg48, request(await sign(SECRET_48, { exp, alg: 'HS384' })))).toMatchObject({
      scope: 'jwt:bob',
    });
    const logs = captureWarnings();
    const msg = await refusal(cfg48, await sign(SECRET_48, { exp, alg: 'HS512' }));
    expect(msg).toBe("The JWT is signed with HS512, which this gateway does not accept. The server's log says why.");
    expect(logs.text()).toContain('HS512 needs a secret of at least 64 bytes and gateway.jwt.secret is 48');
    logs.stop();
    const cfg64 = config({ secret: SECRET_64 });
    expect(await gateway.authenticate(cfg64, request(await sign(SECRET_64, { exp, alg: 'HS512' })))).toMatchObject({
      scope: 'jwt:bob',
    });
  });
});

const now = () => Math.floor(Date.now() / 1000);

/** The warnings logged until stop() (the operator's side of a refusal). */
function captureWarnings(): { text: () => string; stop: () => void } {
  const lines: string[] = [];
  const original = logger.warn;
  logger.warn = ((...args: unknown[]) => void lines.push(args.map(String).join(' '))) as typeof logger.warn;
  return { text: () => lines.join('\n'), stop: () => void (logger.warn = original) };
}

describe('exp and the lifetime', () => {
  const cfg = () => config({ secret: SECRET_32 });

  it('a token without exp is refused, saying exp is required and the maximum lifetime', async () => {
    const msg = await refusal(cfg(), await sign(SECRET_32));
    expect(msg).toContain('"exp"');
    expect(msg).toContain('86400');
  });

  it('a lifetime (exp - iat) over gateway.jwt.max_lifetime_s (default 24 h) is refused; at the limit it is served', async () => {
    const iat = now() - 60;
    expect(
      await gateway.authenticate(cfg(), request(await sign(SECRET_32, { iat, exp: iat + 24 * HOUR }))),
    ).toMatchObject({
      scope: 'jwt:bob',
    });
    const msg = await refusal(cfg(), await sign(SECRET_32, { iat, exp: iat + 24 * HOUR + 1 }));
    expect(msg).toContain('86401 s');
    expect(msg).toContain('gateway.jwt.max_lifetime_s (86400 s)');
    // Set lower in config.json:
    const tight = config({ secret: SECRET_32, max_lifetime_s: 600 });
    expect(await refusal(tight, await sign(SECRET_32, { iat, exp: iat + 601 }))).toContain('(600 s)');
  });

  it('without iat, or with an iat in the future, the lifetime counts from now', async () => {
    expect(await refusal(cfg(), await sign(SECRET_32, { iat: null, exp: now() + 25 * HOUR }))).toContain(
      'max_lifetime_s',
    );
    expect(
      await gateway.authenticate(cfg(), request(await sign(SECRET_32, { iat: null, exp: now() + HOUR }))),
    ).toMatchObject({
      scope: 'jwt:bob',
    });
    // iat claimed a day ahead, exp an hour after it: 25 h from now.
    expect(await refusal(cfg(), await sign(SECRET_32, { iat: now() + 24 * HOUR, exp: now() + 25 * HOUR }))).toContain(
      'max_lifetime_s',
    );
  });

  it('applies to tokens verified with a public key too', async () => {
    const pair = await generateKeyPair('ES256');
    const pk = config({ public_key: await exportSPKI(pair.publicKey) });
    const es = (claims: JWTPayload) =>
      new SignJWT({ sub: 'carol', ...claims }).setProtectedHeader({ alg: 'ES256' }).sign(pair.privateKey);
    expect(await refusal(pk, await es({}))).toContain('"exp"');
    expect(await refusal(pk, await es({ iat: now(), exp: now() + 48 * HOUR }))).toContain('max_lifetime_s');
    expect(await gateway.authenticate(pk, request(await es({ iat: now(), exp: now() + HOUR })))).toMatchObject({
      scope: 'jwt:carol',
    });
  });

  it('max_lifetime_s is a whole number of seconds from 60 to 31536000 (a year)', () => {
    for (const bad of [0, 59, 1.5, 31_536_001, '3600']) {
      const r = parseConfig({ gateway: { jwt: { secret: SECRET_32, max_lifetime_s: bad } } });
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.problems[0]!.path).toBe('gateway.jwt.max_lifetime_s');
    }
    expect(config({ secret: SECRET_32 }).gateway.jwt?.max_lifetime_s).toBe(86_400);
  });
});
