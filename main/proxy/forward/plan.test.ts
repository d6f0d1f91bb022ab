// The x-switchboard-dropped header names the fields a translation left out, and some of those names are the client's
// own keys: any text. A name Node cannot put in a header (a key such as "😀", or one with a line break) made the
// reply's writeHead throw, and the client got its connection closed with no answer (found by the fuzz suite).
import { validateHeaderValue } from 'node:http';
import { describe, expect, it } from 'vitest';
import { droppedHeader } from './plan.ts';

describe('droppedHeader', () => {
  it('names each dropped field once, in order, without its reason', () => {
    expect(droppedHeader(['seed: no seed here', 'temperature=2: fixed at 1', 'seed: again'])).toBe('seed,temperature');
  });

  it('percent-encodes what a header cannot carry (non-ASCII, controls, spaces, commas, "%"), lone surrogates too', () => {
    const names = ['messages[].😀: only OpenAI', 'a\r\nb: x', 'c d,e%f: x', 'é: x', '\ud800: x'];
    const header = droppedHeader(names);
    expect(() => validateHeaderValue('x-switchboard-dropped', header)).not.toThrow();
    expect(header).toBe('messages[].%F0%9F%98%80,a%0D%0Ab,c%20d%2Ce%25f,%C3%A9,%EF%BF%BD');
  });

  it('stays short: each name at most 100 characters, at most 32 names, then how many more', () => {
    const many = Array.from({ length: 40 }, (_, i) => `k${i}${'x'.repeat(200)}: why`);
    const header = droppedHeader(many);
    const parts = header.split(',');
    expect(parts).toHaveLength(33);
    expect(parts[0]).toHaveLength(103);
    expect(parts[0]!.endsWith('...')).toBe(true);
    expect(parts[32]).toBe('...(8 more)');
  });
});
