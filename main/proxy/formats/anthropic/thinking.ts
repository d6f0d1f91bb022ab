// Provider side: the hub's reasoning settings (reasoning_effort, reasoning_budget) as Anthropic's `thinking`, and
// what gives way to it: Anthropic refuses thinking with a forced tool choice, with top_k, with a temperature other
// than 1 and with a top_p below 0.95.
import { effortFromBudget, maxTokensOf, reasoningBudgetOf } from '../hub/index.ts';
import type { HubRequest, ReasoningEffort } from '../hub/index.ts';
import type { AnthropicEffort, AnthropicRequest } from './types.ts';

/** Anthropic's smallest thinking budget. */
export const MIN_THINKING_BUDGET = 1024;

/** Room left for the answer above the thinking budget when the hub request sets no max tokens. */
const ANSWER_ROOM = 4096;

const EFFORT_FROM_HUB: Record<Exclude<ReasoningEffort, 'none'>, AnthropicEffort> = {
  minimal: 'low',
  low: 'low',
  medium: 'medium',
  high: 'high',
};

/**
 * Claude models of version 4.6 or later (claude-opus-4-6, claude-sonnet-5, …, also behind a prefix such as
 * "anthropic/" or "us.anthropic."): they take adaptive thinking with an effort, and the newest refuse a token budget.
 * A name that does not read as a Claude version (an Anthropic-compatible server's model) gets the budget form.
 */
export function takesAdaptiveThinking(model: string): boolean {
  const m = /claude-[a-z]+-(\d{1,2})(?:-(\d{1,2}))?(?!\d)/.exec(model);
  if (!m) return false;
  const major = Number(m[1]);
  const minor = m[2] === undefined ? 0 : Number(m[2]);
  return major > 4 || (major === 4 && minor >= 6);
}

/**
 * Writes `thinking` (and for adaptive models output_config.effort) for the hub's reasoning settings, and removes the
 * sampling fields Anthropic refuses alongside it. 'none' (or a budget of 0) sends thinking disabled. `forcedTool`:
 * the request forces a tool (the client's tool_choice, or structured output); Anthropic refuses thinking with it,
 * and the forced tool wins (it is the client's contract), so thinking stays off. A budget goes up to Anthropic's
 * 1,024 minimum and below max_tokens: without max tokens in the hub request, max_tokens becomes the budget plus
 * 4,096; with them, the budget shrinks below them, and when that leaves less than 1,024 thinking stays off.
 */
export function thinkingFromHub(req: HubRequest, out: AnthropicRequest, forcedTool: boolean): void {
  const budget = reasoningBudgetOf(req);
  if (budget === undefined) return;
  if (budget <= 0 || req.reasoning_effort === 'none') {
    out.thinking = { type: 'disabled' };
    return;
  }
  if (forcedTool) return;
  if (takesAdaptiveThinking(out.model)) {
    const effort = req.reasoning_effort ?? effortFromBudget(budget);
    out.thinking = { type: 'adaptive' };
    if (effort !== 'none') out.output_config = { effort: EFFORT_FROM_HUB[effort] };
  } else {
    let tokens = Math.max(MIN_THINKING_BUDGET, budget);
    if (maxTokensOf(req) === undefined) out.max_tokens = tokens + ANSWER_ROOM;
    else if (tokens >= out.max_tokens) tokens = out.max_tokens - 1;
    if (tokens < MIN_THINKING_BUDGET) return;
    out.thinking = { type: 'enabled', budget_tokens: tokens };
  }
  delete out.top_k;
  if (out.temperature !== undefined && out.temperature !== 1) delete out.temperature;
  if (out.top_p !== undefined && out.top_p < 0.95) delete out.top_p;
}
