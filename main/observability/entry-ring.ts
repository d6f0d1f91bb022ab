// The request log's ring of the newest entries, kept in columns instead of as the entries themselves. Under load an
// entry stays in the ring longer than two scavenges (1,000 entries at ~7,000 requests a second: ~140 ms), so V8
// promoted every entry, its attempts and its strings to the old generation (~460 bytes a request), and with the old
// generation allowed to grow 10 % past what survived (scripts/cli-loader.mjs) that garbage alone started a full mark
// every ~4,000 requests: ~13 µs of marking a request on V8's helper threads (docs/PERFORMANCE.md). Here an entry's
// numbers go into typed arrays, its id (a UUID) into 16 bytes, its time into epoch milliseconds, and its strings into
// columns that hold the instance already stored for an equal string (the previous entry's, or a bounded table's),
// so the entry itself dies young. `recent()` builds entries back, equal field for field (the property order is the
// one newLogEntry makes). An entry that does not fit (an id that is not a lowercase UUID, a time that is not what
// isoTime gives for it, an attempt with an error or dropped fields, more than one attempt, a value of another type)
// is kept as the object it is.
import type { AttemptLog, RequestLogEntry } from '../../shared/admin.ts';
import { isoTime, isoTimeExactMs } from './iso-time.ts';

/** Distinct strings kept to share (model names, paths, routes, apps); past it the table starts afresh. */
const MAX_SHARED_STRINGS = 4096;

/** The string columns, in RequestLogEntry's order. */
const STRING_FIELDS = [
  'method',
  'path',
  'app',
  'app_source',
  'requested_model',
  'routed_model',
  'provider',
  'route',
  'error_code',
] as const;
type StringField = (typeof STRING_FIELDS)[number];

/** The number columns: the first five are never absent (three never null), the rest may be (optional in RequestLogEntry). */
const NUMBER_FIELDS = [
  'status',
  'latency_ms',
  'ttfb_ms',
  'prompt_tokens',
  'completion_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'cache_write_5m_tokens',
  'cache_write_1h_tokens',
  'reasoning_tokens',
] as const;
const FIRST_OPTIONAL = 5;
const NUMBERS = NUMBER_FIELDS.length;

/** A number column's codes: null is NaN, an absent optional field -Infinity (neither is a value a field can hold). */
const NULL = Number.NaN;
const ABSENT = Number.NEGATIVE_INFINITY;

/** Every field the columns keep: a field added to RequestLogEntry or AttemptLog fails to compile here until it is. */
/**
 * Fields an entry rarely has (the secret guard's record, a replay's origin, the capture mark: only with capture on): an
 * entry with one is kept as the object it is.
 */
type ObjectOnlyField = 'guard' | 'replay_of' | 'captured';
type KeptEntryField =
  | 'id'
  | 'time'
  | 'attempts'
  | 'stream'
  | 'session'
  | 'key'
  | 'instance'
  | ObjectOnlyField
  | StringField
  | (typeof NUMBER_FIELDS)[number];
type KeptAttemptField = 'provider' | 'status' | 'error' | 'latency_ms' | 'dropped';
const everyEntryField: [Exclude<keyof RequestLogEntry, KeptEntryField>] extends [never] ? true : never = true;
const everyAttemptField: [Exclude<keyof AttemptLog, KeptAttemptField>] extends [never] ? true : never = true;
void everyEntryField;
void everyAttemptField;

/** Slot states (0: never written). */
const COLUMNS = 1;
const OBJECT = 2;

const HEX_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) HEX_VALUE['0123456789abcdef'.charCodeAt(i)] = i;
const HEX_BYTE = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

