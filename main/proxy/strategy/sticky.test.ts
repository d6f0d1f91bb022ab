import { expect, it } from 'vitest';
import { stickyKeyOf } from './sticky.ts';

it('pins by the session header first, then prompt_cache_key, then a hash of the first message', () => {
  const first = { role: 'user', content: 'Fix the failing test in src/app.ts' };
  expect(stickyKeyOf({ 'x-claude-code-session-id': 'abc-123' }, { prompt_cache_key: 'k' }, first)).toBe('s:abc-123');
  expect(stickyKeyOf({}, { prompt_cache_key: 'conv-42' }, first)).toBe('k:conv-42');
  const a = stickyKeyOf({}, {}, first);
  expect(a).toMatch(/^m:[A-Za-z0-9_-]{22}$/);
  expect(stickyKeyOf({}, null, { ...first })).toBe(a); // the same conversation, turn after turn
  expect(stickyKeyOf({}, null, { role: 'user', content: 'another' })).not.toBe(a);
  expect(stickyKeyOf({}, null, undefined)).toBeNull();
  expect(stickyKeyOf({}, { prompt_cache_key: 'x'.repeat(500) }, undefined)).toHaveLength(2 + 128);
});
