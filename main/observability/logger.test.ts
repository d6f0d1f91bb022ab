// The process log never writes a credential: header and field values are censored, error and warning texts scrubbed.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, expect, it } from 'vitest';
import { loggerOptions } from './logger.ts';
import { addSecretSource } from './redact.ts';

const KEY = `sk-proj-${'a1B2c3D4e5'.repeat(4)}`;
const CONFIGURED = 'f00dfeedcafe0123456789abcdef0123';

function capture(): { log: pino.Logger; lines: () => string } {
  let out = '';
  const sink = new Writable({
    write(chunk, _enc, done) {
      out += String(chunk);
      done();
    },
  });
  return { log: pino(loggerOptions('info'), sink), lines: () => out };
}

let forget: (() => void) | null = null;
afterEach(() => forget?.());

it('censors credential headers and fields wherever a logged object carries them', () => {
  const { log, lines } = capture();
  log.info(
    {
      headers: { authorization: `Bearer ${KEY}`, 'x-api-key': KEY, 'content-type': 'application/json' },
      req: { headers: { 'x-goog-api-key': KEY, cookie: `session=${KEY}` } },
      provider: { name: 'openai', api_key: KEY },
      adminToken: KEY,
    },
    'request',
  );
  const out = lines();
  expect(out).not.toContain(KEY);
  expect(out).toContain('"content-type":"application/json"');
  expect(out).toContain('"name":"openai"');
  expect(out.match(/\[redacted\]/g)).toHaveLength(6);
});

it("scrubs an error's message and stack, and the text of warnings and errors", () => {
  forget = addSecretSource(() => [CONFIGURED]);
  const { log, lines } = capture();
  log.error({ err: new Error(`upstream said: invalid key ${CONFIGURED}`) }, `failed with Authorization: Bearer ${KEY}`);
  log.warn(`provider answered: key=${CONFIGURED}`);
  const out = lines();
  expect(out).not.toContain(KEY);
  expect(out).not.toContain(CONFIGURED);
  expect(out).toContain('upstream said: invalid key [redacted]');
  expect(out).toContain('failed with Authorization: Bearer [redacted]');
  expect(out).toContain('provider answered: key=[redacted]');
});
