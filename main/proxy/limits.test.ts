import { describe, expect, it } from 'vitest';
import { LimitsConfigSchema, type LimitsConfig } from '../../shared/config.ts';
import { ApiError } from '../errors.ts';
import {
  defaultLimits,
  type EffectiveLimits,
  effectiveLimits,
  estimateTokens,
  formatReset,
  Limiter,
  MAX_SCOPES,
  resolveLimits,
} from './limits.ts';

const FILES = {
  config: '/home/u/.config/switchboard/config.json',
  keys: '/home/u/.config/switchboard/gateway-keys.json',
};
const REMOTE = { config: 'config.json', keys: 'gateway-keys.json' };
const limits = (input: object = {}): LimitsConfig => LimitsConfigSchema.parse(input);

/** Global limits for app `app` in local mode (0: no limit). */
function lim(rpm: number, tpm: number, concurrency: number, app = 'a'): EffectiveLimits {
  const l = effectiveLimits(limits({ rpm, tpm, concurrency }), 'local', { kind: 'app', name: app }, FILES);
  if (!l) throw new Error('no limit in force');
  return l;
}

function refusal(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    return err as ApiError;
  }
  throw new Error('expected a refusal');
}

describe('Limiter', () => {
  it('counts requests per window and resets at the window end', () => {
    let now = 1_000;
    const l = new Limiter(() => now);
    l.admit(lim(2, 0, 0), 1).settle(null);
    const second = l.admit(lim(2, 0, 0), 1);
    expect(second.headers['x-ratelimit-remaining-requests']).toBe('0');
    const e = refusal(() => l.admit(lim(2, 0, 0), 1));
    expect(e.status).toBe(429);
    expect(e.code).toBe('rate_limit_exceeded');
    expect(e.type).toBe('rate_limit_error');
    expect(e.headers['retry-after']).toBe('60');
    expect(e.headers['x-ratelimit-reset-requests']).toBe('1m0s');
    now += 30_000;
    expect(refusal(() => l.admit(lim(2, 0, 0), 1)).headers['retry-after']).toBe('30');
    l.admit(lim(2, 0, 0, 'b'), 1); // another scope is independent
    now += 30_000;
    expect(l.admit(lim(2, 0, 0), 1).headers['x-ratelimit-remaining-requests']).toBe('1');
  });

  it("an admission's headers say the counts when it was admitted, however late they are read", () => {
    const l = new Limiter(() => 0);
    const first = l.admit(lim(5, 100, 0), 10);
    const second = l.admit(lim(5, 100, 0), 20);
    first.settle(null);
    l.admit(lim(5, 100, 0), 30);
    // Read only now (the front door reads them once the request has gone upstream).
    expect(first.headers['x-ratelimit-remaining-requests']).toBe('4');
    expect(first.headers['x-ratelimit-remaining-tokens']).toBe('90');
    expect(second.headers['x-ratelimit-remaining-requests']).toBe('3');
    expect(second.headers['x-ratelimit-remaining-tokens']).toBe('70');
    expect(second.headers).toBe(second.headers); // formatted once
  });

  it('settles tokens with the reported usage, in the window they were admitted in', () => {
    let now = 0;
    const l = new Limiter(() => now);
    const a = l.admit(lim(0, 100, 0, 's'), 10);
    expect(a.headers['x-ratelimit-remaining-tokens']).toBe('90');
    a.settle(70);
    a.settle(5); // once only
    expect(l.admit(lim(0, 100, 0, 's'), 30).headers['x-ratelimit-remaining-tokens']).toBe('0');
    expect(refusal(() => l.admit(lim(0, 100, 0, 's'), 1)).message).toContain('100 tokens per minute');
    const late = l.admit(lim(0, 100, 0, 't'), 10);
    now = 61_000;
    l.admit(lim(0, 100, 0, 't'), 5);
    late.settle(90); // belongs to the old window: not counted in the new one
    expect(l.admit(lim(0, 100, 0, 't'), 5).headers['x-ratelimit-remaining-tokens']).toBe('90');
  });

  it('limits requests in flight and frees a slot on settle', () => {
    const l = new Limiter(() => 0);
    const a = l.admit(lim(0, 0, 1, 'c'), 0);
    const e = refusal(() => l.admit(lim(0, 0, 1, 'c'), 0));
    expect(e.message).toContain('1 requests in flight at once');
    expect(e.headers['retry-after']).toBe('1');
    a.settle(null);
    l.admit(lim(0, 0, 1, 'c'), 0);
  });

  it('0 means no limit, and no headers for that limit', () => {
    const l = new Limiter(() => 0);
    const onlyRpm = lim(1_000_000, 0, 0, 'z');
    for (let i = 0; i < 1000; i++) l.admit(onlyRpm, 1000);
    expect(Object.keys(l.admit(onlyRpm, 0).headers).some((h) => h.includes('tokens'))).toBe(false);
    expect(
      effectiveLimits(limits({ rpm: 0, tpm: 0, concurrency: 0 }), 'local', { kind: 'app', name: 'z' }, FILES),
    ).toBe(null);
  });
});

