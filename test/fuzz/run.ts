// Runs the fuzz suite's groups against a World: the cases of each group drawn by fast-check from one seed, sent over
// raw sockets a few at a time, each answer judged (verdict), and the counts kept. Shared by the bounded run in
// `npm test` (fuzz.serve.test.ts) and the long one (`npm run fuzz`, scripts/fuzz.ts).
import fc from 'fast-check';
import { type Case, caseArbitraries, type Group, GROUPS } from './cases.ts';
import { type Exchange, exchange } from './raw-http.ts';
import { ROUTES } from './routes.ts';
import { acceptedFamilies, isProviderFault, shapeProblem } from './shapes.ts';
import { errorLines, type World } from './world.ts';

export type Outcome = '2xx' | '3xx' | '4xx' | '5xx-provider' | '5xx' | 'closed' | 'timeout';

export type Failure = { index: number; case: Case; outcome: Outcome; problem: string; answer: string };

export type GroupResult = {
  group: Group;
  seed: number;
  /** How many cases the group drew. */
  runs: number;
  cases: number;
  counts: Record<Outcome, number>;
  failures: Failure[];
  /** Error-level lines the server logged while the group ran. */
  errorLines: string[];
  ms: number;
};

const QUIET_MS = 1_000;

/**
 * Cases per group in `npm test`: about 900 in all, some 15 s on a 2-core machine (`npm run fuzz` runs ten times as
 * many by default). Fewer where each case is heavy (limits: bodies over the limit).
 */
export const IN_SUITE_RUNS: Readonly<Record<Group, number>> = {
  bodies: 200,
  schemas: 120,
  encodings: 100,
  limits: 30,
  headers: 120,
  paths: 120,
  methods: 60,
  auth: 80,
  protocol: 80,
};

/** One valid request per route (its first seed), so lazy loading and first-call costs are paid before memory is measured. */
export async function warmUp(world: World): Promise<void> {
  const names: Record<string, string> = { agent: world.agentId, workflow: world.workflow, swarm: world.swarm };
  for (const route of ROUTES) {
    const seed = route.seeds({ config: world.config })[0];
    const target = route.template.replace(/\{(\w+)\}/g, (_, p: string) =>
      p === 'model' ? route.models[0]! : (names[p] ?? 'x'),
    );
    const headers: [string, string][] = [];
    if (route.auth === 'admin') headers.push(['Authorization', `Bearer ${world.adminToken}`]);
    if (route.auth === 'agent') headers.push(['X-Api-Key', world.agentKey]);
    const json = route.body === 'json' && !route.resets && seed !== undefined;
    if (json) headers.push(['Content-Type', 'application/json']);
    // The realtime route with a real handshake, so the WebSocket code is loaded before memory is measured.
    if (route.upgrade)
      headers.push(
        ['Connection', 'Upgrade'],
        ['Upgrade', 'websocket'],
        ['Sec-WebSocket-Version', '13'],
        ['Sec-WebSocket-Key', 'dGhlIHNhbXBsZSBub25jZQ=='],
        ['Sec-WebSocket-Protocol', 'realtime'],
      );
    const body = json ? Buffer.from(JSON.stringify(seed)) : Buffer.alloc(0);
    await exchange(world.port, {
      method: route.resets ? 'GET' : route.method,
      target,
      headers,
      body,
      framing: 'length',
    });
  }
}

const isJson = (ct: string | undefined) => /\bjson\b/i.test(ct ?? '');

