// The Overview's sentences, apart from React (tested in Node): routing's health in one line.
import type { ProviderStatus } from '../../shared/admin.ts';

/** Routing in one sentence: paused, no provider enabled, none failing (ok or not checked yet), or which fail. */
export function healthLine(providers: ProviderStatus[], paused: boolean): { ok: boolean; text: string } {
  if (paused) return { ok: false, text: 'Routing is paused: requests get 503 routing_paused until it is resumed.' };
  const enabled = providers.filter((p) => p.enabled && p.state !== 'disabled');
  if (enabled.length === 0) return { ok: false, text: 'No provider is enabled: requests have nowhere to go.' };
  const failed = enabled.filter((p) => p.state === 'failed' || p.circuit === 'open');
  if (failed.length === 0) {
    const unchecked = enabled.filter((p) => p.state === 'unknown').length;
    const ok = `${enabled.length - unchecked} ok`;
    return { ok: true, text: `Routing is healthy: ${unchecked ? `${ok}, ${unchecked} not checked yet` : ok}.` };
  }
  const names = failed.map((p) => p.name).join(', ');
  if (failed.length === enabled.length) return { ok: false, text: `Every provider is failing (${names}).` };
  return { ok: false, text: `${failed.length} of ${enabled.length} providers failing (${names}); the others serve.` };
}

/** When a budget's period ends and it starts again from $0: the next local midnight, or the 1st of next month. */
export function budgetResetsAt(period: 'day' | 'month', now: Date): Date {
  return period === 'day'
    ? new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1)
    : new Date(now.getFullYear(), now.getMonth() + 1, 1);
}

/** When a budget starts again, in local words: "at midnight (in 8 h 6 min)", or "Sat 1 Feb at midnight". */
export function resetText(period: 'day' | 'month', now: Date): string {
  const at = budgetResetsAt(period, now);
  if (period === 'day') {
    const min = Math.max(1, Math.round((at.getTime() - now.getTime()) / 60_000));
    return `at midnight (in ${min >= 60 ? `${Math.floor(min / 60)} h ${min % 60} min` : `${min} min`})`;
  }
  return `${at.toLocaleDateString([], { weekday: 'short', day: 'numeric', month: 'short' })} at midnight`;
}
