// orchestrator.retention as the stores apply it (state.ts sweep(); Redis: the TTLs and the finished-task cap too).
import type { OrchestratorConfig } from '../../../shared/config.ts';
import type { RetentionRule } from './types.ts';

export function retentionRuleOf(cfg: Pick<OrchestratorConfig, 'retention'>): RetentionRule {
  return { finishedDays: cfg.retention.finished_days, maxFinishedTasks: cfg.retention.max_finished_tasks };
}

/** How often the retention period is applied (at most every minute; the count cap applies as tasks end). */
export const sweepEveryMs = (rule: RetentionRule): number =>
  rule.finishedDays > 0 ? Math.min(60_000, Math.max(100, (rule.finishedDays * 86_400_000) / 4)) : 60_000;
