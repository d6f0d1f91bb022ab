// Putting redacted secrets back into the answer before the client sees it, so a tool call the model wrote with a
// placeholder carries the real value on this machine. Works on the client's own reply bytes, whatever the format: a
// whole JSON reply is walked string by string; a stream (SSE or NDJSON) event by event, where the text and argument
// deltas of each block are held back while they end in what may be the start of a placeholder (a model writes one over
// several deltas), and what is held is sent in a delta of its own before the block's next other event.
import type { ServerResponse } from 'node:http';
import { PLACEHOLDER, PLACEHOLDER_MAX, PLACEHOLDER_START } from './redact.ts';

/** Fields that carry a stream's text deltas, in every wire format (Anthropic, OpenAI chat, Responses, Gemini, Ollama). */
const DELTA_KEYS = new Set(['text', 'partial_json', 'content', 'arguments', 'delta', 'thinking', 'reasoning_content']);
/** Fields whose text is JSON (tool arguments): a value restored there is JSON-escaped. */
const JSON_TEXT_KEYS = new Set(['partial_json', 'arguments']);

/** A JSON string's escaping of s, without the quotes. */
function jsonEscaped(s: string): string {
  return JSON.stringify(s).slice(1, -1);
}

/** s with every placeholder of the table replaced by its value (JSON-escaped when s is JSON text). */
export function restoreText(s: string, table: ReadonlyMap<string, string>, jsonText = false): string {
  if (!s.includes(PLACEHOLDER_START)) return s;
  return s.replace(PLACEHOLDER, (ph) => {
    const v = table.get(ph);
    if (v === undefined) return ph;
    return jsonText ? jsonEscaped(v) : v;
  });
}

/** A JSON value with the placeholders in its strings restored (a string that is JSON itself is restored inside). */
export function restoreValue(v: unknown, table: ReadonlyMap<string, string>): unknown {
  if (typeof v === 'string') {
    if (!v.includes(PLACEHOLDER_START)) return v;
    const t = v.trimStart();
    if (t.startsWith('{') || t.startsWith('[')) {
      try {
        return JSON.stringify(restoreValue(JSON.parse(v), table));
      } catch {
        // not JSON: plain text
      }
    }
    return restoreText(v, table);
  }
  if (Array.isArray(v)) return v.map((x) => restoreValue(x, table));
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = restoreValue(x, table);
    return out;
  }
  return v;
}

