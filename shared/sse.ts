// Server-Sent Events over fetch (so headers carry the token or agent key), reconnecting with Last-Event-ID.
export type SseMessage = { event: string; data: string; id: string | null };

/** Parses a chunk of SSE text; returns the complete messages and the unfinished rest. */
export function parseSse(buffer: string): { messages: SseMessage[]; rest: string } {
  const messages: SseMessage[] = [];
  const blocks = buffer.replace(/\r\n/g, '\n').split('\n\n');
  const rest = blocks.pop() ?? '';
  for (const block of blocks) {
    let event = 'message';
    let id: string | null = null;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
      else if (field === 'id') id = value;
    }
    if (data.length > 0) messages.push({ event, data: data.join('\n'), id });
  }
  return { messages, rest };
}

/**
 * Keeps a stream open until the returned function is called; each message goes to `onMessage`. A `url` function is
 * read at each (re)connect (a server that moved to another port is followed).
 */
export function openSse(
  url: string | (() => string),
  headers: () => Promise<Record<string, string> | null> | Record<string, string> | null,
  onMessage: (m: SseMessage) => void,
): () => void {
  const controller = new AbortController();
  let lastId: string | null = null;
  const run = async () => {
    while (!controller.signal.aborted) {
      try {
        const h = await headers();
        if (!h) throw new Error('no credentials yet');
        const res = await fetch(typeof url === 'function' ? url() : url, {
          headers: { ...h, accept: 'text/event-stream', ...(lastId ? { 'last-event-id': lastId } : {}) },
          signal: controller.signal,
        });
        if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          const parsed = parseSse(buffer + value);
          buffer = parsed.rest;
          for (const m of parsed.messages) {
            if (m.id) lastId = m.id;
            onMessage(m);
          }
        }
      } catch {
        // reconnect below
      }
      if (controller.signal.aborted) return;
      await new Promise((r) => setTimeout(r, 1500));
    }
  };
  void run();
  return () => controller.abort();
}
