// Mid-stream continuation (routing.rules[].continue_on_cut, docs/routing.md "Mid-stream continuation"): a streamed reply cut
// after its text started (connection reset, idle timeout, an error event mid-stream) is resumed on the next candidate
// (a backup, else the same provider again) by sending the conversation with the text so far as the start of the
// assistant's answer, and the client's stream is stitched: one encoder for every attempt, so the client sees one
// message (one start event, one id) whose text is the cut reply's followed by the continuation.
//
// Only text and reasoning are continued: a cut once a tool call has started ends in the format's error event, as
// without continuation (a tool call is never resumed half-way). A route with continue_on_cut has its streams go
// through the hub even when the provider speaks the client's format (so every attempt's chunks can be stitched).
import type { ServerResponse } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import type { HubChunk, HubRequest, StreamDecoder, StreamEncoder, WireError } from '../formats/hub/index.ts';
import type { ProviderType } from '../../../shared/config.ts';
import { usageOfHub } from './usage-text.ts';
import { finishDecoding, NO_USAGE, type ReplySink, type SinkInit, type Usage } from './target.ts';

/** The most seams one reply may have (then a cut ends it with the error event). */
export const MAX_SEAMS = 3;

/** The instruction sent after the partial answer to a provider that cannot continue a trailing assistant message. */
export const CONTINUE_INSTRUCTION =
  'Your previous answer was cut off. Continue it exactly where it stopped, without repeating anything and without any preamble.';

/** One client stream across attempts: its encoder, the text it has shown, and whether the last attempt was cut. */
export class StreamSeam {
  encoder: StreamEncoder | null = null;
  headersSent = false;
  /** The answer's text the client has been sent so far (all attempts). */
  text = '';
  /** A tool call started: a cut can no longer be continued. */
  toolStarted = false;
  /** The last attempt was cut and its failure held back, for a continuation. */
  cut = false;
  seams = 0;
  /** Each seam: where in the text it is, and which provider took over (for the request log). */
  readonly log: { at: number; from: string; to?: string }[] = [];

  constructor(readonly res: ServerResponse) {}

  /** A cut can be continued: the stream started, no tool call began, seams are left. */
  get continuable(): boolean {
    return this.headersSent && !this.toolStarted && this.seams < MAX_SEAMS;
  }

  /** No attempt continued the cut reply: it ends with the format's error event. */
  giveUp(e: WireError): void {
    if (this.res.writableEnded) return;
    this.cut = false;
    this.res.end(this.encoder?.error(e) ?? '');
  }
}

/** A streamed reply, translated through the hub, that a cut does not end while it can be continued. */
export class ContinuableStreamSink implements ReplySink {
  committed = false;
  private readonly text = new StringDecoder('utf8');
  private counted: Usage = NO_USAGE;

  constructor(
    private readonly seam: StreamSeam,
    private readonly s: SinkInit,
    private readonly decoder: StreamDecoder,
    makeEncoder: () => StreamEncoder,
  ) {
    seam.encoder ??= makeEncoder();
  }

  private write(chunks: HubChunk[]): boolean {
    const seam = this.seam;
    const encoder = seam.encoder!;
    let out = '';
    for (const c of chunks) {
      if (c.usage) this.counted = usageOfHub(c.usage);
      const d = c.choices[0]?.delta;
      if (d?.content) seam.text += d.content;
      if (d?.tool_calls?.length) seam.toolStarted = true;
      out += encoder.chunk(c);
    }
    if (!out) return true;
    if (!this.committed) {
      this.committed = true;
      if (!seam.headersSent) {
        seam.headersSent = true;
        this.s.committer.commit();
        const headers: Record<string, string> = { 'content-type': encoder.contentType, 'cache-control': 'no-cache' };
        for (const name in this.s.extraHeaders) headers[name] = this.s.extraHeaders[name]!;
        seam.res.writeHead(this.s.status, headers);
      }
    }
    return seam.res.write(out);
  }

  data(chunk: Buffer): boolean {
    return this.write(this.decoder.push(this.text.write(chunk)));
  }

  end(): void {
    finishDecoding(this.decoder, this.text, (chunks) => this.write(chunks));
    const seam = this.seam;
    seam.cut = false;
    if (!seam.headersSent) {
      seam.headersSent = true;
      this.s.committer.commit();
      seam.res.writeHead(this.s.status, { 'content-type': seam.encoder!.contentType, 'cache-control': 'no-cache' });
    }
    seam.res.end(seam.encoder!.end());
  }

  fail(e: WireError): void {
    const seam = this.seam;
    // Held back: the failover loop continues the answer on the next candidate, or gives up (seam.giveUp).
    if (seam.continuable) {
      seam.cut = true;
      return;
    }
    if (!seam.headersSent) {
      seam.headersSent = true;
      seam.res.writeHead(this.s.status, { 'content-type': seam.encoder!.contentType, 'cache-control': 'no-cache' });
    }
    seam.res.end(seam.encoder!.error(e));
  }

  usage(): Usage {
    return this.counted;
  }
}

/**
 * The request that continues an answer cut after `prefix`: the conversation, then the answer so far as an assistant
 * message. Anthropic continues a trailing assistant message (prefill; its trailing whitespace removed, as Anthropic
 * refuses it), and so does Ollama; an OpenAI-style provider gets the continuation instruction after it as a user turn
 * (most OpenAI-compatible servers answer a trailing assistant message with a new answer instead of continuing it).
 */
export function continuationHub(hub: HubRequest, prefix: string, type: ProviderType): HubRequest {
  const messages = hub.messages.slice();
  if (type === 'anthropic') {
    messages.push({ role: 'assistant', content: prefix.replace(/\s+$/, '') });
  } else if (type === 'ollama') {
    messages.push({ role: 'assistant', content: prefix });
  } else {
    messages.push({ role: 'assistant', content: prefix });
    messages.push({ role: 'user', content: CONTINUE_INSTRUCTION });
  }
  return { ...hub, messages };
}
