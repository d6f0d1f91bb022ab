import { describe, expect, it } from 'vitest';
import type { LimitInForce, LimitsStatus, ScopeLimits } from '../../shared/admin.ts';
import { limitsInWords, storeInWords } from './limits-text.ts';

const unset = (field: string): LimitInForce => ({ value: 0, source: 'unset', field });
const dflt = (value: number, field: string): LimitInForce => ({ value, source: 'gateway_default', field });
const set = (value: number, field: string): LimitInForce => ({ value, source: 'config', field });

const noneLocal: ScopeLimits = {
  scope: '*',
  rpm: unset('limits.rpm'),
  tpm: unset('limits.tpm'),
  concurrency: unset('limits.concurrency'),
};
const gatewayDefaults: ScopeLimits = {
  scope: '*',
  rpm: dflt(60, 'limits.rpm'),
  tpm: dflt(100_000, 'limits.tpm'),
  concurrency: dflt(10, 'limits.concurrency'),
};
const local = (over: Partial<LimitsStatus> = {}): LimitsStatus => ({
  mode: 'local',
  mode_reason: 'bound to 127.0.0.1 (loopback) and gateway.enabled is false',
  enabled: true,
  scope_kind: 'app',
  window_ms: 60_000,
  default: noneLocal,
  scopes: [],
  ...over,
});
const gateway = (over: Partial<LimitsStatus> = {}): LimitsStatus => ({
  ...local(),
  mode: 'gateway',
  mode_reason: 'gateway.enabled is true',
  scope_kind: 'credential',
  default: gatewayDefaults,
  ...over,
});

describe('limitsInWords', () => {
  it('local mode with nothing set: no limits, and how to add one', () => {
    expect(limitsInWords(local())).toEqual({
      headline:
        'Local mode: no limits; set limits.rpm, limits.tpm or limits.concurrency in config.json to add one ' +
        '(limits.per_app.<app> for one app).',
      reason: 'Local mode because bound to 127.0.0.1 (loopback) and gateway.enabled is false.',
      lines: [],
    });
  });

  it('local mode with per_app entries: each app with its values and the fields that set them', () => {
    const w = limitsInWords(
      local({
        scopes: [
          {
            scope: 'app:claude-cli',
            rpm: set(20, 'limits.per_app.claude-cli.rpm'),
            tpm: unset('limits.tpm'),
            concurrency: set(4, 'limits.per_app.claude-cli.concurrency'),
          },
        ],
      }),
    );
    expect(w.headline).toMatch(/^Local mode: no limits except for the apps below; set limits\.rpm/);
    expect(w.lines).toEqual([
      'app "claude-cli": 20 requests/min (limits.per_app.claude-cli.rpm), 4 in flight at once ' +
        '(limits.per_app.claude-cli.concurrency)',
    ]);
  });

  it('local mode with a global value: what each app gets', () => {
    const w = limitsInWords(local({ default: { ...noneLocal, tpm: set(500_000, 'limits.tpm') } }));
    expect(w.headline).toBe('Local mode: each app gets 500,000 tokens/min (limits.tpm).');
  });

  it('gateway mode with the defaults: the three values per key, and where to change them', () => {
    const w = limitsInWords(gateway());
    expect(w.headline).toBe(
      'Gateway mode: 60 requests/min, 100,000 tokens/min, 10 in flight at once per key (the defaults; set ' +
        'limits.rpm, limits.tpm or limits.concurrency in config.json to change them, limits.per_key.<name> for one key).',
    );
    expect(w.reason).toBe('Gateway mode because gateway.enabled is true.');
  });

  it("gateway mode with overrides and a key's own limits", () => {
    const w = limitsInWords(
      gateway({
        mode_reason: 'bound to 0.0.0.0, beyond loopback (listen_host or --host)',
        default: { ...gatewayDefaults, rpm: set(600, 'limits.rpm') },
        scopes: [
          {
            scope: 'key:ci',
            rpm: { value: 5, source: 'key', field: 'limits.rpm' },
            tpm: set(0, 'limits.per_key.ci.tpm'),
            concurrency: dflt(10, 'limits.concurrency'),
          },
          { scope: 'jwt:bob', rpm: set(0, 'a'), tpm: set(0, 'b'), concurrency: set(0, 'c') },
        ],
      }),
    );
    expect(w.headline).toBe(
      'Gateway mode: 600 requests/min (limits.rpm), 100,000 tokens/min (default), 10 in flight at once (default) per key.',
    );
    expect(w.reason).toBe('Gateway mode because bound to 0.0.0.0, beyond loopback (listen_host or --host).');
    expect(w.lines).toEqual([
      `key "ci": 5 requests/min (the key's own), 10 in flight at once (default)`,
      'JWT subject "bob": no limits',
    ]);
  });

  it('limits.enabled false: off, whatever the mode', () => {
    expect(limitsInWords(gateway({ enabled: false })).headline).toBe(
      'Limits are off: limits.enabled is false in config.json, so no request is limited.',
    );
  });

  it('a test-length window is named as such', () => {
    const w = limitsInWords(local({ window_ms: 1500, default: { ...noneLocal, rpm: set(3, 'limits.rpm') } }));
    expect(w.headline).toBe('Local mode: each app gets 3 requests per 1,500 ms (limits.rpm).');
  });
});

describe('storeInWords', () => {
  it('says nothing for the embedded store, and where Redis is and whether it is up', () => {
    expect(storeInWords(undefined)).toBeNull();
    expect(storeInWords({ kind: 'embedded', up: true, since: '2026-11-26T10:00:00.000Z' })).toBeNull();
    const url = 'redis://:****@redis.internal:6379';
    const up = storeInWords({ kind: 'redis', up: true, since: '2026-11-26T10:00:00.000Z', url });
    expect(up).toMatchObject({ down: false });
    expect(up!.text).toContain('Shared with the team through Redis (redis://:****@redis.internal:6379)');
    const down = storeInWords({ kind: 'redis', up: false, since: '2026-11-26T10:05:00.000Z', url });
    expect(down).toMatchObject({ down: true });
    expect(down!.text).toContain('unreachable since 2026-11-26T10:05:00.000Z');
    expect(down!.text).toContain('counted by this instance alone');
  });
});
