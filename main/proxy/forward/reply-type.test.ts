import { describe, expect, it } from 'vitest';
import { judgeReply, quoteStart, sniffReply } from './reply-type.ts';

const ct = (type: string) => ({ 'content-type': type });

describe('judgeReply', () => {
  it("passes an API's types through: JSON, +json, NDJSON, an event stream, or no type at all", () => {
    for (const type of [
      'application/json',
      'application/json; charset=utf-8',
      'application/problem+json',
      'application/x-ndjson',
      'text/event-stream; charset=utf-8',
    ])
      expect(judgeReply(200, ct(type), 'api', true)).toBeNull();
    expect(judgeReply(200, {}, 'api', true)).toBeNull();
  });

  it('fails a web page on every passthrough route, model route or not', () => {
    expect(judgeReply(200, ct('text/html; charset=utf-8'), 'api', true)).toMatch(/web page \(text\/html\)/);
    expect(judgeReply(200, ct('application/xhtml+xml'), 'any', true)).toMatch(/web page/);
  });

  it('fails a redirect on every route, translated or not, naming where it pointed (scrubbed)', () => {
    expect(judgeReply(302, { location: 'http://portal.example/login?token=abcdef0123456789' }, 'any', false)).toBe(
      "answered HTTP 302, a redirect to http://portal.example/login?token=[redacted] (Switchboard follows no redirects: check this provider's base_url)",
    );
  });

  it('looks at the first bytes of another type on a model route, and lets any type through where replies may be', () => {
    expect(judgeReply(200, ct('text/plain'), 'api', true)).toBe('sniff');
    expect(judgeReply(200, ct('audio/mpeg'), 'any', true)).toBeNull();
  });

  it('leaves translated replies to their decoder', () => {
    expect(judgeReply(200, ct('text/html'), 'api', false)).toBeNull();
  });
});

describe('sniffReply', () => {
  it('accepts bytes that start like JSON or an SSE event', () => {
    for (const start of ['{"id":1}', '  [1,', 'data: {}', 'event: message\n', ': keep-alive\n', 'id: 1\n', ''])
      expect(sniffReply(200, 'text/plain', Buffer.from(start))).toBeNull();
  });

  it('fails anything else, calling an HTML document a web page', () => {
    expect(sniffReply(200, 'text/plain; charset=utf-8', Buffer.from('Moved'))).toBe(
      'answered HTTP 200 with text/plain that is neither JSON nor an event stream',
    );
    expect(sniffReply(200, 'application/octet-stream', Buffer.from('<!DOCTYPE html><html>'))).toMatch(/web page/);
  });
});

describe('quoteStart', () => {
  it('collapses whitespace, scrubs secrets and keeps 200 characters', () => {
    expect(quoteStart('<html>\n  <body>Bearer abcdefghijklmnop0123</body>\n</html>')).toBe(
      '<html> <body>Bearer [redacted]</body> </html>',
    );
    expect(quoteStart('x'.repeat(500))).toHaveLength(200);
  });
});