/** rpm limits for app `app` with a window of `windowMs`. */
function windowed(rpm: number, windowMs: number, app: string): EffectiveLimits {
  const l = effectiveLimits(limits({ rpm, window_ms: windowMs }), 'local', { kind: 'app', name: app }, FILES);
  if (!l) throw new Error('no limit in force');
  return l;
}

describe('the table of scopes stays bounded (issue 13): idle scopes are dropped', () => {
  it('drops a scope once its window has run out and nothing of it is in flight, on a later admission', () => {
    let now = 0;
    const l = new Limiter(() => now);
    for (let i = 0; i < 1000; i++) l.admit(lim(5, 0, 0, `app-${i}`), 1).settle(1);
    const busy = l.admit(lim(5, 0, 0, 'busy'), 1); // in flight across the window's end
    expect(l.size).toBe(1001);
    now = 61_000;
    l.admit(lim(5, 0, 0, 'fresh'), 1).settle(1);
    expect(l.size).toBe(2); // busy and fresh
    busy.settle(1);
    now = 122_000;
    l.admit(lim(5, 0, 0, 'fresh'), 1).settle(1);
    expect(l.size).toBe(1);
  });

  it('keeps a scope whose window is still running: its counts hold', () => {
    let now = 0;
    const l = new Limiter(() => now);
    const a = windowed(2, 120_000, 'a');
    l.admit(a, 1).settle(1);
    l.admit(a, 1).settle(1);
    now = 61_000; // a sweep runs (60 s since the last), but a's 120 s window has not run out
    l.admit(windowed(2, 120_000, 'b'), 1).settle(1);
    expect(l.size).toBe(2);
    expect(refusal(() => l.admit(a, 1)).code).toBe('rate_limit_exceeded');
    now = 120_000; // a dropped or kept, its next window starts afresh
    expect(l.admit(a, 1).headers['x-ratelimit-remaining-requests']).toBe('1');
  });

  it(`never holds more than MAX_SCOPES (${MAX_SCOPES}) idle scopes; one in flight is never dropped`, () => {
    const l = new Limiter(() => 0);
    const first = l.admit(lim(0, 0, 1, 'first'), 1); // concurrency 1, in flight
    for (let i = 0; i < MAX_SCOPES * 2; i++) l.admit(lim(0, 0, 1, `app-${i}`), 1).settle(1);
    expect(l.size).toBeLessThanOrEqual(MAX_SCOPES);
    // first is still counted: a second request of it is over its concurrency
    expect(refusal(() => l.admit(lim(0, 0, 1, 'first'), 1)).message).toContain('1 in flight');
    first.settle(1);
    l.admit(lim(0, 0, 1, 'first'), 1);
  });
});