/** What is wrong with the answer to a case (null: nothing), and its outcome class. */
export function verdict(c: Case, x: Exchange): { outcome: Outcome; problem: string | null } {
  if (x.kind === 'timeout') return { outcome: 'timeout', problem: `no answer in ${x.ms} ms` };
  if (x.kind === 'closed') {
    const ok = c.expect === 'protocol' || c.expect === 'hang-up';
    return { outcome: 'closed', problem: ok ? null : 'the connection closed without an answer' };
  }
  const { status, headers, body } = x.response;
  if (c.expect === 'hang-up') return { outcome: classOf(status), problem: null };
  const outcome = classOf(status);
  // A WebSocket handshake accepted (the realtime route) is that route's success, as a 2xx is another's.
  const success = (status >= 200 && status < 300) || (status === 101 && c.route.upgrade === true);
  if (success) {
    if (c.expect === 'too-large') return { outcome, problem: `${status} to a body over the limit (413 expected)` };
    if (c.expect === 'refused') return { outcome, problem: `${status} without a valid credential, Host or Origin` };
    if (c.expect === 'protocol') return { outcome, problem: `${status} to a malformed request` };
    return { outcome, problem: null };
  }
  // The UI's /ui redirects to /ui/ (its pages sit in a folder).
  if (status < 400) return { outcome, problem: c.family === 'ui' && status === 302 ? null : `unexpected ${status}` };
  if (status >= 500) {
    // A route that forwards may answer 502/503/504 when its provider is down, slow or broken; this world's providers
    // are mocks that are up and answer every request well-formed (or with a 4xx of their own), so here even those
    // are Switchboard's (an Expect header it passed on, refused by undici, was reported as the provider's 502).
    const provider = c.route.forwards && isProviderFault(c.family, status, parse(body));
    const why = provider ? 'blamed on the provider, but every provider here is a healthy mock' : 'a server error';
    return { outcome: provider ? '5xx-provider' : '5xx', problem: `${status}: ${why}` };
  }
  // A 404 refuses a path that names nothing (an agent an earlier case deleted) before its body is read: Node drops
  // the unread body, nothing is buffered, so the limit holds.
  if (c.expect === 'too-large' && status !== 413 && status !== 404)
    return { outcome, problem: `${status} to a body over the limit (413 expected)` };
  if (c.request.method === 'HEAD') return { outcome, problem: null };
  // The UI answers a missing asset in plain text, as a web server does; its guards' refusals are JSON.
  if (c.family === 'ui' && !isJson(headers['content-type'])) return { outcome, problem: null };
  if (!isJson(headers['content-type']))
    return {
      outcome,
      problem:
        `error body is not JSON (content-type ${headers['content-type'] ?? 'none'}, ${body.length} bytes)` +
        // Node's HTTP parser answers what it cannot parse itself, bare, unless the server handles 'clientError'.
        (body.length === 0 && !headers['content-type'] ? ": Node's bare refusal of a message it could not parse" : ''),
    };
  const parsed = parse(body);
  const families = acceptedFamilies(c.family, c.request.target, c.request.headers);
  const problems = families.map((f) => shapeProblem(f, parsed, status));
  if (problems.some((p) => p === null)) return { outcome, problem: null };
  return { outcome, problem: `not in ${families.join(' or ')}'s error shape: ${problems.join('; ')}` };
}

function classOf(status: number): Outcome {
  if (status < 300) return '2xx';
  if (status < 400) return '3xx';
  if (status < 500) return '4xx';
  return '5xx';
}

