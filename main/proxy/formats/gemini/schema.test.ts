// Gemini's OpenAPI-subset Schema as JSON Schema.
import { describe, expect, it } from 'vitest';
import { schemaToJsonSchema } from './schema.ts';

describe('schemaToJsonSchema', () => {
  it('lower-cases types, turns nullable into a null type and keeps property names', () => {
    expect(
      schemaToJsonSchema({
        type: 'OBJECT',
        properties: {
          first_name: { type: 'STRING', nullable: true },
          tags: { type: 'ARRAY', items: { type: 'STRING', enum: ['A_B'] }, min_items: 1 },
        },
        any_of: [{ type: 'INTEGER' }],
        property_ordering: ['first_name', 'tags'],
      }),
    ).toEqual({
      type: 'object',
      properties: {
        first_name: { type: ['string', 'null'] },
        tags: { type: 'array', items: { type: 'string', enum: ['A_B'] }, minItems: 1 },
      },
      anyOf: [{ type: 'integer' }],
      propertyOrdering: ['first_name', 'tags'],
    });
  });
});
