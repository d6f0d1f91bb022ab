// The team's request log on a real Redis (test/support/redis.ts): two request logs, as two instances would have, each
// with its TeamLog on one Redis. An entry served by A shows in B's log (and to B's team subscribers, not its local
// ones), once; a restarted instance catches up without counting twice; entries made while Redis is down reach the
// others once it is back; malformed messages are skipped; the stream is trimmed.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RequestLogEntry } from '../../shared/admin.ts';
import { startRedis, type TestRedis } from '../../test/support/redis.ts';
import { RequestLog } from '../observability/request-log.ts';
import { newLogEntry } from '../proxy/request.ts';
import { connectRedis, type RedisConnection } from './redis-connection.ts';
import { CATCH_UP_MARGIN_MS, TeamLog, type TeamLogOptions } from './team-log.ts';

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
  await raw.flushall();
});

type Instance = { log: RequestLog; team: TeamLog; conn: RedisConnection };

async function instance(
  name: string,
  extra: Partial<TeamLogOptions> = {},
  log = new RequestLog(100),
  prefix = 'sb-test:',
): Promise<Instance> {
  const conn = connectRedis({ kind: 'redis', url: redis.url, prefix });
  await until(() => conn.isUp());
  const team = await TeamLog.start({ redis: conn, log, instance: `${name}-${randomUUID()}`, ...extra });
  open.push(conn, team);
  return { log, team, conn };
}

function entry(over: Partial<RequestLogEntry> = {}): RequestLogEntry {
  return {
    ...newLogEntry('/v1/chat/completions'),
    provider: 'mock',
    routed_model: 'gpt-4o-mini',
    status: 200,
    prompt_tokens: 3,
    ...over,
  };
}

