// What an Ollama provider makes of each field of a hub request (the rules: ../hub/accepted.ts): translated by
// request-from-hub.ts, dropped with the reason (x-switchboard-dropped), or refused with a 400. ../accepted.test.ts
// checks this table against requestFromHub.
import {
  type AcceptedFields,
  dropped,
  jsonFormat,
  refused,
  translated,
  translatedWhen,
  TRANSLATING_DEFAULTS,
} from '../hub/accepted.ts';

export const OLLAMA_ACCEPTED: AcceptedFields = {
  label: 'an Ollama provider',
  strictTools: 'Ollama tools have no strict flag',
  reasoningHistory: 'translated',
  fields: {
    ...TRANSLATING_DEFAULTS,
    stream: translated,
    tools: translated,
    // "none" sends no tools and a named function sends only it; "auto" is Ollama's way anyway.
    tool_choice: [
      translatedWhen((v) => v === 'none' || (typeof v === 'object' && v !== null)),
      dropped('Ollama cannot force a tool call: the model may answer in text', (v) => v === 'required'),
    ],
    parallel_tool_calls: dropped(
      'Ollama has no switch for it: the model may still call several tools at once',
      (v) => v === false,
    ),
    temperature: translated,
    top_p: translated,
    top_k: translated,
    max_tokens: translated,
    max_completion_tokens: translated,
    stop: translated,
    seed: translated,
    presence_penalty: translated,
    frequency_penalty: translated,
    n: refused(
      'it answers one choice per request',
      'Leave n out (or send 1), or route this model to an OpenAI-compatible or Gemini provider.',
      (v) => typeof v === 'number' && v > 1,
    ),
    response_format: translatedWhen(jsonFormat),
    user: dropped('Ollama has no end-user id'),
    reasoning_effort: translated,
    reasoning_budget: translated,
  },
};
