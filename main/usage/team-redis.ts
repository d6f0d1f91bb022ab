// The team's usage rollups in Redis (store "redis", issue 36; main/usage/team.ts batches and reads them). Each
// rollup bucket is one hash whose fields are `<cell key>\u0002<field index>` (the cell key as the usage store makes it:
// app × provider × model × credential; the index into rollups.ts FIELDS), counted with HINCRBY (HINCRBYFLOAT for
// cost and latency):
//   <prefix>{usage}:m:<minute>   per UTC minute, kept ~2 days      <prefix>{usage}:h:<hour>  per UTC hour, ~60 days
//   <prefix>{usage}:d:<date>     per local day, usage.rollup_days  <prefix>{usage}:s:<date>  sessions per day, 60 days
//   <prefix>{usage}:i:<date>     instances per day (field <instance>\u0002<index>)
//   <prefix>{usage}:spend:d:<date>, :spend:m:<YYYY-MM>   the budgets' spend counters (`*`, `a:<app>`, `k:<key>`…)
//   <prefix>{usage}:batch:<id>   a batch applied (kept an hour): the same batch sent again is not counted twice
// One script run per batch adds every counter it changes and reads the budgets' counters back; `{usage}` is a hash
// tag, so on a Redis Cluster every key of it is in one slot. Loaded only when the store is Redis.
import type { UsageTotals } from '../../shared/usage.ts';
import { DAY } from './periods.ts';
import { emptyTotals, FIELDS, HOURS_KEPT_MS, MINUTES_KEPT_MS, Rollups, SESSION_DAYS_KEPT } from './rollups.ts';
import type { SpendAnswer, SpendRead, TeamRollups, UsageBatch, UsageBuckets } from './team.ts';
import type { RedisConnection } from '../store/redis-connection.ts';

/** KEYS[1] the batch's marker, KEYS[2..n+1] the hashes added to, KEYS[n+2..n+3] the spend hashes read. See add(). */
const FLUSH = `local n = tonumber(ARGV[1])
local fresh = false
if ARGV[2] ~= '0' then fresh = redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[2]) end
local a = 3
for i = 1, n do
  local key = KEYS[i + 1]
  local life = ARGV[a]
  local c = tonumber(ARGV[a + 1])
  a = a + 2
  if fresh then
    for j = 0, c - 1 do
      local f, v = ARGV[a + 2 * j], ARGV[a + 2 * j + 1]
      if string.byte(v, 1) == 102 then redis.call('HINCRBYFLOAT', key, f, string.sub(v, 2))
      else redis.call('HINCRBY', key, f, v) end
    end
    redis.call('PEXPIRE', key, life)
  end
  a = a + 2 * c
end
local r = tonumber(ARGV[a])
if r == 0 then return {{}, {}} end
local fields = {}
for j = 1, r do fields[j] = ARGV[a + j] end
return {redis.call('HMGET', KEYS[n + 2], unpack(fields)), redis.call('HMGET', KEYS[n + 3], unpack(fields))}`;

type Flush = { sbUsageFlush(...args: (string | number)[]): Promise<[(string | null)[], (string | null)[]]> };

/** The cell field's separator from the field index. */
const SEP = '\u0002';
/** The totals' fields added as floats (HINCRBYFLOAT): the others are whole numbers. */
const FLOATS = new Set<string>(['cost_usd', 'latency_ms_sum']);
/** How long a batch's marker is kept: a batch sent again later than this would count twice (it never is). */
const MARKER_MS = 60 * 60_000;
const SPEND_DAY_MS = 3 * DAY;
const SPEND_MONTH_MS = 40 * DAY;

export class RedisTeamRollups implements TeamRollups {
  private readonly r: RedisConnection['client'] & Flush;

  constructor(
    private readonly conn: RedisConnection,
    private readonly rollupDays: () => number,
  ) {
    const client = conn.client as RedisConnection['client'] & Partial<Flush>;
    // No fixed number of keys: the first argument says how many (the batch's hashes vary).
    if (!client.sbUsageFlush) client.defineCommand('sbUsageFlush', { lua: FLUSH });
    this.r = client as RedisConnection['client'] & Flush;
  }

  private key(kind: string, bucket: string | number): string {
    return `${this.conn.prefix}{usage}:${kind}:${bucket}`;
  }

  private unreachable(): Error {
    return new Error(`Redis at ${this.conn.safeUrl} is ${this.conn.isUp() ? 'slow' : 'not reachable'}`);
  }

