// What a Gemini provider makes of each field of a hub request (the rules: ../hub/accepted.ts): translated by
// request-from-hub.ts, honoured in the URL, dropped with the reason (x-switchboard-dropped), or refused with a 400.
// ../accepted.test.ts checks this table against requestFromHub.
import {
  type AcceptedFields,
  dropped,
  jsonFormat,
  elsewhere,
  translated,
  translatedWhen,
  TRANSLATING_DEFAULTS,
} from '../hub/accepted.ts';

export const GEMINI_ACCEPTED: AcceptedFields = {
  label: 'a Gemini provider',
  strictTools: 'Gemini function declarations have no strict flag',
  reasoningHistory: "an earlier turn's reasoning: Gemini reads back only its own thoughts, by their signatures",
  fields: {
    ...TRANSLATING_DEFAULTS,
    model: elsewhere('the URL: /models/{model}:generateContent'),
    stream: elsewhere('the URL: :streamGenerateContent?alt=sse'),
    tools: translated,
    tool_choice: translated,
    parallel_tool_calls: dropped(
      'Gemini has no switch for it: the model may still call several functions at once',
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
    n: translated,
    response_format: translatedWhen(jsonFormat),
    user: dropped('Gemini has no end-user id'),
    reasoning_effort: translated,
    reasoning_budget: translated,
  },
};
