// The scrubber of foreign texts: configured secrets by value (whole, or a long run of one), credential shapes by
// pattern, and ordinary error texts left as they are.
import { createHash, randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { addSecretSource, knownSecrets, MIN_FRAGMENT, REDACTED, redact } from './redact.ts';

const hex = (n: number) => randomBytes(n).toString('hex');
const b64url = (n: number) => randomBytes(n).toString('base64url');

const removers: (() => void)[] = [];
afterEach(() => {
  for (const remove of removers.splice(0)) remove();
});
const register = (...secrets: (string | undefined)[]) => removers.push(addSecretSource(() => secrets));

describe('configured secrets', () => {
  // Key shapes with no vendor prefix: only the configured value can find them.
  const shapes: Record<string, string> = {
    'Azure OpenAI (32 hex)': hex(16),
    'base64url, 43 characters': b64url(32),
    'base64 with + / =': `${randomBytes(30).toString('base64')}==`,
    'with dots and colons (a user:password pair)': `user.${hex(6)}:${b64url(12)}`,
    'short but not a placeholder (8 characters)': hex(4),
  };
  for (const [shape, key] of Object.entries(shapes)) {
    it(`a key of shape "${shape}" is replaced wherever it appears`, () => {
      const text = `{"error":{"message":"Invalid API key: ${key}. Received headers: api-key=${key}"}}`;
      const out = redact(text, [key]);
      expect(out).not.toContain(key);
      expect(out).toContain(`Invalid API key: ${REDACTED}.`);
    });
  }

  it('the registered sources are asked at each scrub (an env: key read at use time is current)', () => {
    let current = `rotated-${hex(12)}`;
    register(undefined, '', 'ollama'); // empty, absent and placeholder values are not secrets
    removers.push(addSecretSource(() => [current]));
    expect(knownSecrets()).toEqual([current]);
    expect(redact(`bad key ${current}`)).toBe(`bad key ${REDACTED}`);
    current = `rotated-${hex(12)}`;
    expect(redact(`bad key ${current}`)).toBe(`bad key ${REDACTED}`);
    expect(redact('ollama pull llama3')).toBe('ollama pull llama3');
  });

  it('a removed source is no longer looked for', () => {
    const key = `plain${hex(10)}`;
    const remove = addSecretSource(() => [key]);
    expect(redact(key)).toBe(REDACTED);
    remove();
    expect(redact(key)).toBe(key);
  });

  it('a long key containing a shorter one goes whole', () => {
    const short = hex(6);
    const long = `${short}${hex(10)}`;
    expect(
      redact(
        `k=${long}`,
        [short, long].sort((a, b) => b.length - a.length),
      ),
    ).toBe(`k=${REDACTED}`);
  });

  it(`a run of ${MIN_FRAGMENT}+ key characters of a configured key is scrubbed (a key cut short or echoed in part)`, () => {
    const key = `${hex(10)}.${hex(20)}`;
    const cut = key.slice(0, 14);
    const out = redact(`Invalid key "${cut}..." and its tail ${key.slice(-16)}`, [key]);
    expect(out).toBe(`Invalid key "${REDACTED}..." and its tail ${REDACTED}`);
    // A short piece (the last 4 characters a vendor shows to name a key) is no secret and stays.
    expect(redact(`key ending ${key.slice(-4)}`, [key])).toBe(`key ending ${key.slice(-4)}`);
  });
});

describe('credential shapes, configured or not', () => {
  const cases: Record<string, [string, string]> = {
    'an OpenAI project key': [`sk-proj-${b64url(36)}`, ''],
    'an Anthropic key': [`sk-ant-api03-${b64url(60)}-${b64url(6)}AA`, ''],
    'an OpenRouter key': [`sk-or-v1-${hex(32)}`, ''],
    'a Switchboard gateway key (sk-sb-)': [`sk-sb-${hex(24)}`, ''],
    'a Switchboard agent key (sk-agent-)': [`sk-agent-${hex(32)}`, ''],
    'a Switchboard personal access token (sbp_)': [`sbp_${hex(24)}`, ''],
    'a Google API key (AIza)': [`AIzaSy${b64url(24).slice(0, 33)}`, ''],
    'an xAI key': [`xai-${b64url(60).replace(/[-_]/g, 'a')}1`, ''],
    'a Groq key': [`gsk_${hex(26)}`, ''],
    'a Hugging Face token': [`hf_${hex(17)}`, ''],
    'an AWS access key id': ['AKIA' + 'IOSFODNN7EXAMPLE', ''],
    'a JWT': [
      `eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwiZXhwIjoxOTk5OTk5OTk5fQ.${b64url(32)}`,
      '',
    ],
  };
  for (const [what, [secret]] of Object.entries(cases)) {
    it(`${what} is replaced`, () => {
      const out = redact(`The key ${secret} was refused.`, []);
      expect(out).toBe(`The key ${REDACTED} was refused.`);
    });
  }

  it('"Bearer <token>" keeps the scheme and loses the token', () => {
    expect(redact('Authorization: Bearer abc123def456ghi', [])).toBe(`Authorization: Bearer ${REDACTED}`);
    expect(redact('bearer 9f8e7d6c5b4a', [])).toBe(`bearer ${REDACTED}`);
    expect(redact(`Bearer ${'x'.repeat(24)}`, [])).toBe(`Bearer ${REDACTED}`);
  });

  it('a credential header or field keeps its name and loses its value, whatever the value looks like', () => {
    expect(redact('x-api-key: plainlettersonly', [])).toBe(`x-api-key: ${REDACTED}`);
    expect(redact('Authorization: Basic dXNlcjpwYXNz', [])).toBe(`Authorization: Basic ${REDACTED}`);
    expect(redact('{"api_key": "abcdefgh12"}', [])).toBe(`{"api_key": "${REDACTED}"}`);
    expect(redact('x-goog-api-key="zzzzzzzzzz"', [])).toBe(`x-goog-api-key="${REDACTED}"`);
    expect(redact('api-key=zzzzzzzzzz&x=1', [])).toBe(`api-key=${REDACTED}&x=1`);
  });

  it('credential query parameters keep their name and lose their value', () => {
    expect(redact('GET https://host/v1beta/models?key=abc&alt=sse failed', [])).toBe(
      `GET https://host/v1beta/models?key=${REDACTED}&alt=sse failed`,
    );
    expect(redact('/x?alt=sse&access_token=ya29.a0AfH6', [])).toBe(`/x?alt=sse&access_token=${REDACTED}`);
  });

  it('an HTML error page dumping the request headers keeps its words and loses the credentials', () => {
    // Hand-written, modelled on a reverse proxy's debug error page that lists the request's headers.
    const key = `sk-${b64url(40)}`;
    const page =
      '<html><body><h1>401 Unauthorized</h1><pre>POST /v1/chat/completions\n' +
      `Authorization: Bearer ${key}\nx-api-key: ${key}\ncontent-type: application/json</pre></body></html>`;
    const out = redact(page, []);
    expect(out).not.toContain(key);
    expect(out).toContain('401 Unauthorized');
    expect(out).toContain('content-type: application/json');
  });

  it('is idempotent', () => {
    const text = `Authorization: Bearer sk-${hex(20)} x-api-key: ${hex(8)} ?key=${hex(8)}`;
    const once = redact(text, []);
    expect(redact(once, [])).toBe(once);
  });
});

describe('ordinary texts stay as they are', () => {
  const ordinary = [
    'ask the model',
    'The model `gpt-4o-mini-2024-07-18` does not exist or you do not have access to it.',
    // OpenAI masks the key it refuses itself (popjane/free_chatgpt_api#3): no secret left to take.
    'Incorrect API key provided: sk-PMafP***************************************E873. You can find your API key at https://platform.openai.com/account/api-keys.',
    `sha256 ${createHash('sha256').update('x').digest('hex')}`,
    'request req_011CTZ7X8rN9bY2u3Cc4ABCD, id chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT, uuid 1b4e28ba-2fa1-11d2-883f-0016d3cca427',
    'Bearer authentication is required for this endpoint.',
    'Basic authentication failed.',
    'task-runner-queue-depth exceeded on disk-0123456789abcdef',
    'x-api-key header is required',
    '{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}',
    '{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}',
    'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse',
    'Rate limit reached for gpt-4o in organization org-abc on tokens per min (TPM): Limit 30000, Used 29000.',
  ];
  for (const text of ordinary) {
    it(JSON.stringify(text.slice(0, 60)), () => {
      register(`sk-configured-${hex(16)}`, hex(16));
      expect(redact(text)).toBe(text);
    });
  }
});
