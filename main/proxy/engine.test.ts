// The engine's secrets: what the running config holds that error texts are scrubbed of (observability/redact.ts).
import { afterEach, expect, it } from 'vitest';
import { parseConfig } from '../../shared/config.ts';
import { redact } from '../observability/redact.ts';
import { RequestLog } from '../observability/request-log.ts';
import { Engine } from './engine.ts';

const LITERAL = 'literal-key-0123456789';
const FROM_ENV = 'env-key-abcdef0123456789';
const HEADER = 'header-token-9876543210';
const JWT_SECRET = 'jwt-secret-a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0';

function engineWith(): Engine {
  const r = parseConfig({
    providers: [
      { name: 'a', base_url: 'http://127.0.0.1:9/v1', api_key: LITERAL },
      {
        name: 'b',
        base_url: 'http://127.0.0.1:9/v1',
        api_key: 'env:SB_ENGINE_TEST_KEY',
        headers: { 'X-Custom-Auth': `Bearer ${HEADER}`, 'X-Title': 'My application title' },
      },
    ],
    gateway: { enabled: false, jwt: { secret: JWT_SECRET } },
  });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return new Engine(r.config, '/tmp/config.json', new RequestLog(10));
}

let engine: Engine | null = null;
afterEach(async () => {
  await engine?.close();
  engine = null;
  delete process.env.SB_ENGINE_TEST_KEY;
});

it("lists each provider's key (env: read now), its credential headers' values and the gateway's JWT secret", () => {
  process.env.SB_ENGINE_TEST_KEY = FROM_ENV;
  engine = engineWith();
  const secrets = [...engine.secrets()];
  expect(secrets).toEqual(expect.arrayContaining([LITERAL, FROM_ENV, HEADER, JWT_SECRET]));
  expect(secrets).not.toContain('My application title');
  process.env.SB_ENGINE_TEST_KEY = `${FROM_ENV}-rotated`;
  expect([...engine.secrets()]).toContain(`${FROM_ENV}-rotated`);
});

it('registers them for the scrubber while it runs, and forgets them when closed', async () => {
  process.env.SB_ENGINE_TEST_KEY = FROM_ENV;
  engine = engineWith();
  const text = `refused ${LITERAL}, ${FROM_ENV}, ${HEADER} and ${JWT_SECRET}; title My application title`;
  expect(redact(text)).toBe('refused [redacted], [redacted], [redacted] and [redacted]; title My application title');
  await engine.close();
  engine = null;
  expect(redact(text)).toBe(text);
});
