// Redaction and its restore: stable placeholders, the body rewritten at the secrets' bytes, and the answer's
// placeholders put back, whole or in a stream where a model writes one placeholder over several deltas.
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { PLACEHOLDER, placeholderOf, redactBody } from './redact.ts';
import { holdFrom, restoreValue, restoringResponse, StreamRestorer } from './restore.ts';
import { scanSecrets } from './scan.ts';

const AWS = 'AKIAQWERTYUIOPASDFGH'.slice(0, 4) + 'Z2345ABCDEFGHIJK';
const PEM =
  '-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5oooJdpSnFOFcoAoGCCqGSM49\n-----END EC PRIVATE KEY-----';

function redacted() {
  const body = Buffer.from(
    JSON.stringify({ messages: [{ role: 'user', content: [{ type: 'tool_result', content: `key ${AWS}\n${PEM}` }] }] }),
  );
  return redactBody(body, scanSecrets(body));
}

/** A fake response recording what is written to it. */
function sink() {
  const out = { status: 0, headers: {} as Record<string, unknown>, body: '' };
  const res = Object.assign(new EventEmitter(), {
    destroyed: false,
    headersSent: false,
    writableFinished: false,
    writeHead(status: number, headers: Record<string, unknown>) {
      out.status = status;
      out.headers = headers;
      return res;
    },
    write(chunk: string | Buffer) {
      out.body += chunk.toString();
      return true;
    },
    end(chunk?: string | Buffer) {
      if (chunk) out.body += chunk.toString();
      return res;
    },
    destroy() {},
  });
  return { res: res as unknown as ServerResponse, out };
}

describe('redaction', () => {
  it('replaces each secret by a placeholder naming its rule, the same one for the same value', () => {
    const r = redacted();
    const text = r.body.toString();
    expect(text).not.toContain(AWS);
    expect(text).not.toContain('MHcCAQEEIBkg4LVWM9nuwNSk3yBy');
    const phs = text.match(PLACEHOLDER)!;
    expect(phs).toHaveLength(2);
    expect(phs[0]).toMatch(/^\[REDACTED_AWS_ACCESS_KEY_ID_[0-9a-f]{8}\]$/);
    expect(phs[1]).toMatch(/^\[REDACTED_PRIVATE_KEY_[0-9a-f]{8}\]$/);
    expect(r.table.get(phs[1]!)).toBe(PEM); // decoded: real newlines
    expect(JSON.parse(text)).toBeTruthy();
    expect(placeholderOf('aws-access-key-id', AWS)).toBe(phs[0]);
    expect(redacted().body.equals(r.body)).toBe(true);
  });
});

describe('restore', () => {
  const r = redacted();
  const [awsPh, pemPh] = r.body.toString().match(PLACEHOLDER)!;

  it('restores a whole reply, JSON-escaping inside JSON text (tool arguments)', () => {
    const reply = {
      content: [
        { type: 'text', text: `Using ${awsPh}.` },
        { type: 'tool_use', input: { key: awsPh, pem: pemPh } },
      ],
      choices: [{ message: { tool_calls: [{ function: { arguments: JSON.stringify({ pem: pemPh }) } }] } }],
    };
    const back = restoreValue(reply, r.table) as typeof reply;
    expect(back.content[0]!.text).toBe(`Using ${AWS}.`);
    expect(back.content[1]!.input).toEqual({ key: AWS, pem: PEM });
    expect(JSON.parse(back.choices[0]!.message.tool_calls[0]!.function.arguments)).toEqual({ pem: PEM });
  });

  it('holds back only what may be a placeholder being written', () => {
    expect(holdFrom('abc [RED')).toBe(4);
    expect(holdFrom('abc [REDACTED_AWS_ACC')).toBe(4);
    expect(holdFrom('a[0] = 1')).toBe(-1);
    expect(holdFrom('abc [')).toBe(4);
    expect(holdFrom('[REDACTED_X_12345678] done')).toBe(-1);
  });

  it('an Anthropic stream: a placeholder over three text deltas and a tool input over partial_json', () => {
    const s = new StreamRestorer(r.table);
    const ev = (index: number, delta: object) => ({ type: 'content_block_delta', index, delta });
    const out: unknown[] = [];
    const cut = [awsPh!.slice(0, 5), awsPh!.slice(5, 20), `${awsPh!.slice(20)} ok`];
    out.push(...s.event({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }));
    out.push(...s.event(ev(0, { type: 'text_delta', text: `key: ${cut[0]}` })));
    out.push(...s.event(ev(0, { type: 'text_delta', text: cut[1] })));
    out.push(...s.event(ev(0, { type: 'text_delta', text: cut[2] })));
    out.push(...s.event({ type: 'content_block_stop', index: 0 }));
    const json = JSON.stringify({ pem: pemPh });
    out.push(...s.event(ev(1, { type: 'input_json_delta', partial_json: json.slice(0, 12) })));
    out.push(...s.event(ev(1, { type: 'input_json_delta', partial_json: json.slice(12) })));
    out.push(...s.event({ type: 'content_block_stop', index: 1 }));
    const text = out
      .filter((e: any) => e.index === 0 && e.delta)
      .map((e: any) => e.delta.text)
      .join('');
    expect(text).toBe(`key: ${AWS} ok`);
    const partial = out
      .filter((e: any) => e.index === 1 && e.delta)
      .map((e: any) => e.delta.partial_json)
      .join('');
    expect(JSON.parse(partial)).toEqual({ pem: PEM });
  });

  it('an OpenAI chat stream held before its finish chunk; framing kept (SSE through the response)', () => {
    const { res, out } = sink();
    const w = restoringResponse(res, r.table);
    w.writeHead(200, { 'content-type': 'text/event-stream', 'content-length': '999' });
    const chunk = (delta: object, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: 'c', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    w.write(chunk({ content: `a ${awsPh!.slice(0, 9)}` }));
    w.write(chunk({ content: awsPh!.slice(9) }));
    w.write(chunk({ content: ` [not one` }));
    w.write(chunk({}, 'stop'));
    w.end('data: [DONE]\n\n');
    expect(out.headers['content-length']).toBeUndefined();
    const events = out.body.split('\n\n').filter(Boolean);
    expect(events.at(-1)).toBe('data: [DONE]');
    const text = events
      .slice(0, -1)
      .map((e) => JSON.parse(e.slice(6)).choices[0].delta.content ?? '')
      .join('');
    expect(text).toBe(`a ${AWS} [not one`);
  });

  it('a whole JSON reply: held to its end, content-length made again', () => {
    const { res, out } = sink();
    const w = restoringResponse(res, r.table);
    const body = JSON.stringify({ content: [{ type: 'text', text: pemPh }] });
    w.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length) });
    w.end(body);
    expect(JSON.parse(out.body).content[0].text).toBe(PEM);
    expect(out.headers['content-length']).toBe(Buffer.byteLength(out.body));
  });
});