function parse(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** An answer in a line, for failure reports. */
export function describeAnswer(x: Exchange): string {
  if (x.kind !== 'response')
    return x.kind === 'timeout' ? `timeout after ${x.ms} ms` : `closed (${x.error ?? 'no error'})`;
  const r = x.response;
  return `${r.status} ${r.headers['content-type'] ?? '-'} ${r.body.toString('utf8').slice(0, 300)}`;
}

export type RunOptions = {
  seed: number;
  runs: number;
  /** Cases in flight at once (a case that changes the server's state runs alone). */
  concurrency?: number;
  /** Only this case of the group (replaying a failure). */
  only?: number;
  /** Only the cases whose route's path template contains this text (e.g. "/v1/chat"). */
  route?: string;
  onCase?: (index: number, c: Case, x: Exchange, failure: Failure | null) => void;
};

/** The cases of a group, as fast-check draws them from `seed` (the same seed gives the same cases). */
export function drawCases(world: World, group: Group, seed: number, runs: number): Case[] {
  const arb = caseArbitraries(world)[group];
  // Each group draws from its own seed, derived from the run's: one seed replays every group.
  return fc.sample(arb, { seed: (seed + GROUPS.indexOf(group) * 7919) | 0, numRuns: runs });
}

/** Runs one group: every case, its verdict, the counts, and the error lines logged meanwhile. */
export async function runGroup(world: World, group: Group, opts: RunOptions): Promise<GroupResult> {
  const t0 = Date.now();
  // Draws are prefix-stable: the first n cases of a seed are the same whatever the run count.
  const cases = drawCases(world, group, opts.seed, opts.only !== undefined ? opts.only + 1 : opts.runs);
  const counts: Record<Outcome, number> = {
    '2xx': 0,
    '3xx': 0,
    '4xx': 0,
    '5xx-provider': 0,
    '5xx': 0,
    closed: 0,
    timeout: 0,
  };
  const failures: Failure[] = [];
  let ran = 0;
  const logStart = world.serve.stderr().length;
  const concurrency = opts.concurrency ?? 4;
  const inFlight = new Set<Promise<void>>();
  const runOne = async (index: number, c: Case) => {
    const keepAlive = c.expect === 'too-large';
    const x = await exchange(world.port, c.request, { timeoutMs: 20_000, streamIdleMs: QUIET_MS, keepAlive });
    const v = verdict(c, x);
    counts[v.outcome]++;
    ran++;
    const failure = v.problem
      ? { index, case: c, outcome: v.outcome, problem: v.problem, answer: describeAnswer(x) }
      : null;
    if (failure) failures.push(failure);
    opts.onCase?.(index, c, x, failure);
    if (c.route.resets && x.kind === 'response' && x.response.status < 300) await world.reset();
  };
  for (let i = 0; i < cases.length; i++) {
    if (opts.only !== undefined && i !== opts.only) continue;
    const c = cases[i]!;
    if (opts.route !== undefined && !c.route.template.includes(opts.route)) continue;
    if (c.route.resets) {
      // A case that may change config.json or pause routing runs alone, and is undone before the next one.
      await Promise.all(inFlight);
      await runOne(i, c);
      continue;
    }
    const p: Promise<void> = runOne(i, c).finally(() => inFlight.delete(p));
    inFlight.add(p);
    if (inFlight.size >= concurrency) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
  world.forgetRecorded();
  // Give the server a moment to log what the last cases caused (a hang-up is seen after our socket closed).
  await new Promise((r) => setTimeout(r, 200));
  const lines = errorLines(world.serve.stderr().slice(logStart)).map((l) => l.line);
  return {
    group,
    seed: opts.seed,
    runs: opts.runs,
    cases: ran,
    counts,
    failures,
    errorLines: lines,
    ms: Date.now() - t0,
  };
}

/** A group's failures as text: seed and index to replay each, the case, and the answer. */
export function report(r: GroupResult, max = 8): string {
  const lines = [
    `group ${r.group}: ${r.cases} cases, seed ${r.seed}; ${JSON.stringify(r.counts)}; ${r.failures.length} failed, ${r.errorLines.length} error-level log lines`,
  ];
  for (const f of r.failures.slice(0, max)) {
    const t = f.case.request.target;
    lines.push(
      `  #${f.index} ${f.case.request.method} ${t.length > 100 ? `${t.slice(0, 100)}…(${t.length})` : t} [${f.case.note.slice(0, 160)}]`,
      `     → ${f.problem}: ${f.answer.slice(0, 300)}`,
    );
  }
  if (r.failures.length > max) lines.push(`  … and ${r.failures.length - max} more`);
  for (const l of r.errorLines.slice(0, 4)) lines.push(`  log: ${l.slice(0, 300)}`);
  lines.push(`  replay one: FUZZ_SEED=${r.seed} FUZZ_GROUP=${r.group} FUZZ_CASE=<#> npm run fuzz`);
  return lines.join('\n');
}
