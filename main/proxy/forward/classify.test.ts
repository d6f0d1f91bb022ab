// What a failed attempt's body becomes in the attempt log, the provider's last error and the all-failed message.
import { expect, it } from 'vitest';
import { addSecretSource } from '../../observability/redact.ts';
import { errorTextOf } from './classify.ts';

it("takes an OpenAI-style error's message, else the text itself, at most 300 characters", () => {
  expect(errorTextOf('{"error":{"message":"Overloaded","type":"server_error"}}')).toBe('Overloaded');
  expect(errorTextOf('{"error":"Bad gateway"}')).toBe('Bad gateway');
  expect(errorTextOf(`  <html>${'x'.repeat(400)}</html>`)).toHaveLength(300);
});

it('scrubs secrets before the cut, so no piece of a key is left at the end', () => {
  const key = '7f3a9c2e5b8d1f4a6c0e9b2d5f8a1c3e';
  const forget = addSecretSource(() => [key]);
  try {
    const pad = 'p'.repeat(285);
    for (const body of [`${pad} key ${key}`, JSON.stringify({ error: { message: `${pad} key ${key}` } })]) {
      const text = errorTextOf(body);
      expect(text).not.toContain(key.slice(0, 8));
      expect(text).toBe(`${pad} key [redacted]`);
    }
    expect(errorTextOf(`<pre>authorization: Bearer sk-${key}</pre>`)).toBe(
      '<pre>authorization: Bearer [redacted]</pre>',
    );
  } finally {
    forget();
  }
});