export class EntryRing {
  private next = 0;
  private count = 0;
  private readonly kind: Uint8Array;
  private readonly objects: (RequestLogEntry | undefined)[];
  private readonly ids: Uint8Array;
  private readonly times: Float64Array;
  private readonly numbers: Float64Array;
  private readonly streams: Uint8Array;
  private readonly strings: Record<StringField, (string | null)[]>;
  /** The session: undefined when the entry had none, as older entries have not. */
  private readonly sessions: (string | null | undefined)[];
  /** The credential's name and the serving instance (gateway and team mode): undefined when the entry had none. */
  private readonly keys: (string | null | undefined)[];
  private readonly instances: (string | null | undefined)[];
  /** The one attempt, when there is one: its provider, status (NaN: null) and latency. */
  private readonly attemptCount: Uint8Array;
  private readonly attemptProvider: (string | null)[];
  private readonly attemptNumbers: Float64Array;
  private readonly shared = new Map<string, string>();

  constructor(readonly capacity: number) {
    this.kind = new Uint8Array(capacity);
    this.objects = new Array<RequestLogEntry | undefined>(capacity).fill(undefined);
    this.ids = new Uint8Array(capacity * 16);
    this.times = new Float64Array(capacity);
    this.numbers = new Float64Array(capacity * NUMBERS);
    this.streams = new Uint8Array(capacity);
    const column = (): (string | null)[] => new Array<string | null>(capacity).fill(null);
    this.strings = Object.fromEntries(STRING_FIELDS.map((f) => [f, column()])) as Record<
      StringField,
      (string | null)[]
    >;
    this.sessions = new Array<string | null | undefined>(capacity).fill(undefined);
    this.keys = new Array<string | null | undefined>(capacity).fill(undefined);
    this.instances = new Array<string | null | undefined>(capacity).fill(undefined);
    this.attemptCount = new Uint8Array(capacity);
    this.attemptProvider = column();
    this.attemptNumbers = new Float64Array(capacity * 2);
  }

  get size(): number {
    return this.count;
  }

  /** Keeps an entry as it is now (later changes to the object are not seen). */
  push(entry: RequestLogEntry): void {
    const slot = this.next;
    this.next = slot + 1 === this.capacity ? 0 : slot + 1;
    if (this.count < this.capacity) this.count++;
    if (this.store(slot, entry)) {
      this.kind[slot] = COLUMNS;
      this.objects[slot] = undefined;
    } else {
      this.kind[slot] = OBJECT;
      this.objects[slot] = entry;
    }
  }

  /** Keeps the object itself (an entry of another instance of the team, which may carry fields this one lacks). */
  pushObject(entry: RequestLogEntry): void {
    const slot = this.next;
    this.next = slot + 1 === this.capacity ? 0 : slot + 1;
    if (this.count < this.capacity) this.count++;
    this.kind[slot] = OBJECT;
    this.objects[slot] = entry;
  }

  /** The newest `n` entries, oldest first. */
  recent(n = this.capacity): RequestLogEntry[] {
    const take = Math.min(n, this.count);
    const out: RequestLogEntry[] = [];
    for (let i = take; i > 0; i--) out.push(this.entryAt((this.next - i + this.capacity) % this.capacity));
    return out;
  }