async function until(cond: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const ids = (log: RequestLog) => log.recent().map((e) => e.id);

describe('TeamLog', () => {
  it("shows an entry served by A in B's log once, to B's team subscribers only; A keeps it once", async () => {
    const a = await instance('a');
    const b = await instance('b');
    const teamSeen: string[] = [];
    const localSeen: string[] = [];
    b.log.subscribe((e) => teamSeen.push(e.id), 'team');
    b.log.subscribe((e) => localSeen.push(e.id));
    const e = entry({ app: 'cursor' });
    a.log.add(e);
    await until(() => ids(b.log).includes(e.id));
    expect(b.log.recent()).toEqual([e]);
    expect(teamSeen).toEqual([e.id]);
    expect(localSeen).toEqual([]);
    await new Promise((r) => setTimeout(r, 1_200)); // a block of the reader: A does not read its own back
    expect(ids(a.log)).toEqual([e.id]);
    expect(a.team.counts).toMatchObject({ published: 1, received: 0 });
    expect(b.team.counts).toMatchObject({ published: 0, received: 1 });
    expect(await raw.xlen('sb-test:requests')).toBe(1);
  });

  it('catches up after a restart from its newest counted record, skipping what it already counted', async () => {
    const a = await instance('a');
    const counted: RequestLogEntry[] = [];
    const bLog = new RequestLog(100);
    bLog.subscribe((e) => counted.push(e), 'team');
    const b1 = await instance('b', {}, bLog);
    const before = entry();
    a.log.add(before);
    await until(() => counted.length === 1);
    await b1.team.close();
    // While B is down: two entries; the first reached B's raw file before it died (its store says so), the second not.
    const inFile = entry();
    const missed = entry();
    a.log.add(inFile);
    a.log.add(missed);
    await a.team.flush();
    const store = [inFile, before].map((e) => ({ id: e.id, time: e.time })); // newest first, as the raw files give
    const b2 = await instance(
      'b',
      {
        counted: async function* () {
          yield* store;
        },
      },
      bLog,
    );
    await until(() => counted.length === 2);
    await new Promise((r) => setTimeout(r, 300));
    expect(counted.map((e) => e.id)).toEqual([before.id, missed.id]);
    expect(b2.team.counts).toMatchObject({ received: 1, duplicates: 2 });
  });

  it('says when the stream was trimmed past where a restarted instance stopped', async () => {
    const a = await instance('a', { maxLen: 100 });
    const old = entry({ time: new Date(Date.now() - 60 * 60_000).toISOString() });
    const counted = async function* () {
      yield { id: old.id, time: old.time };
    };
    for (let i = 0; i < 500; i++) a.log.add(entry());
    await until(() => a.team.counts.published === 500);
    const b = await instance('b', { counted });
    await until(() => b.log.recent().length > 0);
    expect(b.team.gap).not.toBeNull();
    const fresh = await instance('c', { counted: async function* () {} });
    await until(() => fresh.log.recent().length > 0);
    expect(fresh.team.gap).toBeNull(); // a new instance reads what there is: no gap of its own
  });

  it("starts reading from the newest record's time, even when a long request's record was written last", async () => {
    const now = Date.now();
    const long = { id: 'long', time: new Date(now - 60 * 60_000).toISOString() };
    const recent = { id: 'recent', time: new Date(now - 60_000).toISOString() };
    const b = await instance('b', {
      counted: async function* () {
        yield long; // ended last, started an hour ago
        yield recent;
      },
    });
    expect(b.team.lastId).toBe(`${now - 60_000 - CATCH_UP_MARGIN_MS}-0`);
    await raw.xadd('sb-test:requests', '*', 'i', 'x', 'e', JSON.stringify(entry({ id: 'long' })));
    const fresh = entry();
    await raw.xadd('sb-test:requests', '*', 'i', 'x', 'e', JSON.stringify(fresh));
    await until(() => b.log.recent().length === 1);
    expect(ids(b.log)).toEqual([fresh.id]);
  });

  it('a new instance (no records) reads the whole stream', async () => {
    const a = await instance('a');
    const es = [entry(), entry(), entry()];
    for (const e of es) a.log.add(e);
    await a.team.flush();
    const c = await instance('c');
    await until(() => c.log.recent().length === 3);
    expect(ids(c.log)).toEqual(es.map((e) => e.id));
  });

  it('keeps entries made while Redis is down and adds them once it is back; the reader resumes', async () => {
    const a = await instance('a');
    const b = await instance('b');
    const first = entry();
    a.log.add(first);
    await until(() => ids(b.log).includes(first.id));
    await redis.kill();
    await until(() => !a.conn.isUp());
    const during = [entry(), entry()];
    for (const e of during) a.log.add(e);
    await new Promise((r) => setTimeout(r, 600));
    expect(a.team.waiting).toBe(2);
    await redis.restart();
    await until(() => b.log.recent().length === 3, 10_000);
    expect(ids(b.log)).toEqual([first.id, ...during.map((e) => e.id)]);
    expect(a.team.waiting).toBe(0);
  });

  it('adds its last entries again when Redis comes back without them; who had read them counts them once', async () => {
    const a = await instance('a');
    const b = await instance('b');
    const e = entry();
    a.log.add(e);
    await until(() => ids(b.log).includes(e.id));
    await redis.kill();
    await until(() => !a.conn.isUp());
    await redis.restart(); // empty: e is gone from Redis
    await until(() => a.team.counts.resent === 1, 10_000);
    const later = entry();
    a.log.add(later);
    await until(() => ids(b.log).includes(later.id), 10_000);
    expect(ids(b.log)).toEqual([e.id, later.id]); // e once
    expect(b.team.counts.duplicates).toBe(1);
    const c = await instance('c'); // started after: finds e in the stream again
    await until(() => c.log.recent().length === 2);
    expect(ids(c.log)).toEqual([e.id, later.id]);
  });

  it('adds nothing again when Redis comes back with its entries', async () => {
    const a = await instance('a');
    a.log.add(entry());
    await until(() => a.team.counts.published === 1);
    // A restart that keeps the data: the connection drops and comes back, the stream is still there.
    const events: boolean[] = [];
    a.conn.onChange((up) => events.push(up));
    await raw.client('KILL', 'TYPE', 'normal').catch(() => {});
    await until(() => events.length >= 2 && events.at(-1) === true, 10_000);
    expect(events[0]).toBe(false);
    await new Promise((r) => setTimeout(r, 300));
    expect(a.team.counts.resent).toBe(0);
    expect(await raw.xlen('sb-test:requests')).toBe(1);
  });

  it('skips a message that is not a request log entry, and reads on', async () => {
    const b = await instance('b');
    await raw.xadd('sb-test:requests', '*', 'i', 'foreign', 'e', '{"id":"x","status":"nope"}');
    await raw.xadd('sb-test:requests', '*', 'i', 'foreign', 'e', 'not json');
    const good = entry();
    await raw.xadd('sb-test:requests', '*', 'i', 'foreign', 'e', JSON.stringify(good));
    await until(() => b.log.recent().length === 1);
    expect(b.log.recent()[0]).toEqual(good);
    expect(b.team.counts.malformed).toBe(2);
  });

  it('counts an entry added twice once (a batch cut short by Redis dying is sent again)', async () => {
    const b = await instance('b');
    const e = entry();
    await raw.xadd('sb-test:requests', '*', 'i', 'a-1', 'e', JSON.stringify(e));
    await raw.xadd('sb-test:requests', '*', 'i', 'a-1', 'e', JSON.stringify(e));
    const next = entry();
    await raw.xadd('sb-test:requests', '*', 'i', 'a-1', 'e', JSON.stringify(next));
    await until(() => ids(b.log).includes(next.id));
    expect(ids(b.log)).toEqual([e.id, next.id]);
    expect(b.team.counts).toMatchObject({ received: 2, duplicates: 1 });
  });

  it('trims the stream (MAXLEN ~): it stays near its cap however much is added', async () => {
    const a = await instance('a', { maxLen: 100 });
    for (let i = 0; i < 1_000; i++) a.log.add(entry());
    await a.team.flush();
    await until(() => a.team.counts.published === 1_000);
    const len = await raw.xlen('sb-test:requests');
    expect(len).toBeGreaterThanOrEqual(100);
    expect(len).toBeLessThan(300); // ~: trimmed by whole nodes of 100 entries
  });

  it('bounds what waits for Redis: past pendingMax the oldest are dropped and counted', async () => {
    const a = await instance('a', { pendingMax: 5 }, new RequestLog(100), 'sb-drop:');
    await redis.kill();
    await until(() => !a.conn.isUp());
    for (let i = 0; i < 8; i++) a.log.add(entry());
    await new Promise((r) => setTimeout(r, 100));
    expect(a.team.waiting).toBe(5);
    expect(a.team.counts.dropped).toBe(3);
    await redis.restart();
    await until(() => a.team.waiting === 0, 10_000);
    expect(await raw.xlen('sb-drop:requests')).toBe(5);
  });
});
