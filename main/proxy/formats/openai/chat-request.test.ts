// isChatRequest (shared/openai.ts) is ChatRequestSchema's rules without zod's cost on the path to the first byte: it
// must say yes exactly when the schema does, for real tools' requests and for any value near the edge of the rules.
import fc from 'fast-check';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ChatRequestSchema, isChatRequest } from '../../../../shared/openai.ts';

const REAL = new URL('../../../../test/fixtures/real/', import.meta.url);
const OPENAI_CHAT = ['aider', 'cline', 'continue', 'openai-sdk'];

/** The captured OpenAI chat requests of test/fixtures/real/ (each file names its source). */
function realChatRequests(): [string, unknown][] {
  const out: [string, unknown][] = [];
  for (const tool of OPENAI_CHAT) {
    for (const file of readdirSync(new URL(`${tool}/`, REAL))) {
      const f = JSON.parse(readFileSync(new URL(`${tool}/${file}`, REAL), 'utf8')) as {
        path?: string;
        request: unknown;
      };
      if (f.path === undefined || f.path.endsWith('/chat/completions')) out.push([`${tool}/${file}`, f.request]);
    }
  }
  return out;
}

const schemaSays = (v: unknown): boolean => ChatRequestSchema.safeParse(v).success;

/** Values at each rule's edge: right and wrong types for model, messages, each message's role, and stream. */
const nearValue = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.constantFrom('', 'gpt-4o-mini', 'user'),
  fc.array(fc.anything(), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.anything(), { maxKeys: 2 }),
);
const message = fc.oneof(
  fc.record({ role: fc.oneof(fc.string({ maxLength: 8 }), nearValue), content: fc.anything() }, { requiredKeys: [] }),
  nearValue,
);
const request = fc.record(
  {
    model: fc.oneof(fc.string({ maxLength: 12 }), nearValue),
    messages: fc.oneof(fc.array(message, { maxLength: 4 }), nearValue),
    stream: fc.oneof(fc.boolean(), nearValue),
    temperature: fc.anything(),
  },
  { requiredKeys: [] },
);

describe('isChatRequest', () => {
  it.each(realChatRequests())('accepts the real request %s, as the schema does', (_name, body) => {
    expect(schemaSays(body)).toBe(true);
    expect(isChatRequest(body)).toBe(true);
  });

  it('says what the schema says for requests near the edge of every rule, and for any value', () => {
    fc.assert(
      fc.property(fc.oneof(request, fc.anything()), (v) => {
        expect(isChatRequest(v)).toBe(schemaSays(v));
      }),
      { numRuns: 5000 },
    );
  });

  it('refuses each broken rule that the schema refuses', () => {
    const ok = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };
    expect(isChatRequest(ok)).toBe(true);
    for (const bad of [
      { ...ok, model: '' },
      { ...ok, model: 7 },
      { messages: ok.messages },
      { ...ok, messages: {} },
      { ...ok, messages: [null] },
      { ...ok, messages: [[]] },
      { ...ok, messages: [{ content: 'no role' }] },
      { ...ok, messages: [{ role: 1 }] },
      { ...ok, stream: 'yes' },
      { ...ok, stream: null },
      [ok],
    ]) {
      expect(schemaSays(bad)).toBe(false);
      expect(isChatRequest(bad)).toBe(false);
    }
  });
});
