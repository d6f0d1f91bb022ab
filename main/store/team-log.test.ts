// The team's request stream on a real Redis (test/support/redis.ts), the live log view's catch-up buffer: two request
// logs, as two instances would have, each with its TeamLog on one Redis. Each entry is added once with its instance;
// `recent` reads the team's newest (an entry added twice shown once); `follow` gets the other instance's new entries,
// and the stream is read only while someone follows it; `history` pages back by id or time; entries made while Redis is
// down are added once it is back, and past the queue's bound the oldest are dropped and counted; the stream is trimmed.
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RequestLogEntry } from '../../shared/admin.ts';
import { startRedis, type TestRedis } from '../../test/support/redis.ts';
import { RequestLog } from '../observability/request-log.ts';
import { newLogEntry } from '../proxy/request.ts';
import { connectRedis, type RedisConnection } from './redis-connection.ts';
import { TeamLog, type TeamLogOptions } from './team-log.ts';

let redis: TestRedis;
let raw: Redis;
beforeAll(async () => {
  redis = await startRedis();
  raw = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  raw.on('error', () => {});
});
afterAll(async () => {
  raw.disconnect();
  await redis.stop();
});

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
  await raw.flushall().catch(() => {});
});

type Instance = { log: RequestLog; team: TeamLog; conn: RedisConnection };

async function instance(name: string, extra: Partial<TeamLogOptions> = {}): Promise<Instance> {
  const conn = connectRedis({ kind: 'redis', url: redis.url, prefix: 'sb-test:' });
  await until(() => conn.isUp());
  const log = new RequestLog(100);
  log.instance = name;
  const team = new TeamLog({ redis: conn, log, instance: name, ...extra });
  open.push(conn, team);
  return { log, team, conn };
}

function entry(over: Partial<RequestLogEntry> = {}): RequestLogEntry {
  return { ...newLogEntry('/v1/chat/completions'), provider: 'mock', status: 200, prompt_tokens: 3, ...over };
}

async function until(cond: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const xreads = async (): Promise<number> =>
  Number(/cmdstat_xread:calls=(\d+)/.exec(await raw.info('commandstats'))?.[1] ?? 0);

describe('team request stream', () => {
  it("adds each entry once with its instance; recent() reads the team's newest, an entry added twice shown once", async () => {
    const a = await instance('a');
    const b = await instance('b');
    const add = async (i: Instance, e: RequestLogEntry) => {
      i.log.add(e);
      i.log.deliver(); // as the turn's end does
      await i.team.flush();
    };
    await add(a, entry({ app: 'one' }));
    await add(b, entry({ app: 'two' }));
    const twice = entry({ app: 'three' });
    await add(a, twice);
    // As a pipeline cut short by a dropped connection is sent again: the same entry twice in the stream.
    await raw.xadd('sb-test:requests', '*', 'i', 'a', 'e', JSON.stringify({ ...twice, instance: 'a' }));
    expect(await raw.xlen('sb-test:requests')).toBe(4);
    const seen = (await b.team.recent(10))!;
    expect(seen.map((e) => [e.app, e.instance])).toEqual([
      ['one', 'a'],
      ['two', 'b'],
      ['three', 'a'],
    ]);
    expect((await a.team.recent(2))!.map((e) => e.app)).toEqual(['three']);
    // A message that is no entry (another version's, a foreign writer's) is skipped.
    await raw.xadd('sb-test:requests', '*', 'i', 'x', 'e', '{"id": 5}');
    expect((await b.team.recent(10))!).toHaveLength(3);
    expect(b.team.counts.malformed).toBe(1);
  });

  it("follow() gets the other instance's new entries (not its own), and the stream is read only while followed", async () => {
    const a = await instance('a');
    const b = await instance('b');
    const before = await xreads();
    a.log.add(entry({ app: 'unwatched' }));
    a.log.deliver();
    await a.team.flush();
    await new Promise((r) => setTimeout(r, 300));
    expect(await xreads()).toBe(before); // nobody follows: nothing reads
    const got: string[] = [];
    const off = b.team.follow((e) => got.push(e.app ?? ''));
    await until(async () => (await xreads()) > before);
    a.log.add(entry({ app: 'watched' }));
    b.log.add(entry({ app: 'its own' }));
    await until(() => got.length >= 1);
    await new Promise((r) => setTimeout(r, 200));
    expect(got).toEqual(['watched']);
    off();
    await new Promise((r) => setTimeout(r, 1_300)); // the reader's block ends
    const stopped = await xreads();
    await new Promise((r) => setTimeout(r, 1_200));
    expect(await xreads()).toBe(stopped);
  });

  it('history() lists the newest first, pages back by entry id and by time', async () => {
    const a = await instance('a');
    const made: RequestLogEntry[] = [];
    for (let i = 0; i < 7; i++) {
      const e = entry({ app: `app-${i}` });
      made.push(e);
      a.log.add(e);
      a.log.deliver();
      await a.team.flush();
    }
    const all = (await a.team.history(100, null))!;
    expect(all.entries.map((e) => e.app)).toEqual(made.map((e) => e.app).reverse());
    expect(all.more).toBe(false);
    const page = (await a.team.history(3, null))!;
    expect(page).toMatchObject({ more: true });
    const next = (await a.team.history(3, { id: page.entries[2]!.id }))!;
    expect(next.entries.map((e) => e.app)).toEqual(['app-3', 'app-2', 'app-1']);
    expect((await a.team.history(100, { time: 0 }))!.entries).toEqual([]);
    expect((await a.team.history(100, { time: Date.now() + 60_000 }))!.entries).toHaveLength(7);
  });

  it('Redis down: entries wait (their age is the lag) and are added once it is back; past the bound the oldest are dropped', async () => {
    const a = await instance('a', { pendingMax: 3 });
    await redis.kill();
    await until(() => !a.conn.isUp());
    for (let i = 0; i < 5; i++) a.log.add(entry({ app: `down-${i}` }));
    a.log.deliver();
    await new Promise((r) => setTimeout(r, 50));
    expect(a.team.queue()).toMatchObject({ waiting: 3, dropped: 2 });
    expect(a.team.queue().lagSeconds).toBeGreaterThan(0.04);
    expect(await a.team.recent(10)).toBeNull();
    await redis.restart();
    await until(() => a.conn.isUp());
    await until(() => a.team.queue().waiting === 0);
    expect((await a.team.recent(10))!.map((e) => e.app)).toEqual(['down-2', 'down-3', 'down-4']);
  });

  it('trims the stream to about maxLen entries', async () => {
    const a = await instance('a', { maxLen: 100 });
    for (let i = 0; i < 400; i++) a.log.add(entry());
    a.log.deliver();
    await a.team.flush();
    expect(await raw.xlen('sb-test:requests')).toBeLessThan(250);
  });
});
