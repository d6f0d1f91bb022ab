// The check of a task's final answer against context.response_format (ajv), and the 400 for a schema it cannot use.
import { describe, expect, it } from 'vitest';
import { outputCheck, retryPrompt, schemaProblems } from './structured-output.ts';

const weather = {
  type: 'json_schema' as const,
  json_schema: {
    name: 'weather',
    strict: true,
    schema: {
      type: 'object',
      properties: { city: { type: 'string' }, celsius: { type: 'number' }, sky: { enum: ['clear', 'cloudy'] } },
      required: ['city', 'celsius', 'sky'],
      additionalProperties: false,
    },
  },
};

describe('structured output', () => {
  it('passes an answer that fits, and one in a Markdown code fence (its result is the JSON alone)', () => {
    const check = outputCheck(weather)!;
    expect(check('{"city":"Oslo","celsius":-3,"sky":"clear"}')).toEqual({
      text: '{"city":"Oslo","celsius":-3,"sky":"clear"}',
      problems: [],
    });
    expect(check('```json\n{"city":"Oslo","celsius":1,"sky":"cloudy"}\n```')).toEqual({
      text: '{"city":"Oslo","celsius":1,"sky":"cloudy"}',
      problems: [],
    });
  });

  it('names each problem by its path: wrong type, missing, extra, not in the enum, not JSON', () => {
    const check = outputCheck(weather)!;
    expect(check('{"city":"Oslo","celsius":"cold","sky":"rain","wind":3}').problems).toEqual([
      '(the answer) must NOT have additional properties ("wind")',
      '/celsius must be number',
      '/sky must be equal to one of the allowed values (["clear","cloudy"])',
    ]);
    expect(check('{"city":"Oslo"}').problems).toEqual([
      "(the answer) must have required property 'celsius'",
      "(the answer) must have required property 'sky'",
    ]);
    expect(check('It is cold in Oslo.').problems[0]).toMatch(/^the answer is not JSON/);
    expect(retryPrompt(['/celsius must be number'])).toContain('- /celsius must be number');
  });

  it('json_object asks for a JSON object; text and no format ask for nothing', () => {
    const check = outputCheck({ type: 'json_object' })!;
    expect(check('{"a":1}').problems).toEqual([]);
    expect(check('[1,2]').problems).toEqual(['the answer is JSON but not an object (response_format json_object)']);
    expect(outputCheck({ type: 'text' })).toBeNull();
    expect(outputCheck(undefined)).toBeNull();
  });

  it('reads draft-07 schemas as draft-07 and 2020-12 ones ($defs, prefixItems) as 2020-12', () => {
    const draft7 = outputCheck({
      type: 'json_schema',
      json_schema: {
        name: 'd7',
        schema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'array', items: [{ type: 'string' }] },
      },
    })!;
    expect(draft7('["a", 1]').problems).toEqual([]);
    expect(draft7('[1]').problems).toEqual(['/0 must be string']);
    const modern = outputCheck({
      type: 'json_schema',
      json_schema: {
        name: 'm',
        schema: { $defs: { n: { type: 'integer' } }, type: 'array', prefixItems: [{ $ref: '#/$defs/n' }] },
      },
    })!;
    expect(modern('[1.5]').problems).toEqual(['/0 must be integer']);
  });

  it('refuses a schema it cannot compile, naming the field', () => {
    const bad = { type: 'json_schema' as const, json_schema: { name: 'x', schema: { type: 'object', required: 'a' } } };
    expect(schemaProblems(bad)).toEqual([
      { field: 'context.response_format.json_schema.schema', message: expect.stringMatching(/^is not a JSON Schema/) },
    ]);
    expect(schemaProblems(weather)).toEqual([]);
  });
});
