// generationConfig.thinkingConfig (thinkingBudget, thinkingLevel, includeThoughts) ↔ the hub's reasoning fields
// (reasoning_budget, reasoning_effort: ../hub/reasoning.ts), both sides.
import { absent, budgetFromEffort, effortFromBudget, invalid, isObject, maxTokensOf, writePath } from '../hub/index.ts';
import type { HubRequest, Json, ReasoningEffort } from '../hub/index.ts';

const PATH = 'generationConfig.thinkingConfig';

/** Gemini 3's thinking levels as the hub's efforts. */
const EFFORT_OF_LEVEL: Record<string, ReasoningEffort> = {
  MINIMAL: 'minimal',
  LOW: 'low',
  MEDIUM: 'medium',
  HIGH: 'high',
};

const KNOWN = new Set(['thinkingBudget', 'thinkingLevel', 'includeThoughts']);

function budgetOf(v: unknown): number | undefined {
  if (absent(v)) return undefined;
  // proto3 JSON: an int32 may come as a numeric string.
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < -1) {
    throw invalid(
      `"${PATH}.thinkingBudget" must be a whole number of tokens, 0 (no thinking) or -1 (dynamic); got ${JSON.stringify(v)}.`,
      `Send e.g. "thinkingBudget": 1024, or leave it out.`,
    );
  }
  return n;
}

function levelOf(v: unknown): ReasoningEffort | undefined {
  if (absent(v)) return undefined;
  const level = typeof v === 'string' ? v.toUpperCase() : undefined;
  if (level === 'THINKING_LEVEL_UNSPECIFIED') return undefined;
  const effort = level ? EFFORT_OF_LEVEL[level] : undefined;
  if (!effort) {
    throw invalid(
      `"${PATH}.thinkingLevel" must be MINIMAL, LOW, MEDIUM or HIGH; got ${JSON.stringify(v)}.`,
      'Send one of those levels, or leave thinkingLevel out.',
    );
  }
  return effort;
}

/**
 * Client side: thinkingConfig into the hub. A budget is carried as the client's own (reasoning_budget) with the
 * effort it stands for; 0 is effort 'none'; -1 (dynamic: thinking on, the model picks how much) is 'medium' without
 * a budget; a level is its effort. includeThoughts alone changes nothing (it shows thoughts, it does not turn
 * thinking on: Gemini refuses it for a model that does not think). A budget and a level together are a 400, as at
 * Gemini.
 */
export function thinkingToHub(config: unknown, req: HubRequest): void {
  if (absent(config)) return;
  if (!isObject(config)) {
    throw invalid(`"${PATH}" must be an object.`, 'Send e.g. {"thinkingBudget": 1024, "includeThoughts": true}.');
  }
  const unknown = Object.keys(config).find((k) => !KNOWN.has(k));
  if (unknown) {
    throw invalid(
      `"${PATH}.${unknown}" is not a thinkingConfig field.`,
      'Use thinkingBudget, thinkingLevel and includeThoughts only.',
    );
  }
  if (!absent(config.includeThoughts) && typeof config.includeThoughts !== 'boolean') {
    throw invalid(`"${PATH}.includeThoughts" must be true or false.`, 'Send "includeThoughts": true, or leave it out.');
  }
  const budget = budgetOf(config.thinkingBudget);
  const level = levelOf(config.thinkingLevel);
  if (budget !== undefined && level !== undefined) {
    throw invalid(
      `"${PATH}" has both thinkingBudget and thinkingLevel; Gemini takes one of them.`,
      'Send thinkingLevel (Gemini 3) or thinkingBudget (Gemini 2.5), not both.',
    );
  }
  if (level !== undefined) req.reasoning_effort = level;
  else if (budget === -1) req.reasoning_effort = 'medium';
  else if (budget !== undefined) {
    req.reasoning_effort = effortFromBudget(budget);
    req.reasoning_budget = budget;
  }
}

/** Gemini 1.x and 2.x take a thinking budget; later models take a thinking level. */
const takesBudget = (model: string): boolean => /^(models\/)?gemini-(1|2)[.-]/i.test(model);

/** The level for an effort; Gemini 3 cannot turn thinking off, and its Pro models have no MINIMAL level. */
function levelFromEffort(effort: ReasoningEffort, model: string): string {
  if (effort === 'none' || effort === 'minimal') return /pro/i.test(model) ? 'LOW' : 'MINIMAL';
  return effort.toUpperCase();
}

/**
 * The thinking budgets a Gemini 2.5 model takes (Google's "Thinking" guide): Pro cannot think less than 128 tokens
 * nor turn thinking off ("Budget 0 is invalid. This model only works in thinking mode."); Flash-Lite takes 512 and
 * up, or 0; Flash 0 and up. A budget outside its range is refused by the model.
 */
const BUDGET_RANGES: { model: RegExp; min: number; max: number; canTurnOff: boolean }[] = [
  { model: /^(models\/)?gemini-2\.5-pro/i, min: 128, max: 32768, canTurnOff: false },
  { model: /^(models\/)?gemini-2\.5-flash-lite/i, min: 512, max: 24576, canTurnOff: true },
  { model: /^(models\/)?gemini-2\.5-flash/i, min: 1, max: 24576, canTurnOff: true },
];

/** A budget the model takes: "no thinking" as the least a model that always thinks can do, others kept in range. */
function budgetForModel(budget: number, model: string): number {
  const range = BUDGET_RANGES.find((r) => r.model.test(model));
  if (!range || budget === -1 || (budget === 0 && range.canTurnOff)) return budget;
  return Math.min(Math.max(budget, range.min), range.max);
}

/**
 * Provider side: the hub's reasoning as thinkingConfig. The client's own budget goes as thinkingBudget; an effort
 * alone goes as a budget to Gemini 1.x/2.x (the hub's scale, kept below maxOutputTokens) and as thinkingLevel to
 * later models. A budget is kept in the range the model takes: "no thinking" to a model that cannot turn it off
 * (gemini-2.5-pro) is its least budget, 128 (as Gemini 3's "none" is its lowest level). Thoughts are asked for
 * (includeThoughts) whenever the client wants thinking, so they reach it as reasoning.
 */
export function thinkingFromHub(req: HubRequest, wire: Json): void {
  const { reasoning_budget: budget, reasoning_effort: effort } = req;
  if (budget === undefined && effort === undefined) return;
  const config: Json = {};
  if (budget !== undefined) config.thinkingBudget = budgetForModel(budget, req.model);
  else if (takesBudget(req.model)) {
    config.thinkingBudget = budgetForModel(budgetFromEffort(effort!, maxTokensOf(req)), req.model);
  } else config.thinkingLevel = levelFromEffort(effort!, req.model);
  const thinks = budget !== undefined ? budget !== 0 : effort !== 'none';
  if (thinks) config.includeThoughts = true;
  writePath(wire, PATH, config);
}
