// The team's usage on Redis (store "redis", issue 36): two instances, each an engine with its request log and its usage
// service on its own folder, their team usage (main/usage/team.ts) on one real Redis through the Redis rollups
// (main/usage/team-redis.ts). A request is counted once, by the instance that served it, and read back by any:
// totals, by app, by key, by instance; the raw records through the request stream; a budget naming a key refuses on
// every instance once the team has spent it; a batch sent twice counts once; Redis down: the batches wait, are added
// once when it is back, and the summary says it is this instance's own meanwhile.
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RequestLogEntry } from '../../shared/admin.ts';
import { type Config, parseConfig } from '../../shared/config.ts';
import { startRedis, type TestRedis } from '../../test/support/redis.ts';
import { makeTempDir, type TempDir } from '../../test/support/temp.ts';
import { ApiError } from '../errors.ts';
import { RequestLog } from '../observability/request-log.ts';
import { Engine } from '../proxy/engine.ts';
import { newLogEntry } from '../proxy/request.ts';
import { connectRedis, type RedisConnection } from '../store/redis-connection.ts';
import { TeamLog } from '../store/team-log.ts';
import { RedisTeamRollups } from './team-redis.ts';
import { Notifier } from './notifier.ts';
import { UsageService } from './service.ts';
import type { TeamUsage } from './team.ts';

let redis: TestRedis;
let raw: Redis;
let temp: TempDir;
beforeAll(async () => {
  redis = await startRedis();
  raw = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  raw.on('error', () => {});
  temp = await makeTempDir('team-usage');
});
afterAll(async () => {
  raw.disconnect();
  await redis.stop();
  await temp.cleanup();
});

const PREFIX = 'team-usage:';

function configOf(budgets: unknown[] = [{ period: 'day', limit_usd: 1000 }]): Config {
  const r = parseConfig({
    providers: [{ name: 'mock', base_url: 'http://127.0.0.1:9/v1', api_key: 'k' }],
    routing: { default_provider: 'mock', rules: [] },
    prices: [{ provider: 'mock', input: 1, output: 2 }],
    budgets,
  });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.config;
}

type Instance = {
  name: string;
  engine: Engine;
  usage: UsageService;
  team: TeamUsage;
  log: TeamLog;
  conn: RedisConnection;
  close(): Promise<void>;
};
const running: Instance[] = [];

async function instance(name: string, dir: string, config = configOf()): Promise<Instance> {
  const engine = new Engine(config, '/tmp/config.json', new RequestLog(100));
  engine.requestLog.instance = name;
  const usage = await UsageService.open({
    engine,
    config: () => config,
    dir,
    notifier: new Notifier(() => config.notifications),
    flushMs: 10,
  });
  const conn = connectRedis({ kind: 'redis', url: redis.url, prefix: PREFIX });
  while (!conn.isUp()) await new Promise((r) => setTimeout(r, 20));
  const log = new TeamLog({ redis: conn, log: engine.requestLog, instance: name });
  const team = usage.attachTeam(
    new RedisTeamRollups(conn, () => config.usage.rollup_days),
    name,
    async (limit, before) => {
      const h = await log.history(limit, before);
      return h && { data: h.entries.flatMap((e) => usage.usageRecordOf(e) ?? []), has_more: h.more };
    },
    50,
  );
  const i: Instance = {
    name,
    engine,
    usage,
    team,
    log,
    conn,
    close: async () => {
      await log.close();
      await usage.close();
      await conn.close();
      await engine.close();
      running.splice(running.indexOf(i), 1);
    },
  };
  running.push(i);
  return i;
}

afterEach(async () => {
  for (const i of [...running]) await i.close();
  await raw.flushall();
});

/** A request served by `i`, as a front door logs it: 1000 prompt and 500 completion tokens ($0.002 at the prices). */
function serve(i: Instance, over: Partial<RequestLogEntry> = {}): void {
  i.engine.requestLog.add({
    ...newLogEntry('/v1/chat/completions'),
    provider: 'mock',
    requested_model: 'gpt-4o-mini',
    routed_model: 'gpt-4o-mini',
    status: 200,
    prompt_tokens: 1000,
    completion_tokens: 500,
    ...over,
  });
  i.engine.requestLog.deliver();
}

