// Test support for the agent API tests: keys through the real CLI, an SSE reader, JSON fetch with a key.
import type { AgentEvent, StreamEvent } from '../../shared/orchestrator.ts';
import { runSwitchboard } from './serve-process.ts';

/** Runs `switchboard keys ...` (the compiled CLI) and returns stdout (throws on a non-zero exit). */
export async function cli(args: string[]): Promise<string> {
  const { code, stdout, stderr } = await runSwitchboard(args);
  if (code !== 0) throw new Error(`switchboard ${args.join(' ')} exited ${code}: ${stderr}`);
  return stdout;
}

export const createKey = async (configPath: string, tenant?: string): Promise<string> =>
  (await cli(['keys', 'create', '--config', configPath, ...(tenant ? ['--tenant', tenant] : [])])).trim();

export type Json = any;
export async function call(
  url: string,
  key: string | null,
  method = 'GET',
  body?: unknown,
): Promise<{ status: number; body: Json; headers: Headers }> {
  const headers: Record<string, string> = {};
  if (key) headers['x-api-key'] = key;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON (metrics)
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

export type EventStream = {
  /** Every frame with an id: a task's events and, on workflow and swarm streams, run-level events too. */
  events: AgentEvent[];
  /** The `event:` name of each frame in `events` (its type), in order. */
  names: string[];
  ids: string[];
  comments: string[];
  /** Frames with an `event:` name and no id (e.g. the `error` frame of a stream closed because its key was revoked). */
  named: { event: string; data: Json }[];
  status: number;
  /** Resolves when the server ends the stream (not when `close` aborts it). */
  ended: Promise<void>;
  /** Whether the server has ended the stream. */
  isEnded: () => boolean;
  waitFor: (pred: (events: AgentEvent[]) => boolean, timeoutMs?: number) => Promise<AgentEvent[]>;
  close: () => void;
};

/** Opens GET /api/v1/events and collects frames until closed. */
export async function openEvents(url: string, key: string, lastEventId?: number): Promise<EventStream> {
  const ac = new AbortController();
  const headers: Record<string, string> = { 'x-api-key': key, accept: 'text/event-stream' };
  if (lastEventId !== undefined) headers['last-event-id'] = String(lastEventId);
  const res = await fetch(url, { headers, signal: ac.signal });
  let endedFlag = false;
  let markEnded = () => {};
  const stream: EventStream = {
    events: [],
    names: [],
    ids: [],
    comments: [],
    named: [],
    status: res.status,
    ended: new Promise<void>((r) => (markEnded = r)),
    isEnded: () => endedFlag,
    waitFor: async (pred, timeoutMs = 10_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!pred(stream.events)) {
        if (Date.now() > deadline)
          throw new Error(`events not as expected in time: ${JSON.stringify(stream.events.map((e) => e.type))}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return stream.events;
    },
    close: () => ac.abort(),
  };
  if (!res.body) return stream;
  void (async () => {
    const decoder = new TextDecoder();
    let buf = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buf += decoder.decode(chunk, { stream: true });
        let i: number;
        while ((i = buf.indexOf('\n\n')) !== -1) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          let data = '';
          let event = '';
          let id = '';
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) stream.comments.push(line.slice(1).trim());
            else if (line.startsWith('id: ')) id = line.slice(4);
            else if (line.startsWith('event: ')) event = line.slice(7);
            else if (line.startsWith('data: ')) data += line.slice(6);
          }
          if (!data) continue;
          if (id) {
            stream.ids.push(id);
            stream.names.push(event);
            // Run-level events (StreamEvent) share the fields tests read (type, id, task_id where there is one).
            stream.events.push(JSON.parse(data) as StreamEvent as AgentEvent);
          } else stream.named.push({ event, data: JSON.parse(data) });
        }
      }
      endedFlag = true;
      markEnded();
    } catch {
      // aborted
    }
  })();
  return stream;
}