  private entryAt(slot: number): RequestLogEntry {
    if (this.kind[slot] === OBJECT) return this.objects[slot]!;
    const s = this.strings;
    const n = this.numbers;
    const base = slot * NUMBERS;
    const attempts: AttemptLog[] = [];
    if (this.attemptCount[slot] === 1) {
      const status = this.attemptNumbers[slot * 2]!;
      attempts.push({
        provider: this.attemptProvider[slot]!,
        status: Number.isNaN(status) ? null : status,
        error: null,
        latency_ms: this.attemptNumbers[slot * 2 + 1]!,
      });
    }
    const entry: RequestLogEntry = {
      id: this.idAt(slot),
      time: isoTime(this.times[slot]!),
      method: s.method[slot]!,
      path: s.path[slot]!,
      app: s.app[slot]!,
      app_source: s.app_source[slot] as RequestLogEntry['app_source'],
      requested_model: s.requested_model[slot]!,
      routed_model: s.routed_model[slot]!,
      provider: s.provider[slot]!,
      route: s.route[slot]!,
      attempts,
      status: n[base]!,
      error_code: s.error_code[slot]!,
      stream: this.streams[slot] === 1,
      latency_ms: n[base + 1]!,
      ttfb_ms: orNull(n[base + 2]!),
      prompt_tokens: orNull(n[base + 3]!),
      completion_tokens: orNull(n[base + 4]!),
    };
    for (let k = FIRST_OPTIONAL; k < NUMBERS; k++) {
      const v = n[base + k]!;
      if (v !== ABSENT) (entry as Record<string, unknown>)[NUMBER_FIELDS[k]!] = orNull(v);
    }
    const session = this.sessions[slot];
    if (session !== undefined) entry.session = session;
    const key = this.keys[slot];
    if (key !== undefined) entry.key = key;
    const instance = this.instances[slot];
    if (instance !== undefined) entry.instance = instance;
    return entry;
  }

  /** Writes the entry into the slot's columns; false when it does not fit them (nothing read back would differ). */
  private store(slot: number, e: RequestLogEntry): boolean {
    if (e.guard !== undefined || e.replay_of !== undefined || e.captured !== undefined) return false;
    if (!this.storeId(slot, e.id) || typeof e.time !== 'string') return false;
    const ms = isoTimeExactMs(e.time); // NaN unless isoTime(ms) gives the text back
    if (Number.isNaN(ms)) return false;
    if (typeof e.stream !== 'boolean') return false;
    const attempts = e.attempts;
    if (!Array.isArray(attempts) || attempts.length > 1) return false;
    const a = attempts.length === 1 ? attempts[0]! : null;
    let attemptStatus = NULL;
    if (a !== null) {
      if (a.error !== null || a.dropped !== undefined || typeof a.provider !== 'string') return false;
      if (typeof a.latency_ms !== 'number' || !Number.isFinite(a.latency_ms)) return false;
      if ((attemptStatus = code(a.status, NULLABLE)) === BAD) return false;
    }
    const n = this.numbers;
    const b = slot * NUMBERS;
    if (
      (n[b] = code(e.status, REQUIRED)) === BAD ||
      (n[b + 1] = code(e.latency_ms, REQUIRED)) === BAD ||
      (n[b + 2] = code(e.ttfb_ms, NULLABLE)) === BAD ||
      (n[b + 3] = code(e.prompt_tokens, NULLABLE)) === BAD ||
      (n[b + 4] = code(e.completion_tokens, NULLABLE)) === BAD ||
      (n[b + 5] = code(e.cache_read_tokens, OPTIONAL)) === BAD ||
      (n[b + 6] = code(e.cache_write_tokens, OPTIONAL)) === BAD ||
      (n[b + 7] = code(e.cache_write_5m_tokens, OPTIONAL)) === BAD ||
      (n[b + 8] = code(e.cache_write_1h_tokens, OPTIONAL)) === BAD ||
      (n[b + 9] = code(e.reasoning_tokens, OPTIONAL)) === BAD
    )
      return false;
    if (
      typeof e.method !== 'string' ||
      typeof e.path !== 'string' ||
      !stringOrNull(e.app) ||
      !stringOrNull(e.app_source) ||
      !stringOrNull(e.requested_model) ||
      !stringOrNull(e.routed_model) ||
      !stringOrNull(e.provider) ||
      !stringOrNull(e.route) ||
      !stringOrNull(e.error_code) ||
      (e.session !== undefined && !stringOrNull(e.session)) ||
      (e.key !== undefined && !stringOrNull(e.key)) ||
      (e.instance !== undefined && !stringOrNull(e.instance))
    )
      return false;
    // Everything fits: the strings are written last, as the only columns that keep references.
    this.times[slot] = ms;
    this.streams[slot] = e.stream ? 1 : 0;
    this.attemptCount[slot] = attempts.length;
    if (a !== null) {
      this.attemptProvider[slot] = this.share(this.attemptProvider, slot, a.provider);
      this.attemptNumbers[slot * 2] = attemptStatus;
      this.attemptNumbers[slot * 2 + 1] = a.latency_ms;
    } else this.attemptProvider[slot] = null;
    const s = this.strings;
    s.method[slot] = this.share(s.method, slot, e.method);
    s.path[slot] = this.share(s.path, slot, e.path);
    s.app[slot] = this.share(s.app, slot, e.app);
    s.app_source[slot] = this.share(s.app_source, slot, e.app_source);
    s.requested_model[slot] = this.share(s.requested_model, slot, e.requested_model);
    s.routed_model[slot] = this.share(s.routed_model, slot, e.routed_model);
    s.provider[slot] = this.share(s.provider, slot, e.provider);
    s.route[slot] = this.share(s.route, slot, e.route);
    s.error_code[slot] = this.share(s.error_code, slot, e.error_code);
    const session = e.session;
    this.sessions[slot] = session === undefined || session === null ? session : this.shareString(session);
    const key = e.key;
    this.keys[slot] = key === undefined || key === null ? key : this.shareString(key);
    const instance = e.instance;
    this.instances[slot] = instance === undefined || instance === null ? instance : this.shareString(instance);
    return true;
  }

