// The one set of rules every SSE-JSON decoder follows (hub/sse-json.ts).
import { describe, expect, it } from 'vitest';
import { hubChunk } from './chunks.ts';
import type { Json } from './json.ts';
import { SseJsonDecoder } from './sse-json.ts';
import { UpstreamStreamError } from './types.ts';

/** A toy format: {"text": …} is a chunk, {"fail": …} the format's error event, {"end": true} its end of stream. */
class ToyDecoder extends SseJsonDecoder {
  stray: string[] = [];
  protected read(data: Json): void {
    if (typeof data.fail === 'string') throw new UpstreamStreamError(data.fail);
    if (data.end === true) {
      this.done = true;
      return;
    }
    this.out.push(hubChunk({ id: 'x', created: 1, model: 'm' }, { content: String(data.text) }));
  }
  protected override finish(): void {
    if (this.done) return;
    this.out.push(hubChunk({ id: 'x', created: 1, model: 'm' }, { content: 'tail' }));
    throw new UpstreamStreamError('the stream was cut');
  }
  protected override strayLine(line: string): void {
    this.stray.push(line);
  }
}
const ev = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`;
const texts = (cs: { choices: { delta: { content?: string | null } }[] }[]) =>
  cs.map((c) => c.choices[0]!.delta.content);

describe('SSE-JSON decoder rules', () => {
  it('hands over chunks decoded before an error event, then raises it on the next call', () => {
    const d = new ToyDecoder();
    expect(texts(d.push(ev({ text: 'a' }) + ev({ fail: 'boom' }) + ev({ text: 'never' })))).toEqual(['a']);
    expect(() => d.push(ev({ text: 'b' }))).toThrow('boom');
    expect(() => d.end()).toThrow('boom');
  });

  it('raises at once when nothing came before the error', () => {
    const d = new ToyDecoder();
    expect(() => d.push(ev({ fail: 'first' }))).toThrow(UpstreamStreamError);
  });

  it('attaches the chunks end() decoded to the error end() raises, so none is lost', () => {
    const d = new ToyDecoder();
    d.push(ev({ text: 'a' }));
    let err: UpstreamStreamError | undefined;
    try {
      d.end();
    } catch (e) {
      err = e as UpstreamStreamError;
    }
    expect(err?.message).toBe('the stream was cut');
    expect(texts(err!.chunks)).toEqual(['tail']);
  });

  it('skips empty and [DONE] events, raises on data that is not JSON, and ignores events after the end', () => {
    const d = new ToyDecoder();
    expect(texts(d.push(`data:\n\n${ev({ text: 'a' })}data: [DONE]\n\n`))).toEqual(['a']);
    expect(texts(d.push(`${ev({ end: true })}${ev({ text: 'late' })}`))).toEqual([]);
    expect(d.end()).toEqual([]);
    const bad = new ToyDecoder();
    expect(() => bad.push('data: <html>\n\n')).toThrow(/not JSON: <html>/);
  });

  it('reads events cut at any byte', () => {
    const text = ev({ text: 'héllo' }) + ev({ text: 'wörld' }) + ev({ end: true });
    for (let cut = 0; cut <= text.length; cut++) {
      const d = new ToyDecoder();
      expect(texts([...d.push(text.slice(0, cut)), ...d.push(text.slice(cut)), ...d.end()])).toEqual([
        'héllo',
        'wörld',
      ]);
    }
  });

  it('hands lines that are not SSE to the format (a plain JSON error body)', () => {
    const d = new ToyDecoder();
    d.push('{"error": {"code": 429}}\n');
    expect(d.stray).toEqual(['{"error": {"code": 429}}']);
  });

  it('fails a stream that carried no event (an HTML page, a JSON body, nothing), quoting its text', () => {
    /** A format with no end-of-stream rule of its own (as OpenAI's): only the base's rule can catch these. */
    class PlainDecoder extends SseJsonDecoder {
      protected read(data: Json): void {
        this.out.push(hubChunk({ id: 'x', created: 1, model: 'm' }, { content: String(data.text) }));
      }
    }
    const html = new PlainDecoder();
    expect(html.push('<html><body>Bad gateway</body></html>\n')).toEqual([]);
    expect(() => html.end()).toThrow(/carried no events: <html><body>Bad gateway/);
    const json = new PlainDecoder();
    json.push('{"id":"chatcmpl-1","choices":[]}');
    expect(() => json.end()).toThrow(/carried no events: \{"id":"chatcmpl-1"/);
    expect(() => new PlainDecoder().end()).toThrow(/carried no events at all/);
    const one = new PlainDecoder();
    expect(one.push('data: {"text":"ok"}\n\n')).toHaveLength(1);
    expect(one.end()).toEqual([]);
    const done = new PlainDecoder();
    done.push('data: [DONE]\n\n');
    expect(() => done.end()).toThrow(UpstreamStreamError);
  });
});
