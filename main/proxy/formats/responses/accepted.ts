// What a provider that speaks Responses makes of each field of a hub request (the rules: ../hub/accepted.ts):
// translated by request-from-hub.ts, dropped with the reason (x-switchboard-dropped), or refused with a 400.
// ../accepted.test.ts checks this table against requestFromHub.
import {
  type AcceptedFields,
  dropped,
  jsonFormat,
  refused,
  translated,
  translatedWhen,
  TRANSLATING_DEFAULTS,
} from '../hub/accepted.ts';

export const RESPONSES_ACCEPTED: AcceptedFields = {
  label: 'a Responses provider',
  strictTools: 'translated',
  reasoningHistory: "an earlier turn's reasoning: a Responses provider reads back only its own reasoning items",
  fields: {
    ...TRANSLATING_DEFAULTS,
    stream: translated,
    tools: translated,
    tool_choice: translated,
    parallel_tool_calls: translated,
    temperature: translated,
    top_p: translated,
    max_tokens: translated,
    max_completion_tokens: translated,
    response_format: translatedWhen(jsonFormat),
    user: translated,
    top_k: dropped('Responses has no top_k'),
    stop: dropped('Responses has no stop sequences'),
    seed: dropped('Responses has no seed'),
    presence_penalty: dropped('Responses has no presence penalty'),
    frequency_penalty: dropped('Responses has no frequency penalty'),
    n: refused(
      'it answers one choice per request',
      'Leave n out (or send 1), or route this model to an OpenAI chat-completions provider.',
      (v) => typeof v === 'number' && v > 1,
    ),
    reasoning_effort: translated,
    reasoning_budget: dropped('Responses takes a reasoning effort, not a budget (the effort is sent)'),
  },
};
