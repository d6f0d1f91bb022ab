// Request capture (docs/insight.md, "Request capture"): opt-in (config.json `capture`), the request and response bodies of the
// last model requests, one file per request log id in `captures/` beside config.json (folder 0700, files 0600,
// written atomically). Nothing of a credential is stored: the client's credential headers are left out, and every
// text (path, headers, bodies) goes through the scrubber (every configured key by value, and credential shapes:
// main/observability/redact.ts). Retention: the newest `max_requests`, younger than `days`, `max_mb` in all, trimmed
// after each write and at start. The log drawer reads one with GET /admin/v1/logs/:id/body; replays start from one.
import type { IncomingHttpHeaders, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import fs from 'node:fs/promises';
import path from 'node:path';
import { bareAppName } from '../../shared/app-name.ts';
import { SECRET_HEADER_NAME } from '../../shared/config.ts';
import type { Capture, CaptureConfig, CapturedSide } from '../../shared/insight.ts';

export type { Capture, CapturedSide };
import { writeFileAtomic } from '../config/atomic-write.ts';
import { readBoundedFile } from '../config/read-bounded.ts';
import { logger } from '../observability/logger.ts';
import { redact } from '../observability/redact.ts';

/** The most of one body kept (each side): past it the text is cut and `truncated` says so. */
export const CAPTURE_BODY_MAX = 8 * 1024 * 1024;
/** The largest capture file read back: both bodies at their cap, every character escaped (`\u0000`: 6 bytes), and the rest. */
const CAPTURE_FILE_MAX = 6 * 2 * CAPTURE_BODY_MAX + 1024 * 1024;
/** A request log id (a UUID): the only file names the store reads or writes. */
export const CAPTURE_ID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Client credential headers: never stored, whatever their value. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'x-api-key', 'x-goog-api-key', 'api-key']);

function keptHeaders(h: IncomingHttpHeaders | OutgoingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) {
    if (v === undefined) continue;
    const name = k.toLowerCase();
    if (CREDENTIAL_HEADERS.has(name) || SECRET_HEADER_NAME.test(name)) continue;
    out[name] = redact(Array.isArray(v) ? v.join(', ') : String(v));
  }
  return out;
}

function side(chunks: Buffer[], bytes: number): { body: string; truncated: boolean } {
  const buf = Buffer.concat(chunks);
  const truncated = bytes > CAPTURE_BODY_MAX;
  return { body: redact(buf.subarray(0, CAPTURE_BODY_MAX).toString('utf8')), truncated };
}

/** What the client was sent, recorded as the sinks write it (the response's own methods wrapped, nothing copied past the cap). */
export class ResponseTap {
  status = 0;
  headers: OutgoingHttpHeaders = {};
  private readonly chunks: Buffer[] = [];
  private bytes = 0;

  constructor(private readonly res: ServerResponse) {
    const writeHead = res.writeHead.bind(res) as (...a: unknown[]) => ServerResponse;
    const write = res.write.bind(res) as (...a: unknown[]) => boolean;
    const end = res.end.bind(res) as (...a: unknown[]) => ServerResponse;
    const tap = this;
    res.writeHead = function (this: ServerResponse, ...a: unknown[]) {
      tap.status = a[0] as number;
      const h = a.find((x, i) => i > 0 && x && typeof x === 'object');
      if (h && !Array.isArray(h)) tap.headers = { ...(h as OutgoingHttpHeaders) };
      return writeHead(...a);
    } as ServerResponse['writeHead'];
    res.write = function (this: ServerResponse, ...a: unknown[]) {
      tap.take(a[0]);
      return write(...a);
    } as ServerResponse['write'];
    res.end = function (this: ServerResponse, ...a: unknown[]) {
      if (typeof a[0] !== 'function') tap.take(a[0]);
      return end(...a);
    } as ServerResponse['end'];
  }

  private take(chunk: unknown): void {
    if (chunk === undefined || chunk === null) return;
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.isBuffer(chunk) ? chunk : null;
    if (!b) return;
    if (this.bytes < CAPTURE_BODY_MAX) this.chunks.push(b.subarray(0, CAPTURE_BODY_MAX - this.bytes));
    this.bytes += b.length;
  }

  result(): CapturedSide & { status: number } {
    const headers = keptHeaders({ ...this.res.getHeaders(), ...this.headers });
    return { status: this.status || this.res.statusCode, headers, ...side(this.chunks, this.bytes) };
  }
}

type Indexed = { id: string; ms: number; bytes: number };

export class CaptureStore {
  private config: CaptureConfig;
  /** The stored captures, oldest first. */
  private index: Indexed[] = [];
  private loaded: Promise<void> | null = null;
  /** Writes and trims one after another (a trim never races a write). */
  private chain: Promise<void> = Promise.resolve();

  constructor(
    readonly dir: string,
    config: CaptureConfig,
  ) {
    this.config = config;
  }

