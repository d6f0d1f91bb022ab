// An OpenAI chat request with a field of the wrong type, translated for another kind of provider: each of these made a
// translation throw (a 500; found by the fuzz suite, test/fuzz/), and is now refused by the audit with a 400 naming
// the field, for every translating format.
import { describe, expect, it } from 'vitest';
import { ANTHROPIC_ACCEPTED } from '../anthropic/accepted.ts';
import { anthropicFormat } from '../anthropic/index.ts';
import { GEMINI_ACCEPTED } from '../gemini/accepted.ts';
import { geminiFormat } from '../gemini/index.ts';
import { OLLAMA_ACCEPTED } from '../ollama/accepted.ts';
import { ollamaFormat } from '../ollama/index.ts';
import { auditRequest } from './accepted.ts';
import type { HubRequest } from './types.ts';

const user = { role: 'user', content: 'Weather in Paris?' };
const call = (c: object) => ({ role: 'assistant', content: null, tool_calls: [c] });
const fn = { name: 'weather', arguments: '{"city":"Paris"}' };
const result = { role: 'tool', tool_call_id: 'call_1', content: '18°C' };

/** [what, the request's fields, the field refused, the translation that threw without the check]. */
const MALFORMED: [string, Record<string, unknown>, string, string][] = [
  ['content an object', { messages: [{ role: 'user', content: { value: 'hi' } }] }, 'messages[0].content', 'all'],
  ['a user message without content', { messages: [{ role: 'user' }] }, 'messages[0].content', 'all'],
  ['a null content part', { messages: [{ role: 'user', content: [null] }] }, 'messages[0].content[0]', 'all'],
  [
    'text that is not text',
    { messages: [{ role: 'user', content: [{ type: 'text', text: 5 }] }] },
    'messages[0].content[0].text',
    '',
  ],
  [
    'tool_calls an object',
    { messages: [user, { role: 'assistant', content: null, tool_calls: {} }] },
    'messages[1].tool_calls',
    'gemini',
  ],
  [
    'a tool call without a function',
    { messages: [user, call({ id: 'call_1', type: 'function' })] },
    'messages[1].tool_calls[0].function',
    'all',
  ],
  [
    'a tool call without an id',
    { messages: [user, call({ type: 'function', function: fn }), result] },
    'messages[1].tool_calls[0].id',
    'anthropic',
  ],
  [
    'arguments that are not text',
    { messages: [user, call({ id: 'call_1', type: 'function', function: { name: 'weather', arguments: {} } })] },
    'messages[1].tool_calls[0].function.arguments',
    'all',
  ],
  [
    'a tool result without its call id',
    { messages: [user, call({ id: 'call_1', type: 'function', function: fn }), { role: 'tool', content: 'x' }] },
    'messages[2].tool_call_id',
    'anthropic',
  ],
  [
    'tool_choice without a function',
    { tools: [{ type: 'function', function: { name: 'weather' } }], tool_choice: { type: 'function' } },
    'tool_choice',
    'anthropic',
  ],
  [
    'tool_choice another string',
    { tools: [{ type: 'function', function: { name: 'weather' } }], tool_choice: 'weather' },
    'tool_choice',
    'anthropic',
  ],
  ['tools an object', { tools: {} }, 'tools', ''],
  ['reasoning_effort a number', { reasoning_effort: 5 }, 'reasoning_effort', 'gemini'],
  ['stop a number', { stop: 5 }, 'stop', ''],
  ['response_format a string', { response_format: 'json' }, 'response_format', ''],
];

const FORMATS = [
  ['anthropic', ANTHROPIC_ACCEPTED, anthropicFormat],
  ['gemini', GEMINI_ACCEPTED, geminiFormat],
  ['ollama', OLLAMA_ACCEPTED, ollamaFormat],
] as const;

describe('a translated request with a field of the wrong type is refused, naming it', () => {
  for (const [what, fields, field, threw] of MALFORMED) {
    const req = { model: 'm', messages: [user], ...fields } as HubRequest;
    for (const [name, table, format] of FORMATS) {
      it(`${what} → ${name}: refused at ${field}`, () => {
        if (threw === 'all' || threw === name) expect(() => format.requestFromHub(req)).toThrow(TypeError);
        const refusal = auditRequest(table, req).refusal;
        expect(refusal).toMatchObject({ field });
        expect(refusal!.fix).toMatch(/^Send /);
      });
    }
  }

  it('a well-formed tool turn with text and image parts passes', () => {
    const req = {
      model: 'm',
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'Use tools.' }] },
        { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AA==' } }] },
        call({ id: 'call_1', type: 'function', function: fn }),
        result,
      ],
      tools: [{ type: 'function', function: { name: 'weather', parameters: { type: 'object' } } }],
      tool_choice: { type: 'function', function: { name: 'weather' } },
      stop: ['\n'],
      response_format: { type: 'json_schema', json_schema: { name: 'w', schema: { type: 'object' } } },
      reasoning_effort: 'low',
    } as HubRequest;
    for (const [, table] of FORMATS) expect(auditRequest(table, req).refusal).toBeNull();
  });
});