describe('the 429 says which limit, its value, the scope and where it is set', () => {
  it('a per_app limit in local mode: the field, the config file, and how to raise it', () => {
    const l = new Limiter(() => 0);
    const cfg = limits({ per_app: { 'claude-cli': { rpm: 1 } } });
    const app = effectiveLimits(cfg, 'local', { kind: 'app', name: 'claude-cli' }, FILES)!;
    l.admit(app, 10);
    const e = refusal(() => l.admit(app, 10));
    expect(e.message).toBe(
      'Rate limit reached for app "claude-cli": 1 requests per minute (1 sent in this window); ' +
        `set by limits.per_app.claude-cli.rpm in ${FILES.config}.`,
    );
    expect(e.action).toBe(
      `Retry after 60 s, or raise limits.per_app.claude-cli.rpm in ${FILES.config} (0 means no limit).`,
    );
    expect(e.details).toEqual({
      limit: 'rpm',
      value: 1,
      scope: 'app:claude-cli',
      scope_kind: 'app',
      source: 'config',
      field: 'limits.per_app.claude-cli.rpm',
      file: FILES.config,
      window_ms: 60_000,
      retry_after_s: 60,
    });
    expect(e.headers['x-ratelimit-limit-requests']).toBe('1');
  });

  it('a gateway default: says it is the default and which fields change it', () => {
    const l = new Limiter(() => 0);
    const subject = { kind: 'credential' as const, scope: 'key:ci', name: 'ci', own: {} };
    const key = effectiveLimits(limits(), 'gateway', subject, REMOTE)!;
    for (let i = 0; i < 10; i++) l.admit(key, 1);
    const e = refusal(() => l.admit(key, 1));
    expect(e.message).toBe(
      'Rate limit reached for credential key:ci (gateway key "ci"): 10 requests in flight at once (10 in flight); ' +
        'set by the gateway-mode default: limits.concurrency is not set in config.json.',
    );
    expect(e.action).toBe(
      'Retry when one of its requests ends (Retry-After: 1 s), or set limits.per_key.ci.concurrency (this ' +
        'credential) or limits.concurrency (every credential) in config.json (0 means no limit).',
    );
    expect(e.details).toMatchObject({
      limit: 'concurrency',
      value: 10,
      scope_kind: 'credential',
      source: 'gateway_default',
    });
  });

  it("a key's own limit: names gateway-keys.json and the per_key field that overrides it", () => {
    const l = new Limiter(() => 0);
    const subject = { kind: 'credential' as const, scope: 'pat:alice', name: 'alice', own: { tpm: 100 } };
    const pat = effectiveLimits(limits(), 'gateway', subject, REMOTE)!;
    l.admit(pat, 90);
    const e = refusal(() => l.admit(pat, 20));
    expect(e.status).toBe(429);
    expect(e.message).toContain('personal access token "alice"');
    expect(e.message).toContain('100 tokens per minute (90 used in this window, this request about 20)');
    expect(e.message).toContain(
      "the key's own limit (limits.tpm in gateway-keys.json, from switchboard keys create --tpm)",
    );
    expect(e.action).toContain("set limits.per_key.alice.tpm in config.json, which overrides the key's own limit");
    expect(e.details).toMatchObject({ source: 'key', file: 'gateway-keys.json', field: 'limits.tpm' });
  });
});

describe('a request larger than the TPM can never be admitted', () => {
  it('is a 429 request_over_tpm_limit (as the spec says of every limit) that says so, without Retry-After, and counts nothing', () => {
    const l = new Limiter(() => 0);
    const subject = { kind: 'credential' as const, scope: 'key:ci', name: 'ci', own: {} };
    const key = effectiveLimits(limits(), 'gateway', subject, REMOTE)!;
    const e = refusal(() => l.admit(key, 104_000));
    expect(e).toBeInstanceOf(ApiError);
    expect(e.status).toBe(429);
    expect(e.code).toBe('request_over_tpm_limit');
    expect(e.type).toBe('rate_limit_error');
    expect(e.message).toBe(
      'This request can never be admitted: it is about 104000 tokens (1 token per 4 bytes of its JSON), more than ' +
        'the whole limit of 100000 tokens per minute for credential key:ci (gateway key "ci"); set by the ' +
        'gateway-mode default: limits.tpm is not set in config.json.',
    );
    expect(e.action).toBe(
      'Retrying will not help: send a smaller request, or set limits.per_key.ci.tpm (this credential) or ' +
        'limits.tpm (every credential) in config.json (0 means no limit).',
    );
    expect(e.headers['retry-after']).toBeUndefined();
    expect(e.headers['x-should-retry']).toBe('false');
    expect(e.headers['x-ratelimit-limit-tokens']).toBe('100000');
    expect(e.details).toMatchObject({ limit: 'tpm', value: 100_000, estimated_tokens: 104_000 });
    // Nothing was counted: the full budget is still there.
    expect(l.admit(key, 100_000).headers['x-ratelimit-remaining-tokens']).toBe('0');
  });
});

