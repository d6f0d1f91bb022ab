// The base of every decoder of a provider's SSE stream whose events carry JSON (OpenAI, Anthropic, Gemini,
// Responses). One set of rules for all of them:
// - An event whose data is empty is skipped; `[DONE]` is told to the subclass (doneEvent: OpenAI's end of stream).
//   An event whose data is not JSON raises UpstreamStreamError, as the vendors' own SDKs raise on it: a stream that
//   cannot be read is failed over (or ended with an error event once the reply has started), never quietly shortened.
// - A failure (the format's error event, unreadable data, a stream cut before its end) never loses the chunks decoded
//   before it: push() returns them and throws at the next call; end() attaches them to the error (`error.chunks`).
// - After the failure or the format's own end of stream, later events are ignored.
// - A stream whose bytes end cleanly before the format's own end (OpenAI's finish_reason or [DONE], Anthropic's
//   message_stop, Gemini's finishReason, Responses' response.completed) is cut: each decoder's finish() raises, so
//   the client gets its format's error, never a partial answer marked finished (a tool call with cut arguments).
// - A stream that carried no event at all (an HTML page, a JSON body answered to a stream request, nothing) is a
//   failure too, with the first of its text in the message: never an empty successful answer.
import { createParser, type EventSourceMessage, type EventSourceParser } from 'eventsource-parser';
import { isObject, type Json } from './json.ts';
import { type HubChunk, type StreamDecoder, UpstreamStreamError } from './types.ts';

export abstract class SseJsonDecoder implements StreamDecoder {
  /** Chunks decoded and not yet handed over. */
  protected out: HubChunk[] = [];
  /** Set by the subclass when the format's own end of stream has been read (later events are ignored). */
  protected done = false;
  private failure: UpstreamStreamError | null = null;
  private readonly parser: EventSourceParser;
  /** JSON events read (the no-event rule), and the first text that was not SSE (for its message). */
  private events = 0;
  private strayText = '';

  constructor() {
    this.parser = createParser({
      onEvent: (e) => this.onEvent(e),
      onError: (e) => {
        if (e.type !== 'unknown-field' || e.line === undefined) return;
        if (this.strayText.length < 200) this.strayText += `${this.strayText ? ' ' : ''}${e.line.trim()}`;
        this.strayLine(e.line);
      },
    });
  }

  /** One event's JSON object (`event` is the SSE event, for its name). Pushes to `out`; throws UpstreamStreamError. */
  protected abstract read(data: Json, event: EventSourceMessage): void;

  /** Called once at the end of the bytes: adds final chunks, or throws UpstreamStreamError for a cut stream. */
  protected finish(): void {}

  /** A line that is not SSE (some servers answer a plain JSON error body on a stream): ignored unless overridden. */
  protected strayLine(_line: string): void {}

  /** The `[DONE]` event (OpenAI's end of stream): skipped unless overridden. */
  protected doneEvent(): void {}

  /** Records a failure found outside an event (e.g. in stray lines): raised once the chunks before it are out. */
  protected fail(err: UpstreamStreamError): void {
    this.failure ??= err;
  }

  private onEvent(e: EventSourceMessage): void {
    if (this.failure || this.done) return;
    const text = e.data.trim();
    if (text === '') return;
    if (text === '[DONE]') return this.doneEvent();
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      this.failure = new UpstreamStreamError(
        `The provider sent a stream event that is not JSON: ${text.slice(0, 200)}`,
      );
      return;
    }
    if (!isObject(data)) return;
    this.events++;
    try {
      this.read(data, e);
    } catch (err) {
      if (!(err instanceof UpstreamStreamError)) throw err;
      this.failure = err;
    }
  }

  private take(): HubChunk[] {
    const r = this.out;
    this.out = [];
    return r;
  }

  push(text: string): HubChunk[] {
    if (this.failure && this.out.length === 0) throw this.failure;
    this.parser.feed(text);
    const r = this.take();
    if (this.failure && r.length === 0) throw this.failure;
    return r;
  }

  end(): HubChunk[] {
    if (!this.failure) this.parser.reset({ consume: true });
    if (!this.failure) {
      try {
        this.finish();
      } catch (err) {
        if (!(err instanceof UpstreamStreamError)) throw err;
        this.failure = err;
      }
    }
    if (!this.failure && this.events === 0) {
      const text = this.strayText.slice(0, 200);
      this.failure = new UpstreamStreamError(
        `The provider's stream carried no events${text ? `: ${text}` : ' at all'}.`,
      );
    }
    const r = this.take();
    if (this.failure) {
      this.failure.chunks = r;
      throw this.failure;
    }
    return r;
  }
}
