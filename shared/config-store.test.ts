// config.json's `store` (docs/team.md, "Shared state"): embedded by default, Redis with a URL and a prefix;
// SWITCHBOARD_REDIS_URL wins over config.json; a URL's password is never shown.
import { describe, expect, it } from 'vitest';
import { effectiveStore, parseConfig, redactRedisUrl, STORE_DEFAULT_PREFIX } from './config.ts';

describe('config store', () => {
  it('is embedded by default', () => {
    const r = parseConfig({});
    expect(r.ok && r.config.store).toEqual({ kind: 'embedded' });
  });

  it('takes redis with a url, the prefix defaulting to "switchboard:" and the hot-path budget to 50 ms, 3 calls', () => {
    const r = parseConfig({ store: { kind: 'redis', url: 'redis://10.0.0.5:6379/2' } });
    expect(r.ok && r.config.store).toEqual({
      kind: 'redis',
      url: 'redis://10.0.0.5:6379/2',
      prefix: 'switchboard:',
      timeout_ms: 50,
      trip_after: 3,
      probe_ms: 250,
    });
    expect(STORE_DEFAULT_PREFIX).toBe('switchboard:');
    const tuned = parseConfig({ store: { kind: 'redis', url: 'redis://r', timeout_ms: 20, trip_after: 5 } });
    expect(tuned.ok && tuned.config.store).toMatchObject({ timeout_ms: 20, trip_after: 5 });
    const bad = parseConfig({ store: { kind: 'redis', url: 'redis://r', timeout_ms: 0 } });
    expect(bad.ok ? null : bad.problems[0]).toMatchObject({ path: 'store.timeout_ms' });
  });

  it('refuses a store without a url, with a wrong scheme, an unknown kind or an unknown field, naming the field', () => {
    const problems = (input: unknown) => {
      const r = parseConfig({ store: input });
      if (r.ok) throw new Error('accepted');
      return r.problems;
    };
    expect(problems({ kind: 'redis' })[0]).toMatchObject({ path: 'store.url' });
    expect(problems({ kind: 'redis', url: 'http://x:6379' })[0]).toMatchObject({
      path: 'store.url',
      message: expect.stringContaining('redis:// or rediss://'),
    });
    expect(problems({ kind: 'memcached' })[0]!.path).toBe('store.kind');
    expect(problems({ kind: 'embedded', url: 'redis://x' })[0]).toMatchObject({ path: 'store.url' });
    expect(problems({ kind: 'redis', url: 'redis://x', prefix: '' })[0]).toMatchObject({ path: 'store.prefix' });
  });

  it('SWITCHBOARD_REDIS_URL wins: sets Redis over embedded, replaces the url, keeps config.json’s prefix', () => {
    expect(effectiveStore({ kind: 'embedded' }, undefined)).toEqual({ kind: 'embedded' });
    expect(effectiveStore({ kind: 'embedded' }, '  ')).toEqual({ kind: 'embedded' });
    expect(effectiveStore({ kind: 'embedded' }, 'redis://r:6379')).toEqual({
      kind: 'redis',
      url: 'redis://r:6379',
      prefix: 'switchboard:',
      timeout_ms: 50,
      trip_after: 3,
      probe_ms: 250,
    });
    expect(effectiveStore({ kind: 'redis', url: 'redis://a', prefix: 'team1:' }, 'redis://b')).toEqual({
      kind: 'redis',
      url: 'redis://b',
      prefix: 'team1:',
    });
  });

  it('masks the user and password of a URL', () => {
    expect(redactRedisUrl('redis://:pw@h:6379/0')).toBe('redis://:****@h:6379/0');
    expect(redactRedisUrl('rediss://default:pw@h:6380')).toBe('rediss://****:****@h:6380');
    expect(redactRedisUrl('redis://h:6379')).toBe('redis://h:6379');
    expect(redactRedisUrl('not a url')).not.toContain('not a url');
  });
});