  /** The instance already kept for an equal string: the previous slot's, or the shared table's. */
  private share(column: (string | null)[], slot: number, v: string | null): string | null {
    if (v === null) return null;
    const before = column[slot === 0 ? this.capacity - 1 : slot - 1];
    if (before === v) return before;
    return this.shareString(v);
  }

  /** The shared table's instance of a string (kept there when it is new). */
  private shareString(v: string): string {
    const kept = this.shared.get(v);
    if (kept !== undefined) return kept;
    if (this.shared.size >= MAX_SHARED_STRINGS) this.shared.clear();
    this.shared.set(v, v);
    return v;
  }

  /** A lowercase UUID's 16 bytes into the slot; false for any other id. */
  private storeId(slot: number, id: unknown): boolean {
    if (typeof id !== 'string' || id.length !== 36) return false;
    const bytes = this.ids;
    let o = slot * 16;
    for (let i = 0; i < 36; i += 2) {
      if (i === 8 || i === 13 || i === 18 || i === 23) {
        if (id.charCodeAt(i) !== 0x2d) return false;
        i++;
      }
      const hi = HEX_VALUE[id.charCodeAt(i)] ?? -1;
      const lo = HEX_VALUE[id.charCodeAt(i + 1)] ?? -1;
      if (hi < 0 || lo < 0) return false;
      bytes[o++] = (hi << 4) | lo;
    }
    return true;
  }

  private idAt(slot: number): string {
    const b = this.ids;
    const o = slot * 16;
    let s = '';
    for (let i = 0; i < 16; i++) {
      if (i === 4 || i === 6 || i === 8 || i === 10) s += '-';
      s += HEX_BYTE[b[o + i]!]!;
    }
    return s;
  }
}

const orNull = (v: number): number | null => (Number.isNaN(v) ? null : v);
const stringOrNull = (v: unknown): boolean => v === null || typeof v === 'string';

/** How a number field may be empty; BAD is the code of a value the columns cannot hold (then the object is kept). */
const REQUIRED = 0;
const NULLABLE = 1;
const OPTIONAL = 2;
const BAD = Number.POSITIVE_INFINITY;

function code(v: unknown, mode: number): number {
  if (typeof v === 'number') return Number.isFinite(v) ? v : BAD;
  if (v === null) return mode === REQUIRED ? BAD : NULL;
  if (v === undefined) return mode === OPTIONAL ? ABSENT : BAD;
  return BAD;
}