  configure(config: CaptureConfig): void {
    this.config = config;
    if (config.enabled) this.enqueue(() => this.trim());
  }

  /** Whether a request of `app` is captured. */
  wants(app: string | null): boolean {
    const c = this.config;
    if (!c.enabled) return false;
    if (c.apps.length === 0) return true;
    if (app === null) return false;
    const bare = bareAppName(app);
    return c.apps.some((a) => bareAppName(a) === bare);
  }

  /** Stores a capture (after the reply: never on the path to the client). */
  add(input: {
    id: string;
    time: string;
    req: { method?: string; url?: string; headers: IncomingHttpHeaders };
    body: Buffer;
    tap: ResponseTap;
    app: string | null;
    provider: string | null;
    model: string | null;
    stream: boolean;
    replayOf: string | null;
    session: string | null;
    inputTokens: number | null;
  }): Promise<void> {
    if (!CAPTURE_ID_RE.test(input.id)) return Promise.resolve();
    const capture: Capture = {
      id: input.id,
      time: input.time,
      method: input.req.method ?? 'POST',
      path: redact(input.req.url ?? ''),
      app: input.app,
      provider: input.provider,
      model: input.model,
      stream: input.stream,
      replay_of: input.replayOf,
      session: input.session,
      input_tokens: input.inputTokens,
      request: { headers: keptHeaders(input.req.headers), ...side([input.body], input.body.length) },
      response: input.tap.result(),
    };
    const text = JSON.stringify(capture);
    return this.enqueue(async () => {
      await this.load();
      const file = path.join(this.dir, `${capture.id}.json`);
      await writeFileAtomic(file, text, 0o600);
      this.index.push({ id: capture.id, ms: Date.parse(capture.time) || Date.now(), bytes: Buffer.byteLength(text) });
      await this.trim();
    });
  }

  /** A stored capture, or null (an id not of the log's form, never captured, or trimmed). */
  async get(id: string): Promise<Capture | null> {
    if (!CAPTURE_ID_RE.test(id)) return null;
    await this.chain;
    try {
      // Written by this store alone: a link or anything but a regular file is not read, nor past the most one holds
      // (both bodies at their cap, JSON-escaped).
      const bytes = await readBoundedFile(path.join(this.dir, `${id}.json`), {
        maxBytes: CAPTURE_FILE_MAX,
        noFollow: true,
      });
      return JSON.parse(bytes.toString('utf8')) as Capture;
    } catch {
      return null;
    }
  }

  /** Every stored capture, oldest first, at most `max` of the newest. */
  async all(max: number): Promise<Capture[]> {
    const ids = (await this.ids()).slice(-max);
    const out: Capture[] = [];
    for (const id of ids) {
      const c = await this.get(id);
      if (c) out.push(c);
    }
    return out;
  }

  /** The ids stored, oldest first (tests, the trim). */
  async ids(): Promise<string[]> {
    await this.chain;
    await this.load();
    return this.index.map((x) => x.id);
  }

  /** Waits for the writes under way. */
  settled(): Promise<void> {
    return this.chain;
  }

  private enqueue(job: () => Promise<void>): Promise<void> {
    const run = this.chain.then(job).catch((err: Error) => logger.warn(`capture: ${err.message}`));
    this.chain = run;
    return run;
  }

  /** The index read from the folder once (captures of an earlier run count against the limits). */
  private load(): Promise<void> {
    return (this.loaded ??= (async () => {
      let names: string[] = [];
      try {
        names = await fs.readdir(this.dir);
      } catch {
        return;
      }
      const found: Indexed[] = [];
      for (const name of names) {
        const id = name.slice(0, -'.json'.length);
        if (!name.endsWith('.json') || !CAPTURE_ID_RE.test(id)) continue;
        try {
          const st = await fs.lstat(path.join(this.dir, name));
          if (st.isFile()) found.push({ id, ms: st.mtimeMs, bytes: st.size });
        } catch {
          // removed meanwhile
        }
      }
      found.sort((a, b) => a.ms - b.ms);
      this.index = [...found, ...this.index];
    })());
  }

  /** Drops the oldest captures past the count, age or size limit. */
  private async trim(): Promise<void> {
    await this.load();
    const { max_requests, max_mb, days } = this.config;
    const oldest = Date.now() - days * 86_400_000;
    const maxBytes = max_mb * 1024 * 1024;
    let total = this.index.reduce((a, x) => a + x.bytes, 0);
    let drop = 0;
    while (
      drop < this.index.length &&
      (this.index.length - drop > max_requests || total > maxBytes || this.index[drop]!.ms < oldest)
    ) {
      total -= this.index[drop]!.bytes;
      drop++;
    }
    if (drop === 0) return;
    const gone = this.index.splice(0, drop);
    await Promise.all(gone.map((x) => fs.rm(path.join(this.dir, `${x.id}.json`), { force: true })));
  }
}
