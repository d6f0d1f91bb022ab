// Test helper: the fixtures the tests beside it share (a hub reply, NDJSON lines, the shapes of Ollama's fields).
import { expect } from 'vitest';
import type { HubResponse } from '../hub/index.ts';

export const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
export const CALL_ID = /^call_/;
export const ctx = { model: 'llama3.2' };
export const timingsShape = {
  total_duration: expect.any(Number),
  load_duration: 0,
  prompt_eval_duration: expect.any(Number),
  eval_duration: expect.any(Number),
};

/** NDJSON text as its objects (it must end with a newline). */
export const lines = (text: string): Record<string, unknown>[] => {
  expect(text.endsWith('\n')).toBe(true);
  return text
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
};

/** A hub reply of Ollama's reference text, with its usage, changed by `over`. */
export const hubText = (
  over: Partial<HubResponse['choices'][0]> = {},
  usage = { prompt_tokens: 26, completion_tokens: 298, total_tokens: 324 },
): HubResponse => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: Math.floor(Date.now() / 1000),
  model: 'upstream-model',
  choices: [
    {
      index: 0,
      message: { role: 'assistant', content: 'Hello! How are you today?' },
      finish_reason: 'stop',
      ...over,
    },
  ],
  usage,
});
