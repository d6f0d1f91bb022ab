// The test Redis launcher: starts on a free port, answers, survives kill + restart, stops cleanly.
import { describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { startRedis } from './redis.ts';

describe('test redis-server', () => {
  it('starts, answers, is killed and restarted on the same port, stops', async () => {
    const r = await startRedis();
    const client = new Redis(r.url, { maxRetriesPerRequest: 1, lazyConnect: true });
    try {
      await client.connect();
      await client.set('k', 'v');
      expect(await client.get('k')).toBe('v');
      await r.kill();
      await r.restart();
      expect(await client.get('k')).toBeNull(); // no persistence: empty after a crash
    } finally {
      client.disconnect();
      await r.stop();
    }
  });
});
