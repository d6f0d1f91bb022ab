import { describe, expect, it } from 'vitest';
import { budgetFromEffort, effortFromBudget, reasoningBudgetOf } from './reasoning.ts';

describe('reasoning effort and budgets', () => {
  it('maps budgets to levels and levels to budgets on one scale', () => {
    expect([0, 500, 1024, 2000, 8192, 10_000, 64_000].map(effortFromBudget)).toEqual([
      'none',
      'minimal',
      'minimal',
      'low',
      'medium',
      'high',
      'high',
    ]);
    for (const e of ['minimal', 'low', 'medium', 'high'] as const)
      expect(effortFromBudget(budgetFromEffort(e))).toBe(e);
    expect(budgetFromEffort('none')).toBe(0);
    expect(budgetFromEffort('high', 4096)).toBe(4095);
  });

  it("prefers the client's own budget over the one its effort stands for", () => {
    expect(reasoningBudgetOf({ reasoning_effort: 'low', reasoning_budget: 5000 })).toBe(5000);
    expect(reasoningBudgetOf({ reasoning_effort: 'medium' })).toBe(8192);
    expect(reasoningBudgetOf({})).toBeUndefined();
  });
});