describe('resolveLimits: which limits are in force, and where each is set', () => {
  const app = (name: string) => ({ kind: 'app' as const, name });
  const cred = (scope: string, own = {}) => ({
    kind: 'credential' as const,
    scope,
    name: scope.slice(scope.indexOf(':') + 1),
    own,
  });

  it('local mode with nothing set: no limits at all, and no admission', () => {
    const r = resolveLimits(limits(), 'local', app('claude-cli'));
    expect(r).toEqual({
      scope: 'app:claude-cli',
      rpm: { value: 0, source: 'unset', field: 'limits.rpm' },
      tpm: { value: 0, source: 'unset', field: 'limits.tpm' },
      concurrency: { value: 0, source: 'unset', field: 'limits.concurrency' },
    });
    expect(effectiveLimits(limits(), 'local', app('claude-cli'), FILES)).toBeNull();
    expect(limits()).toEqual({ enabled: true, window_ms: 60_000, per_app: {}, per_key: {} });
  });

  it('local mode: per_app over the global value, each from its own field', () => {
    const cfg = limits({ rpm: 100, per_app: { cursor: { rpm: 5, concurrency: 2 }, 'my app': { tpm: 9 } } });
    expect(resolveLimits(cfg, 'local', app('cursor'))).toMatchObject({
      rpm: { value: 5, source: 'config', field: 'limits.per_app.cursor.rpm' },
      tpm: { value: 0, source: 'unset' },
      concurrency: { value: 2, source: 'config', field: 'limits.per_app.cursor.concurrency' },
    });
    expect(resolveLimits(cfg, 'local', app('other')).rpm).toEqual({
      value: 100,
      source: 'config',
      field: 'limits.rpm',
    });
    expect(resolveLimits(cfg, 'local', app('my app')).tpm.field).toBe('limits.per_app["my app"].tpm');
    // per_key entries are for credentials: they do not apply to an app of the same name.
    expect(resolveLimits(limits({ per_key: { cursor: { rpm: 1 } } }), 'local', app('cursor')).rpm.value).toBe(0);
  });

  it('gateway mode: 60 / 100000 / 10 by default; global, key-own and per_key override in that order', () => {
    expect(resolveLimits(limits(), 'gateway', cred('jwt:bob'))).toEqual({
      scope: 'jwt:bob',
      rpm: { value: 60, source: 'gateway_default', field: 'limits.rpm' },
      tpm: { value: 100_000, source: 'gateway_default', field: 'limits.tpm' },
      concurrency: { value: 10, source: 'gateway_default', field: 'limits.concurrency' },
    });
    const cfg = limits({ rpm: 600, concurrency: 0, per_key: { ci: { tpm: 7 } } });
    expect(resolveLimits(cfg, 'gateway', cred('key:ci', { rpm: 3, tpm: 1_000 }))).toEqual({
      scope: 'key:ci',
      rpm: { value: 3, source: 'key', field: 'limits.rpm' },
      tpm: { value: 7, source: 'config', field: 'limits.per_key.ci.tpm' },
      concurrency: { value: 0, source: 'config', field: 'limits.concurrency' },
    });
    // per_app does not apply to credentials.
    expect(resolveLimits(limits({ per_app: { ci: { rpm: 1 } } }), 'gateway', cred('key:ci')).rpm.value).toBe(60);
  });

  it('limits.enabled false: nothing in force in either mode', () => {
    const off = limits({ enabled: false, rpm: 5 });
    expect(resolveLimits(off, 'gateway', cred('key:ci')).rpm).toEqual({
      value: 0,
      source: 'disabled',
      field: 'limits.enabled',
    });
    expect(effectiveLimits(off, 'gateway', cred('key:ci'), REMOTE)).toBeNull();
    expect(effectiveLimits(off, 'local', app('x'), FILES)).toBeNull();
  });

  it('the default scope ("*") ignores per-scope entries', () => {
    const cfg = limits({ tpm: 5_000, per_app: { '*': { rpm: 1 } }, per_key: { '*': { rpm: 1 } } });
    expect(defaultLimits(cfg, 'local')).toMatchObject({ scope: '*', rpm: { value: 0 }, tpm: { value: 5_000 } });
    expect(defaultLimits(cfg, 'gateway')).toMatchObject({
      scope: '*',
      rpm: { value: 60, source: 'gateway_default' },
      tpm: { value: 5_000, source: 'config' },
    });
  });
});

describe('helpers', () => {
  it('estimates a token per 4 bytes and formats resets like OpenAI', () => {
    expect(estimateTokens(0)).toBe(0);
    expect(estimateTokens(9)).toBe(3);
    expect(formatReset(250)).toBe('250ms');
    expect(formatReset(1500)).toBe('2s');
    expect(formatReset(61_000)).toBe('1m1s');
  });
});
