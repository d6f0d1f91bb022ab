// Ollama's "load the model" calls (/api/chat with no messages, /api/generate with no prompt), answered by the router
// itself: it has nothing to load, so it says the model is ready, with done_reason "load" as Ollama does.
import { isObject } from '../hub/index.ts';

export function ollamaLoadReply(body: unknown, field: 'messages' | 'prompt'): unknown | null {
  if (!isObject(body) || typeof body.model !== 'string') return null;
  const empty =
    field === 'messages'
      ? Array.isArray(body.messages) && body.messages.length === 0
      : body.prompt === undefined || body.prompt === '';
  if (!empty) return null;
  const base = { model: body.model, created_at: new Date().toISOString(), done: true, done_reason: 'load' };
  return field === 'messages' ? { ...base, message: { role: 'assistant', content: '' } } : { ...base, response: '' };
}
