// What an Anthropic provider makes of each field of a hub request (the rules: ../hub/accepted.ts): translated by
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

export const ANTHROPIC_ACCEPTED: AcceptedFields = {
  label: 'an Anthropic provider',
  strictTools: 'Anthropic has no strict tool schemas',
  reasoningHistory: "an earlier turn's reasoning: Anthropic reads back only its own signed thinking blocks",
  fields: {
    ...TRANSLATING_DEFAULTS,
    stream: translated,
    tools: translated,
    tool_choice: translated,
    // false → disable_parallel_tool_use; true is what Anthropic does anyway.
    parallel_tool_calls: translatedWhen((v) => v === false),
    temperature: translated,
    top_p: translated,
    top_k: translated,
    max_tokens: translated,
    max_completion_tokens: translated,
    stop: translated,
    user: translated,
    seed: dropped('Anthropic has no seed'),
    presence_penalty: dropped('Anthropic has no presence penalty'),
    frequency_penalty: dropped('Anthropic has no frequency penalty'),
    n: refused(
      'it answers one choice per request',
      'Leave n out (or send 1), or route this model to an OpenAI-compatible or Gemini provider.',
      (v) => typeof v === 'number' && v > 1,
    ),
    // A forced answer tool whose input schema is the answer's (structured-output.ts).
    response_format: translatedWhen(jsonFormat),
    reasoning_effort: translated,
    reasoning_budget: translated,
  },
};
