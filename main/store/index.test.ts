// Opening the store: embedded without loading ioredis; SWITCHBOARD_REDIS_URL checked (a bad one is an error naming
// it, its password masked).
import { expect, it } from 'vitest';
import { EmbeddedState } from './embedded.ts';
import { openSharedState, storeConfigOf } from './index.ts';

it('opens the embedded store by default', async () => {
  const s = await openSharedState(storeConfigOf({ kind: 'embedded' }, {}));
  expect(s).toBeInstanceOf(EmbeddedState);
  expect(s.status()).toMatchObject({ kind: 'embedded', up: true });
});

it('refuses a SWITCHBOARD_REDIS_URL that is not a redis:// address, naming it and masking its password', () => {
  expect(() => storeConfigOf({ kind: 'embedded' }, { SWITCHBOARD_REDIS_URL: 'http://u:pw@h:6379' })).toThrow(
    /SWITCHBOARD_REDIS_URL \(http:\/\/\*\*\*\*:\*\*\*\*@h:6379\/?\) must be a redis:\/\//,
  );
  expect(storeConfigOf({ kind: 'embedded' }, { SWITCHBOARD_REDIS_URL: 'redis://h:1' })).toMatchObject({
    kind: 'redis',
    url: 'redis://h:1',
  });
});

it('nothing reaches ioredis by static imports from the entry points (the Redis store loads by dynamic import)', async () => {
  const { readFileSync, existsSync } = await import('node:fs');
  const path = await import('node:path');
  const root = path.resolve(import.meta.dirname, '../..');
  const STATIC = /(?:^|\n)\s*(?:import|export)\s+(?!type\b)(?:[\w*{}\s,]+?\s+from\s+)?['"]([^'"]+)['"]/g;
  const seen = new Set<string>();
  const reaching: string[] = [];
  const walk = (file: string): void => {
    if (seen.has(file) || !existsSync(file)) return;
    seen.add(file);
    for (const m of readFileSync(file, 'utf8').matchAll(STATIC)) {
      const spec = m[1]!;
      if (spec === 'ioredis') reaching.push(path.relative(root, file));
      if (spec.startsWith('.')) walk(path.resolve(path.dirname(file), spec));
    }
  };
  for (const entry of ['main/app.ts', 'main/cli.ts', 'main/gateway/gateway.ts', 'main/gateway/cli.ts'])
    walk(path.join(root, entry));
  expect(seen.size).toBeGreaterThan(20);
  expect(reaching).toEqual([]);
});
