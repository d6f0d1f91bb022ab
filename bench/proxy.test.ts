// The proxy bench's harness, run tiny (floor and direct only) so it cannot rot between real runs.
import { readdirSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { BOUNDS, main, makeTargets, requestBody, type TargetResult } from './proxy.ts';
import { benchFiles } from './run.ts';

/** Pids whose parent is this process, from /proc. */
function childPids(): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === process.pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

it('sends a realistic 1 KB chat request', () => {
  for (const stream of [false, true]) {
    const body = requestBody(stream);
    expect(Buffer.byteLength(body)).toBe(1024);
    expect(JSON.parse(body)).toMatchObject({ model: 'gpt-4o-mini', messages: [{ role: 'system' }, { role: 'user' }] });
    expect(JSON.parse(body).stream).toBe(stream ? true : undefined);
  }
});

it('runs only bench modules, never the servers or the tests', async () => {
  const files = await benchFiles();
  expect(files).toContain('proxy.ts');
  for (const skipped of ['run.ts', 'floor.ts', 'mock-server.ts', 'proxy.test.ts', 'floor.test.ts'])
    expect(files).not.toContain(skipped);
});

it('measures direct and floor, returns the figures and a table, and leaves no child behind', async () => {
  const before = childPids();
  const result = await main({
    warmupSec: 0,
    durationSec: 0.4,
    connections: [1, 4],
    streams: 5,
    streamWarmup: 1,
    switchboard: false,
  });
  expect(result.measured.map((t) => t.target)).toEqual(['direct', 'floor']);
  const [direct, floor] = result.measured;
  for (const t of [direct!, floor!]) {
    expect(t.load.map((l) => l.connections)).toEqual([1, 4]);
    expect(t.load.every((l) => l.requestsPerSec > 0 && l.errors === 0 && l.non2xx === 0 && l.p50Ms > 0)).toBe(true);
    expect(t.streamTtfbMs).toBeGreaterThan(0);
  }
  expect(direct!.cpuUsPerRequest).toBeNull();
  expect(floor!.cpuUsPerRequest).toBeGreaterThan(0);
  expect(floor!.peakRssMiB).toBeGreaterThan(10);
  expect(result.pass).toBeNull();
  expect(result.targets).toEqual([]);
  expect(result.switchboardSkipped).toMatch(/turned off/);
  expect(result.table).toContain('| floor ÷ direct |');
  expect(childPids()).toEqual(before);
}, 60_000);

it("returns issue 17's four proxy targets, Switchboard ÷ floor, each with its bound and whether it holds", () => {
  const side = (
    target: 'floor' | 'switchboard',
    rps: number,
    cpu: number,
    rss: number,
    ttfb: number,
  ): TargetResult => ({
    target,
    label: target,
    baseUrl: '',
    load: [{ connections: 64, requestsPerSec: rps, p50Ms: 1, p99Ms: 2, completed: 100, errors: 0, non2xx: 0 }],
    cpuUsPerRequest: cpu,
    streamTtfbMs: ttfb,
    peakRssMiB: rss,
  });
  const opts = { connections: [1, 64] } as Parameters<typeof makeTargets>[2];
  const floor = side('floor', 1000, 100, 60, 2);
  // Exactly at each bound holds; just past it does not.
  const at = makeTargets(floor, side('switchboard', 850, 120, 78, 2.2), opts);
  expect(at.map((t) => [t.target, t.bound, t.holds])).toEqual([
    ['CPU per request at concurrency 64', `≤ ${BOUNDS.cpu}× the floor`, true],
    ['requests per second at concurrency 64', `≥ ${BOUNDS.rps}× the floor`, true],
    ['peak RSS under the proxy bench', `≤ ${BOUNDS.rss}× the floor`, true],
    ['stream time to first byte', `≤ ${BOUNDS.ttfb}× the floor`, true],
  ]);
  expect(at[0]!.measured).toBe('120 µs vs 100 µs');
  expect(at[0]!.ratio).toBeCloseTo(1.2);
  const past = makeTargets(floor, side('switchboard', 849, 121, 79, 2.23), opts);
  expect(past.map((t) => t.holds)).toEqual([false, false, false, false]);
  expect(makeTargets(floor, undefined, opts)).toEqual([]);
});
