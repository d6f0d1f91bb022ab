// Test helper: fixtures shared by the Responses tests (hub replies, the echoed defaults, stable ids, a function call).
import { HUB_HEAD } from '../fixtures.test-helper.ts';

export const ctx = { model: 'gpt-4.1' };

/** Replaces generated ids (resp_, msg_, fc_, rs_, call_) with stable names in order of appearance. */
export function stableIds(text: string): string {
  const seen = new Map<string, string>();
  return text.replace(/\b(resp|msg|fc|rs|call)_[a-z0-9]{8,}\b/g, (id, prefix: string) => {
    if (!seen.has(id))
      seen.set(id, `${prefix}_${[...seen.keys()].filter((k) => k.startsWith(prefix + '_')).length + 1}`);
    return seen.get(id)!;
  });
}

/** The head of the provider's hub replies (the shared one). */
export const base = HUB_HEAD;
export const usage = { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 };
export const responsesUsage = {
  input_tokens: 5,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: 2,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 7,
};

/** A completed function_call item, as a client sends it back and as a provider answers it. */
export const parisCall = {
  type: 'function_call',
  id: 'fc_1',
  call_id: 'call_1',
  name: 'get_weather',
  arguments: '{"city":"Paris"}',
  status: 'completed',
};

export const echoed = {
  instructions: null,
  max_output_tokens: null,
  parallel_tool_calls: true,
  previous_response_id: null,
  store: false,
  temperature: null,
  text: { format: { type: 'text' } },
  tool_choice: 'auto',
  tools: [],
  top_p: null,
  metadata: {},
};
