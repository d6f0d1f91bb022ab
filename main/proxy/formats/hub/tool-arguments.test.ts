// The one tool-arguments policy: text that is not a JSON object travels as {"_raw": text} and reads back as text.
import { describe, expect, it } from 'vitest';
import { argumentsFromHub, argumentsToHub, RAW_ARGUMENTS_KEY } from './tool-arguments.ts';

describe('tool arguments policy', () => {
  it('passes JSON objects through both ways, and empty text is {}', () => {
    expect(argumentsFromHub('{"city":"Paris"}')).toEqual({ city: 'Paris' });
    expect(argumentsToHub({ city: 'Paris' })).toBe('{"city":"Paris"}');
    expect(argumentsFromHub('  ')).toEqual({});
    expect(argumentsToHub(undefined)).toBe('{}');
    expect(argumentsToHub(null)).toBe('{}');
  });

  it('keeps text that is not a JSON object, and reads it back exactly', () => {
    for (const text of ['{"city": "Par', 'just prose', '[1,2]', '42', '"quoted"']) {
      const obj = argumentsFromHub(text);
      expect(obj).toEqual({ [RAW_ARGUMENTS_KEY]: text });
      expect(argumentsToHub(obj)).toBe(text);
    }
  });

  it('keeps text arguments as they came (an Ollama client may send them), and a _raw beside other keys is data', () => {
    expect(argumentsToHub('{"a":1}')).toBe('{"a":1}');
    expect(argumentsToHub({ _raw: 'x', other: 1 })).toBe('{"_raw":"x","other":1}');
  });
});
