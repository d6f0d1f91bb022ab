// `npm run fuzz`: the fuzz suite's groups (test/fuzz/) with many more cases than `npm test` runs, against a real
// `switchboard serve`, then the counts: cases, 2xx, 4xx, 5xx, connections closed, timeouts, failures, crashes, and
// resident memory before and after. Exits non-zero when any case failed, the server logged an error, died, or
// kept its memory.
//
//   FUZZ_RUNS=<n>     cases per group (default: ten times each group's count in npm test)
//   FUZZ_SEED=<n>     the seed (default: the time; printed, so a run can be repeated)
//   FUZZ_GROUP=<name> one group only (bodies, schemas, encodings, limits, headers, paths, methods, auth, protocol)
//   FUZZ_CASE=<#>     with FUZZ_GROUP and FUZZ_SEED: replay that one case, printing the request and the answer
//   FUZZ_ROUTE=<text> only the cases whose route's path template contains the text (e.g. /v1/chat)
import { GROUPS, type Group } from '../test/fuzz/cases.ts';
import { describeAnswer, type GroupResult, IN_SUITE_RUNS, report, runGroup, warmUp } from '../test/fuzz/run.ts';
import { errorLines, residentBytes, startWorld } from '../test/fuzz/world.ts';

const env = process.env;
const seed = Number(env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const only = env.FUZZ_GROUP as Group | undefined;
if (only !== undefined && !GROUPS.includes(only)) throw new Error(`FUZZ_GROUP must be one of ${GROUPS.join(', ')}`);
const replay = env.FUZZ_CASE !== undefined ? Number(env.FUZZ_CASE) : undefined;
const runsOf = (g: Group) => (env.FUZZ_RUNS ? Number(env.FUZZ_RUNS) : IN_SUITE_RUNS[g] * 10);
const mb = (n: number) => `${(n / 1048576).toFixed(0)} MB`;

const world = await startWorld();
let ok = true;
try {
  await warmUp(world);
  await new Promise((r) => setTimeout(r, 1_000));
  const pid = world.serve.child.pid!;
  const baseline = await residentBytes(pid);
  let peak = baseline;
  console.log(`fuzz: seed ${seed}, serve pid ${pid}, RSS ${mb(baseline)} after warm-up`);
  const results: GroupResult[] = [];
  for (const group of only ? [only] : GROUPS) {
    const r = await runGroup(world, group, {
      seed,
      runs: runsOf(group),
      ...(replay !== undefined ? { only: replay } : {}),
      ...(env.FUZZ_ROUTE ? { route: env.FUZZ_ROUTE } : {}),
      onCase: (i, c, x, failure) => {
        if (replay === undefined) return;
        const r = c.request;
        const body = r.body.toString('latin1');
        console.log(`case #${i} (${c.group}, expect ${c.expect}, family ${c.family}): ${c.note}`);
        console.log(`${r.method} ${r.target} [${r.framing}]`);
        for (const [k, v] of r.headers) console.log(`${k}: ${v.length > 200 ? `${v.slice(0, 200)}…(${v.length})` : v}`);
        console.log(`body (${r.body.length} bytes): ${body.length > 2000 ? `${body.slice(0, 2000)}…` : body}`);
        console.log(`→ ${describeAnswer(x)}`);
        console.log(failure ? `FAILED: ${failure.problem}` : 'ok');
      },
    });
    results.push(r);
    peak = Math.max(peak, await residentBytes(pid));
    console.log(report(r, 20));
    if (r.failures.length || r.errorLines.length) ok = false;
  }
  // Each distinct error the server logged (its message and where it was raised), with how often.
  const distinct = new Map<string, number>();
  for (const { line } of errorLines(world.serve.stderr())) {
    const rec = JSON.parse(line) as { msg?: string; err?: { message?: string; stack?: string } };
    const at = /\n\s+at ([^\n]+)/.exec(rec.err?.stack ?? '')?.[1] ?? '';
    const key = `${rec.msg ?? ''}: ${rec.err?.message ?? ''} ${at}`;
    distinct.set(key, (distinct.get(key) ?? 0) + 1);
  }
  if (distinct.size) console.log(`\nerrors logged:\n${[...distinct].map(([k, n]) => `  ${n}× ${k}`).join('\n')}`);
  await new Promise((r) => setTimeout(r, 3_000));
  const alive = world.serve.child.exitCode === null && world.serve.child.signalCode === null;
  const health = alive ? (await fetch(`${world.serve.url}/api/v1/health`).catch(() => null))?.status : null;
  const after = alive ? await residentBytes(pid) : 0;
  const sum = (k: keyof GroupResult['counts']) => results.reduce((n, r) => n + r.counts[k], 0);
  const cases = results.reduce((n, r) => n + r.cases, 0);
  const failed = results.reduce((n, r) => n + r.failures.length, 0);
  const bound = baseline * 1.5 + 30 * 1048576;
  console.log(
    [
      '',
      `| seed | cases | 2xx | 4xx | 5xx | closed | timeouts | failed | error logs | crashes | RSS idle → peak → after |`,
      `|---|---|---|---|---|---|---|---|---|---|---|`,
      `| ${seed} | ${cases} | ${sum('2xx')} | ${sum('4xx')} | ${sum('5xx') + sum('5xx-provider')} | ${sum('closed')} | ` +
        `${sum('timeout')} | ${failed} | ${errorLines(world.serve.stderr()).length} | ${alive && health === 200 ? 0 : 1} | ` +
        `${mb(baseline)} → ${mb(peak)} → ${mb(after)} (bound ${mb(bound)}) |`,
    ].join('\n'),
  );
  if (!alive || health !== 200 || after > bound) ok = false;
} finally {
  await world.close();
}
process.exitCode = ok ? 0 : 1;