/** Where a text ending in s may still be writing a placeholder: the index to hold back from, or -1. */
export function holdFrom(s: string): number {
  const at = s.lastIndexOf('[');
  if (at === -1 || s.length - at >= PLACEHOLDER_MAX) return -1;
  const tail = s.slice(at);
  if (tail.length <= PLACEHOLDER_START.length) return PLACEHOLDER_START.startsWith(tail) ? at : -1;
  return tail.startsWith(PLACEHOLDER_START) && /^\[REDACTED_[A-Za-z0-9_]*$/.test(tail) ? at : -1;
}

type Held = { text: string; template: Record<string, unknown>; path: (string | number)[] };

/**
 * The events of one stream, restored one by one. A delta field's text is held per channel (the event's block: its
 * `index`, `output_index`, `content_index`, and the field's path with array items named by their own `index`).
 */
export class StreamRestorer {
  private readonly held = new Map<string, Held>();

  constructor(private readonly table: ReadonlyMap<string, string>) {}

  /** The event (a parsed JSON object) restored, preceded by the held texts it ends; each to be written as an event. */
  event(e: unknown): unknown[] {
    if (!e || typeof e !== 'object') return [e];
    const touched = new Set<string>();
    const ev = e as Record<string, unknown>;
    const base = `${String(ev.index ?? '')}|${String(ev.output_index ?? '')}|${String(ev.content_index ?? '')}|`;
    const jsonEvent = typeof ev.type === 'string' && ev.type.includes('arguments');
    const out = this.walk(ev, [], base, jsonEvent, touched, ev) as Record<string, unknown>;
    const before: unknown[] = [];
    for (const [channel, h] of this.held) {
      if (touched.has(channel)) continue;
      before.push(this.flushEvent(h));
      this.held.delete(channel);
    }
    before.push(out);
    return before;
  }

  /** Events for every text still held (at the stream's end). */
  flush(): unknown[] {
    const out = [...this.held.values()].map((h) => this.flushEvent(h));
    this.held.clear();
    return out;
  }

  get holding(): boolean {
    return this.held.size > 0;
  }

  private flushEvent(h: Held): unknown {
    const copy = structuredClone(h.template);
    blankDeltas(copy);
    let at: Record<string | number, unknown> = copy;
    for (let i = 0; i < h.path.length - 1; i++) at = at[h.path[i]!] as Record<string | number, unknown>;
    at[h.path.at(-1)!] = h.text;
    return copy;
  }

  private walk(
    v: unknown,
    path: (string | number)[],
    channel: string,
    jsonEvent: boolean,
    touched: Set<string>,
    root: Record<string, unknown>,
  ): unknown {
    if (Array.isArray(v)) {
      return v.map((x, i) => {
        const idx = x && typeof x === 'object' && typeof (x as { index?: unknown }).index === 'number' ? x : null;
        const name = idx ? `#${(idx as { index: number }).index}` : String(i);
        return this.walk(x, [...path, i], `${channel}/${name}`, jsonEvent, touched, root);
      });
    }
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) {
        if (typeof x === 'string' && DELTA_KEYS.has(k)) {
          const ch = `${channel}/${k}`;
          const jsonText = JSON_TEXT_KEYS.has(k) || (k === 'delta' && jsonEvent);
          out[k] = this.delta(ch, x, jsonText, [...path, k], touched, root);
        } else out[k] = this.walk(x, [...path, k], `${channel}/${k}`, jsonEvent, touched, root);
      }
      return out;
    }
    if (typeof v === 'string') return restoreValue(v, this.table);
    return v;
  }

  private delta(
    channel: string,
    text: string,
    jsonText: boolean,
    path: (string | number)[],
    touched: Set<string>,
    root: Record<string, unknown>,
  ): string {
    const held = this.held.get(channel);
    const s = (held?.text ?? '') + text;
    if (held) this.held.delete(channel);
    if (s === '') return s;
    const at = holdFrom(s);
    if (at === -1) return restoreText(s, this.table, jsonText);
    touched.add(channel);
    this.held.set(channel, { text: s.slice(at), template: root, path });
    return restoreText(s.slice(0, at), this.table, jsonText);
  }
}

/** Every delta string of an event emptied (the copy a held text is sent in). */
function blankDeltas(v: unknown): void {
  if (Array.isArray(v)) return v.forEach(blankDeltas);
  if (!v || typeof v !== 'object') return;
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    if (typeof o[k] === 'string' && DELTA_KEYS.has(k)) o[k] = '';
    else blankDeltas(o[k]);
  }
}

type Framing = 'sse' | 'ndjson' | 'json';

/**
 * A ServerResponse the reply sinks write to in place of the client's: it restores the placeholders in what they write
 * and writes the result to the real response. Streams pass event by event; a whole reply is held to its end (its
 * content-length changes).
 */
export class RestoringResponse {
  private framing: Framing = 'json';
  private status = 200;
  private headers: Record<string, string | number | string[]> = {};
  private pending = '';
  private whole: Buffer[] = [];
  private readonly stream: StreamRestorer;

  constructor(
    private readonly res: ServerResponse,
    private readonly table: ReadonlyMap<string, string>,
  ) {
    this.stream = new StreamRestorer(table);
  }

  get destroyed(): boolean {
    return this.res.destroyed;
  }

  get headersSent(): boolean {
    return this.res.headersSent;
  }

  get writableFinished(): boolean {
    return this.res.writableFinished;
  }

  on(event: string, fn: (...a: unknown[]) => void): this {
    this.res.on(event, fn);
    return this;
  }