  async add(batch: UsageBatch | null, read: SpendRead): Promise<SpendAnswer> {
    if (!this.conn.usable()) throw this.unreachable();
    const keys: string[] = [batch ? this.key('batch', batch.id) : this.key('batch', 'none')];
    const hashes: (string | number)[] = [];
    let n = 0;
    const hash = (key: string, lifeMs: number, pairs: (string | number)[]) => {
      if (pairs.length === 0) return;
      keys.push(key);
      hashes.push(lifeMs, pairs.length / 2, ...pairs);
      n++;
    };
    if (batch) {
      const days = this.rollupDays() * DAY + 2 * DAY;
      const cellPairs = (cells: Map<string, UsageTotals>) => {
        const pairs: (string | number)[] = [];
        for (const [cell, t] of cells)
          FIELDS.forEach((f, i) => {
            const v = t[f];
            if (v !== 0) pairs.push(`${cell}${SEP}${i}`, FLOATS.has(f) ? `f${v}` : v);
          });
        return pairs;
      };
      const r = batch.rollups;
      for (const [m, cells] of r.minute.buckets) hash(this.key('m', m), MINUTES_KEPT_MS + DAY, cellPairs(cells));
      for (const [h, cells] of r.hour.buckets) hash(this.key('h', h), HOURS_KEPT_MS + DAY, cellPairs(cells));
      for (const [d, cells] of r.day.buckets) hash(this.key('d', d), days, cellPairs(cells));
      for (const [d, cells] of r.session.buckets)
        hash(this.key('s', d), SESSION_DAYS_KEPT * DAY + 2 * DAY, cellPairs(cells));
      for (const [d, cells] of batch.instances) hash(this.key('i', d), days, cellPairs(cells));
      const spend = (m: Map<string, number>) => [...m].flatMap(([f, v]) => [f, `f${v}`]);
      for (const [d, m] of batch.spendDays) hash(this.key('spend:d', d), SPEND_DAY_MS, spend(m));
      for (const [mo, m] of batch.spendMonths) hash(this.key('spend:m', mo), SPEND_MONTH_MS, spend(m));
    }
    keys.push(this.key('spend:d', read.date), this.key('spend:m', read.month));
    const [day, month] = await this.r.sbUsageFlush(
      keys.length,
      ...keys,
      n,
      batch ? MARKER_MS : 0,
      ...hashes,
      read.fields.length,
      ...read.fields,
    );
    const answer = (values: (string | null)[]) => {
      const out = new Map<string, number>();
      read.fields.forEach((f, i) => out.set(f, Number(values[i] ?? 0)));
      return out;
    };
    return { day: answer(day), month: answer(month) };
  }

  async read(buckets: UsageBuckets): Promise<{ rollups: Rollups; instances: Map<string, UsageTotals> }> {
    if (!this.conn.isUp()) throw this.unreachable();
    const p = this.conn.client.pipeline();
    for (const m of buckets.minutes) p.hgetall(this.key('m', m));
    for (const h of buckets.hours) p.hgetall(this.key('h', h));
    for (const d of buckets.days) p.hgetall(this.key('d', d));
    for (const d of buckets.sessionDays) p.hgetall(this.key('s', d));
    for (const d of buckets.sessionDays) p.hgetall(this.key('i', d));
    const results = (await p.exec()) ?? [];
    let i = 0;
    const next = (): Record<string, string> => {
      const [err, value] = results[i++] ?? [new Error('no reply'), null];
      if (err) throw err;
      return (value ?? {}) as Record<string, string>;
    };
    const rollups = new Rollups();
    for (const m of buckets.minutes) put(rollups.minute.buckets, m, next());
    for (const h of buckets.hours) put(rollups.hour.buckets, h, next());
    for (const d of buckets.days) put(rollups.day.buckets, d, next());
    for (const d of buckets.sessionDays) put(rollups.session.buckets, d, next());
    const instances = new Map<string, UsageTotals>();
    for (const _ of buckets.sessionDays) {
      void _;
      const byInstance = new Map<string, UsageTotals>();
      cells(next(), byInstance);
      for (const [name, t] of byInstance) {
        const sum = instances.get(name);
        if (!sum) instances.set(name, t);
        else for (const f of FIELDS) sum[f] += t[f];
      }
    }
    return { rollups, instances };
  }
}

/** A hash's fields (`<cell>\u0002<index>` → number) into totals by cell. */
function cells(fields: Record<string, string>, into: Map<string, UsageTotals>): void {
  for (const [field, value] of Object.entries(fields)) {
    const cut = field.lastIndexOf(SEP);
    const name = FIELDS[Number(field.slice(cut + 1))];
    const v = Number(value);
    if (cut < 0 || name === undefined || !Number.isFinite(v)) continue; // not ours: skipped
    const cell = field.slice(0, cut);
    let t = into.get(cell);
    if (!t) into.set(cell, (t = emptyTotals()));
    t[name] = v;
  }
}

function put<B>(buckets: Map<B, Map<string, UsageTotals>>, bucket: B, fields: Record<string, string>): void {
  const byCell = new Map<string, UsageTotals>();
  cells(fields, byCell);
  if (byCell.size) buckets.set(bucket, byCell);
}
