// Provider side: a provider's /api/chat NDJSON stream read as hub chunks.
import { absent, hubChunk, isObject, newId, UpstreamStreamError } from '../hub/index.ts';
import type { FinishReason, HubChunk, StreamDecoder } from '../hub/index.ts';
import { createdToHub, toolCallsToHub, upstreamErrorText } from './response-to-hub.ts';
import { finishToHub, OLLAMA_USAGE } from './common.ts';

/**
 * Ollama NDJSON → hub chunks. Not SSE, but the rules of hub/sse-json.ts for failures: lines may arrive cut anywhere
 * (text is buffered to each newline); blank lines and `: keep-alive` comments are skipped; any other line that is
 * not JSON raises UpstreamStreamError (as Ollama's Go client does; the JS client skips it, which would shorten the
 * reply without a word); an `{"error": …}` line raises UpstreamStreamError, and a stream that ends without its
 * `done: true` line is incomplete and raises too. Chunks decoded before a failure are never lost: push() returns
 * them and throws at the next call, and end() attaches the ones it decoded to the error (`error.chunks`).
 */
export class OllamaStreamDecoder implements StreamDecoder {
  private readonly head: { id: string; created: number; model: string };
  private buffer = '';
  private started = false;
  private done = false;
  private toolIndex = 0;
  private failure: UpstreamStreamError | null = null;

  constructor(model: string) {
    this.head = { id: newId('chatcmpl-'), created: 0, model };
  }

  private chunk(delta: HubChunk['choices'][0]['delta'], finish: FinishReason | null = null): HubChunk {
    return hubChunk(this.head, delta, finish);
  }

  private readLine(text: string, out: HubChunk[]): void {
    if (this.done || this.failure) return;
    const trimmed = text.trim();
    // Blank lines, and a keep-alive comment some proxies put in a stream (SSE's `: …`), carry nothing.
    if (trimmed === '' || trimmed.startsWith(':')) return;
    let json: unknown;
    try {
      json = JSON.parse(trimmed);
    } catch {
      // As Ollama's own Go client does (and the SSE decoders): a stream that cannot be read fails, never shortened.
      this.failure = new UpstreamStreamError(
        `The Ollama provider sent a stream line that is not JSON: ${trimmed.slice(0, 200)}`,
      );
      return;
    }
    if (!isObject(json)) return;
    if (!absent(json.error)) {
      this.failure = new UpstreamStreamError(upstreamErrorText(json.error));
      return;
    }
    if (!this.started) {
      this.started = true;
      this.head.created = createdToHub(json.created_at);
      if (typeof json.model === 'string' && json.model !== '') this.head.model = json.model;
      out.push(this.chunk({ role: 'assistant', content: '' }));
    }
    const m = isObject(json.message) ? json.message : {};
    if (typeof m.thinking === 'string' && m.thinking !== '') out.push(this.chunk({ reasoning_content: m.thinking }));
    if (typeof m.content === 'string' && m.content !== '') out.push(this.chunk({ content: m.content }));
    const calls = toolCallsToHub(m.tool_calls);
    if (calls.length > 0) {
      const deltas = calls.map((c) => ({ index: this.toolIndex++, id: c.id, type: c.type, function: c.function }));
      out.push(this.chunk({ tool_calls: deltas }));
    }
    if (json.done === true) {
      this.done = true;
      const usage = OLLAMA_USAGE.toHub(json);
      out.push(hubChunk(this.head, {}, finishToHub(this.toolIndex > 0, json.done_reason), usage));
    }
  }

  push(text: string): HubChunk[] {
    if (this.failure) throw this.failure;
    const scanFrom = this.buffer.length;
    this.buffer += text;
    const out: HubChunk[] = [];
    let start = 0;
    let nl = this.buffer.indexOf('\n', scanFrom);
    while (nl !== -1) {
      this.readLine(this.buffer.slice(start, nl), out);
      start = nl + 1;
      nl = this.buffer.indexOf('\n', start);
    }
    this.buffer = this.buffer.slice(start);
    if (this.failure && out.length === 0) throw this.failure;
    return out;
  }

  end(): HubChunk[] {
    const out: HubChunk[] = [];
    if (!this.failure) {
      this.readLine(this.buffer, out);
      this.buffer = '';
    }
    if (!this.failure && !this.done) {
      this.failure = new UpstreamStreamError(
        'The Ollama provider\'s stream ended without its final "done": true line; the reply is incomplete.',
      );
    }
    if (this.failure) {
      this.failure.chunks = out;
      throw this.failure;
    }
    return out;
  }
}
