// orchestrator.retention as the stores apply it (state.ts sweep(); Redis: the TTLs and the finished-task cap too).
import type { OrchestratorConfig } from '../../../shared/config.ts';
import type { RetentionRule } from './types.ts';

export function retentionRuleOf(cfg: Pick<OrchestratorConfig, 'retention'>): RetentionRule {
  return { finishedDays: cfg.retention.finished_days, maxFinishedTasks: cfg.retention.max_finished_tasks };
}
