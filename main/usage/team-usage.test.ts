// The usage store of a team (store "redis"): two instances, each an engine with its request log, its usage service
// on its own folder and its TeamLog (main/store/team-log.ts) on one real Redis (test/support/redis.ts), a mock
// provider (a real HTTP server) behind both. A request served by A is counted by A once and by B once, in B's
// summary, records and budgets; B restarted (kill-like: its store reopened from disk) catches up without counting
// anything twice, and what the team did while B was down shows once B is back.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Config, parseConfig } from '../../shared/config.ts';
import { defaultBehaviorBeforeEach } from '../../test/support/lifecycle.ts';
import { type MockProvider, startMockProvider } from '../../test/support/mock-provider.ts';
import { startRedis, type TestRedis } from '../../test/support/redis.ts';
import { makeTempDir, type TempDir } from '../../test/support/temp.ts';
import { RequestLog } from '../observability/request-log.ts';
import { Engine } from '../proxy/engine.ts';
import { chatInProcess } from '../proxy/in-process.ts';
import { connectRedis, type RedisConnection } from '../store/redis-connection.ts';
import { TeamLog } from '../store/team-log.ts';
import { Notifier } from './notifier.ts';
import { UsageService } from './service.ts';

let mock: MockProvider;
let redis: TestRedis;
let raw: Redis;
let temp: TempDir;
beforeAll(async () => {
  mock = await startMockProvider({ name: 'mock' });
  redis = await startRedis();
  raw = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  raw.on('error', () => {});
  temp = await makeTempDir('team-usage');
});
afterAll(async () => {
  raw.disconnect();
  await redis.stop();
  await mock.close();
  await temp.cleanup();
});
defaultBehaviorBeforeEach(() => [mock]);

function configOf(): Config {
  const r = parseConfig({
    providers: [{ name: 'mock', base_url: mock.baseUrl, api_key: 'k' }],
    routing: { default_provider: 'mock', rules: [] },
    prices: [{ provider: 'mock', input: 1, output: 2 }],
    budgets: [{ period: 'day', limit_usd: 1000 }],
  });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.config;
}

type Instance = { engine: Engine; usage: UsageService; team: TeamLog; conn: RedisConnection; close(): Promise<void> };
const running: Instance[] = [];

async function instance(name: string, dir: string): Promise<Instance> {
  const config = configOf();
  const engine = new Engine(config, '/tmp/config.json', new RequestLog(100));
  const usage = await UsageService.open({
    engine,
    config: () => config,
    dir,
    notifier: new Notifier(() => config.notifications),
    flushMs: 10,
  });
  const conn = connectRedis({ kind: 'redis', url: redis.url, prefix: 'team-usage:' });
  while (!conn.isUp()) await new Promise((r) => setTimeout(r, 20));
  const team = await TeamLog.start({
    redis: conn,
    log: engine.requestLog,
    instance: `${name}-${randomUUID()}`,
    counted: () => usage.store.raw.backward(),
  });
  const i: Instance = {
    engine,
    usage,
    team,
    conn,
    close: async () => {
      await team.close();
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

async function chat(i: Instance, app: string): Promise<void> {
  for await (const c of chatInProcess(
    i.engine,
    { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
    { app },
  ))
    void c;
}

async function until(cond: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const requestsOf = (i: Instance) => i.usage.summary('today').totals.requests;

describe('usage of a team on Redis', () => {
  it("counts A's requests in B's summary, records and budgets once, and A's once", async () => {
    mock.setBehavior({ usage: { prompt_tokens: 1000, completion_tokens: 500 } });
    const a = await instance('a', `${temp.dir}/1a`);
    const b = await instance('b', `${temp.dir}/1b`);
    await chat(a, 'cursor');
    await chat(a, 'aider');
    await until(() => requestsOf(b) === 2);
    await new Promise((r) => setTimeout(r, 1_200)); // a reader's block: nothing more arrives
    expect(requestsOf(a)).toBe(2);
    expect(requestsOf(b)).toBe(2);
    const s = b.usage.summary('today');
    expect(s.totals).toMatchObject({ prompt_tokens: 2000, completion_tokens: 1000 });
    expect(s.totals.cost_usd).toBeCloseTo((2 * (1000 * 1 + 500 * 2)) / 1e6, 12);
    expect(s.by_app.map((x) => x.key).sort()).toEqual(['aider', 'cursor']);
    const { data } = await b.usage.requests(10, null);
    expect(data.map((r) => r.app)).toEqual(['aider', 'cursor']);
    // The budget of B counts the team's spend.
    expect(b.usage.budgets.states()[0]).toMatchObject({ spent_usd: expect.closeTo(0.004, 9) });
  });

  it('a restarted instance counts nothing twice and catches up with what the team did while it was down', async () => {
    const a = await instance('a', `${temp.dir}/2a`);
    let b = await instance('b', `${temp.dir}/2b`);
    await chat(a, 'one');
    await chat(b, 'two');
    await until(() => requestsOf(b) === 2 && requestsOf(a) === 2);
    await b.close();
    await chat(a, 'three'); // while B is down
    await a.team.flush();
    b = await instance('b', `${temp.dir}/2b`);
    await until(() => requestsOf(b) === 3);
    await new Promise((r) => setTimeout(r, 1_200));
    expect(requestsOf(b)).toBe(3);
    expect(b.team.counts.duplicates).toBe(2); // "one" and "two" were in B's files: skipped
    const apps = (await b.usage.requests(10, null)).data.map((r) => r.app);
    expect(apps.sort()).toEqual(['one', 'three', 'two']);
    await chat(b, 'four');
    await until(() => requestsOf(a) === 4);
    expect(requestsOf(b)).toBe(4);
  });
});
