// What an OpenAI-compatible provider makes of a hub request (the rules: ../hub/accepted.ts): the request goes out as
// it is, every field the client sent carried along, but for the hub's own fields OpenAI does not have.
// ../accepted.test.ts checks this table against requestFromHub.
import { type AcceptedFields, dropped, elsewhere } from '../hub/accepted.ts';

export const OPENAI_ACCEPTED: AcceptedFields = {
  label: 'an OpenAI-compatible provider',
  carriesUnknown: true,
  strictTools: 'translated',
  reasoningHistory: 'translated',
  fields: {
    top_k: dropped('OpenAI has no top_k (it refuses the field)'),
    reasoning_budget: elsewhere('as reasoning_effort, which the hub carries beside it'),
  },
};
