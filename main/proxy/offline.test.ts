import { expect, it } from 'vitest';
import { mapModel } from './offline.ts';

it('maps a model by the first glob that matches it, ignoring case; none matching gives null', () => {
  const map = { 'claude-sonnet-*': 'qwen3-coder:30b', 'claude-*': 'qwen3:8b', 'gpt-*': 'llama3.3' };
  expect(mapModel(map, 'claude-sonnet-4-6')).toBe('qwen3-coder:30b');
  expect(mapModel(map, 'Claude-Haiku-4-5')).toBe('qwen3:8b');
  expect(mapModel(map, 'gpt-5')).toBe('llama3.3');
  expect(mapModel(map, 'gemini-2.5-pro')).toBeNull();
  expect(mapModel({ '*': 'local' }, 'openai/gpt-oss-120b')).toBe('local');
});
