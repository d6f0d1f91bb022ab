import { expect, it } from 'vitest';
import type { HubRequest } from '../formats/hub/index.ts';
import { CONTINUE_INSTRUCTION, continuationHub } from './continuation.ts';

const hub: HubRequest = { model: 'm', messages: [{ role: 'user', content: 'Count.' }], stream: true };

it('continues as a prefill for Anthropic (trailing whitespace removed), a trailing assistant turn for Ollama', () => {
  expect(continuationHub(hub, 'one two ', 'anthropic').messages.slice(1)).toEqual([
    { role: 'assistant', content: 'one two' },
  ]);
  expect(continuationHub(hub, 'one two ', 'ollama').messages.slice(1)).toEqual([
    { role: 'assistant', content: 'one two ' },
  ]);
});

it('asks an OpenAI-style provider to continue after the answer so far; the request itself is not changed', () => {
  const out = continuationHub(hub, 'one two ', 'openai');
  expect(out.messages.slice(1)).toEqual([
    { role: 'assistant', content: 'one two ' },
    { role: 'user', content: CONTINUE_INSTRUCTION },
  ]);
  expect(hub.messages).toHaveLength(1);
  expect(out.stream).toBe(true);
});
