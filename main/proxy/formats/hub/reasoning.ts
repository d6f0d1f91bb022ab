// Reasoning settings between the hub's effort levels (OpenAI's reasoning_effort) and token budgets (Anthropic's
// thinking.budget_tokens, Gemini's thinkingConfig.thinkingBudget): one scale, both ways.
import type { ReasoningEffort } from './types.ts';

/** The budget each effort stands for when a provider takes only a budget (Anthropic's minimum is 1,024). */
const BUDGET_OF: Record<Exclude<ReasoningEffort, 'none'>, number> = {
  minimal: 1_024,
  low: 2_048,
  medium: 8_192,
  high: 24_576,
};

/** A token budget as an effort level: 0 is 'none'; otherwise the smallest level whose budget covers it. */
export function effortFromBudget(budget: number): ReasoningEffort {
  if (budget <= 0) return 'none';
  if (budget <= BUDGET_OF.minimal) return 'minimal';
  if (budget <= BUDGET_OF.low) return 'low';
  if (budget <= BUDGET_OF.medium) return 'medium';
  return 'high';
}

/** An effort level as a token budget (0 for 'none'), kept below the reply's max tokens when one is set. */
export function budgetFromEffort(effort: ReasoningEffort, maxTokens?: number): number {
  if (effort === 'none') return 0;
  const budget = BUDGET_OF[effort];
  return maxTokens !== undefined && maxTokens > 1 ? Math.min(budget, maxTokens - 1) : budget;
}

/** The hub's budget when the client gave one, else the budget its effort stands for; undefined when neither is set. */
export function reasoningBudgetOf(
  req: { reasoning_effort?: ReasoningEffort; reasoning_budget?: number },
  maxTokens?: number,
): number | undefined {
  if (req.reasoning_budget !== undefined) return req.reasoning_budget;
  return req.reasoning_effort !== undefined ? budgetFromEffort(req.reasoning_effort, maxTokens) : undefined;
}
