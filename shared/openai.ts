// The OpenAI chat-completions request, as far as the router must trust it: the rest passes through untouched.
import { z } from 'zod';

export const ChatMessageSchema = z.looseObject({
  role: z.string({ error: 'must be a string such as "user", "system" or "assistant"' }),
});

export const ChatRequestSchema = z.looseObject({
  model: z.string({ error: 'is required: the model name, e.g. "gpt-4o-mini"' }).min(1, 'must not be empty'),
  messages: z.array(ChatMessageSchema, { error: 'must be an array of {role, content} objects' }),
  stream: z.boolean({ error: 'must be true or false' }).optional(),
});
