import { describe, expect, it } from 'vitest';
import { ollamaLoadReply } from './extras.ts';

describe('Ollama load calls', () => {
  it('answers /api/chat without messages and /api/generate without a prompt as loaded; routes everything else', () => {
    expect(ollamaLoadReply({ model: 'llama3', messages: [] }, 'messages')).toMatchObject({
      model: 'llama3',
      done: true,
      done_reason: 'load',
      message: { role: 'assistant', content: '' },
    });
    expect(ollamaLoadReply({ model: 'llama3' }, 'prompt')).toMatchObject({ done_reason: 'load', response: '' });
    expect(ollamaLoadReply({ model: 'llama3', prompt: '' }, 'prompt')).toMatchObject({ done_reason: 'load' });
    expect(ollamaLoadReply({ model: 'llama3', messages: [{ role: 'user', content: 'hi' }] }, 'messages')).toBeNull();
    expect(ollamaLoadReply({ model: 'llama3', prompt: 'hi' }, 'prompt')).toBeNull();
    expect(ollamaLoadReply({ messages: [] }, 'messages')).toBeNull();
    expect(ollamaLoadReply('x', 'messages')).toBeNull();
  });
});