async function until(cond: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('usage of a team on Redis', () => {
  it('counts each request once, by the instance that served it; any instance reads the team: by app, key, instance', async () => {
    const a = await instance('a', `${temp.dir}/1a`);
    const b = await instance('b', `${temp.dir}/1b`);
    serve(a, { app: 'cursor', key: 'alice' });
    serve(a, { app: 'aider', key: 'bob' });
    // a's entries are in the team's request stream before b serves its one, so "newest first" below is b's, then a's
    // (both flushed at once, the order in the stream was whichever write reached Redis first: it failed once on CI).
    await a.log.flush();
    serve(b, { app: 'cursor', key: 'alice' });
    // Each instance sends its own every flush (here 50 ms; FLUSH_MS, 500 ms, in a running Switchboard); a reader sends
    // its own before reading.
    await b.team.flush();
    for (const reader of [a, b]) {
      const s = await reader.usage.report('today');
      expect(s.scope).toBe('team');
      expect(s.totals).toMatchObject({ requests: 3, prompt_tokens: 3000, completion_tokens: 1500 });
      expect(s.totals.cost_usd).toBeCloseTo(0.006, 12);
      expect(Object.fromEntries(s.by_app.map((x) => [x.key, x.requests]))).toEqual({ cursor: 2, aider: 1 });
      expect(Object.fromEntries(s.by_key!.map((x) => [x.key, x.requests]))).toEqual({ alice: 2, bob: 1 });
      expect(Object.fromEntries(s.by_instance!.map((x) => [x.key, x.requests]))).toEqual({ a: 2, b: 1 });
      for (const range of ['1h', '24h', '7d', 'month'] as const)
        expect((await reader.usage.report(range)).totals.requests).toBe(3);
    }
    // Each instance's own files hold its own requests only (nobody reads the others').
    expect(a.usage.summary('today').totals.requests).toBe(2);
    expect(b.usage.summary('today').totals.requests).toBe(1);
    // The raw records of the team, newest first, through the request stream (each instance's entries added).
    await b.log.flush();
    const { data } = await b.usage.requests(10, null);
    expect(data.map((r) => [r.instance, r.key])).toEqual([
      ['b', 'alice'],
      ['a', 'bob'],
      ['a', 'alice'],
    ]);
    expect(data[0]!.cost_usd).toBeCloseTo(0.002, 12);
    const older = await b.usage.requests(10, { id: data[0]!.id });
    expect(older.data.map((r) => r.id)).toEqual(data.slice(1).map((r) => r.id));
  });

  it("a budget naming a key refuses that key's requests on every instance once the team has spent it", async () => {
    const budgets = [
      { key: 'alice', period: 'day', limit_usd: 0.005, enforce: true },
      { app: 'cursor', key: 'bob', period: 'month', limit_usd: 1, enforce: true },
    ];
    const a = await instance('a', `${temp.dir}/2a`, configOf(budgets));
    const b = await instance('b', `${temp.dir}/2b`, configOf(budgets));
    serve(a, { key: 'alice' });
    serve(b, { key: 'alice' });
    expect(() => a.engine.budgets!.check('x', 'alice')).not.toThrow();
    serve(a, { key: 'alice' }); // $0.006 across the two: spent
    const refused = (i: Instance) => {
      try {
        i.engine.budgets!.check('any-app', 'alice');
        return null;
      } catch (err) {
        return err as ApiError;
      }
    };
    await until(() => refused(a) !== null && refused(b) !== null, 3_000);
    expect(refused(b)).toMatchObject({ status: 402, code: 'budget_exceeded' });
    expect(refused(b)!.message).toContain('The daily budget of key "alice" ($0.0050) is spent: $0.0060 today.');
    expect(() => b.engine.budgets!.check('any-app', 'bob')).not.toThrow();
    expect(() => b.engine.budgets!.check('any-app', null)).not.toThrow();
    const states = (await b.usage.report('today')).budgets;
    expect(states[0]).toMatchObject({ key: 'alice', state: 'exceeded', spent_usd: expect.closeTo(0.006, 9) });
    expect(states[1]).toMatchObject({ app: 'cursor', key: 'bob', spent_usd: 0 });
  });

  it('a batch sent twice is counted once; Redis down: the batches wait, then count once; the summary is the instance’s own meanwhile', async () => {
    const a = await instance('a', `${temp.dir}/3a`);
    serve(a, { app: 'one' });
    await a.team.flush();
    const rollups = new RedisTeamRollups(a.conn, () => 400);
    const { Rollups } = await import('./rollups.ts');
    const batch = {
      id: 'batch-1',
      rollups: new Rollups(),
      instances: new Map(),
      spendDays: new Map([[new Date().toISOString().slice(0, 10), new Map([['*', 0.5]])]]),
      spendMonths: new Map(),
      records: 1,
      since: Date.now(),
    };
    const read = {
      date: new Date().toISOString().slice(0, 10),
      month: new Date().toISOString().slice(0, 7),
      fields: ['*'],
    };
    const first = await rollups.add(batch, read);
    const again = await rollups.add(batch, read);
    expect(again.day.get('*')).toBe(first.day.get('*'));

    await redis.kill();
    await until(() => !a.conn.isUp());
    serve(a, { app: 'two' });
    serve(a, { app: 'two' });
    await a.team.flush();
    expect(a.team.queue().waiting).toBe(2);
    const meanwhile = await a.usage.report('today');
    expect(meanwhile).toMatchObject({ scope: 'instance', totals: { requests: 3 } });
    await redis.restart(); // empty: no persistence in the test's Redis
    await until(() => a.conn.isUp());
    await until(() => a.team.queue().waiting === 0);
    const after = await a.usage.report('today');
    expect(after.scope).toBe('team');
    expect(Object.fromEntries(after.by_app.map((x) => [x.key, x.requests]))).toEqual({ two: 2 });
  });
});