  off(event: string, fn: (...a: unknown[]) => void): this {
    this.res.off(event, fn);
    return this;
  }

  destroy(err?: Error): void {
    this.res.destroy(err);
  }

  writeHead(status: number, headers: Record<string, string | number | string[]> = {}): this {
    const type = String(headers['content-type'] ?? '');
    this.framing = type.includes('event-stream') ? 'sse' : type.includes('ndjson') ? 'ndjson' : 'json';
    const copy: Record<string, string | number | string[]> = {};
    for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() !== 'content-length') copy[k] = v;
    this.status = status;
    this.headers = copy;
    if (this.framing !== 'json') this.res.writeHead(status, copy);
    return this;
  }

  write(chunk: string | Buffer): boolean {
    if (this.framing === 'json') {
      this.whole.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
      return true;
    }
    this.pending += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    const out = this.takeEvents();
    return out === '' ? true : this.res.write(out);
  }

  end(chunk?: string | Buffer): this {
    if (chunk !== undefined && chunk !== null && chunk.length > 0) this.write(chunk);
    if (this.framing === 'json') {
      const text = Buffer.concat(this.whole).toString('utf8');
      let body = text;
      try {
        body = JSON.stringify(restoreValue(JSON.parse(text), this.table));
      } catch {
        body = restoreText(text, this.table);
      }
      this.headers['content-length'] = Buffer.byteLength(body);
      this.res.writeHead(this.status, this.headers);
      this.res.end(body);
      return this;
    }
    let out = this.takeEvents(true);
    for (const e of this.stream.flush()) out = this.frame(e, out, null);
    this.res.end(out);
    return this;
  }

  /** The whole events in `pending`, restored and framed again (the rest stays pending unless `all`). */
  private takeEvents(all = false): string {
    let out = '';
    const sse = this.framing === 'sse';
    for (;;) {
      const m = sse ? /\r?\n\r?\n/.exec(this.pending) : /\n/.exec(this.pending);
      if (!m) break;
      const event = this.pending.slice(0, m.index);
      const sep = m[0];
      this.pending = this.pending.slice(m.index + sep.length);
      out += this.restoreEvent(event, sep);
    }
    if (all && this.pending) {
      out += this.restoreEvent(this.pending, '');
      this.pending = '';
    }
    return out;
  }

  private restoreEvent(event: string, sep: string): string {
    const sse = this.framing === 'sse';
    const lines = sse ? event.split(/\r?\n/) : [event];
    const at = sse ? lines.findIndex((l) => l.startsWith('data:')) : 0;
    const data = at === -1 ? '' : sse ? lines[at]!.slice(5).trimStart() : lines[0]!;
    if (at === -1 || (!data.includes('[') && !this.stream.holding)) return event + sep;
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      // Not JSON (OpenAI's `data: [DONE]`): what is held goes first.
      let out = '';
      for (const e of this.stream.flush()) out = this.frame(e, out, null);
      return out + restoreText(event, this.table) + sep;
    }
    let out = '';
    for (const e of this.stream.event(parsed)) out = this.frame(e, out, { lines, at, sep });
    return out;
  }

  /** One event in the stream's framing, after `out`: the event's own lines (SSE) around its data. */
  private frame(e: unknown, out: string, like: { lines: string[]; at: number; sep: string } | null): string {
    const json = JSON.stringify(e);
    if (this.framing !== 'sse') return `${out}${json}\n`;
    if (!like) return `${out}data: ${json}\n\n`;
    const lines = like.lines.slice();
    lines[like.at] = `data: ${json}`;
    return `${out}${lines.join('\n')}${like.sep || '\n\n'}`;
  }
}

/** The sinks' view of the client's response with the placeholders restored on the way. */
export function restoringResponse(res: ServerResponse, table: ReadonlyMap<string, string>): ServerResponse {
  return new RestoringResponse(res, table) as unknown as ServerResponse;
}
