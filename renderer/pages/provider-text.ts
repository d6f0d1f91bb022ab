// A provider's live state in words for the Providers page: its circuit breaker and the cool-down left, and the
// outcome of a connection test.
import { presetById, vendorPresetOf } from '../../shared/presets.ts';
import type { ProviderStatus } from '../../shared/admin.ts';
import type { ApiResult, ProviderTestResult } from '../../shared/ipc.ts';

/**
 * The breaker in words: closed (requests go), open with the cool-down left (skipped until then), half-open (the
 * next request tries it again). `now` in ms since the epoch.
 */
export function circuitText(st: Pick<ProviderStatus, 'circuit' | 'circuit_opens_until'>, now: number): string {
  if (st.circuit === 'half_open') return 'half-open: the next request tries it again';
  if (st.circuit !== 'open') return 'closed';
  const until = st.circuit_opens_until ? Date.parse(st.circuit_opens_until) : NaN;
  if (!Number.isFinite(until) || until <= now) return 'open: the next request tries it again';
  const s = Math.ceil((until - now) / 1000);
  const left = s >= 120 ? `${Math.ceil(s / 60)} min` : `${s} s`;
  return `open: skipped for ${left} more (cool-down)`;
}

/** A connection test's outcome in one line. */
export function testText(r: ApiResult<ProviderTestResult>): string {
  if (!r.ok) return `test failed: ${r.failure.error.message}`;
  const d = r.data;
  if (d.ok) return `ok in ${d.latency_ms} ms, ${d.models} ${d.models === 1 ? 'model' : 'models'}`;
  return `failed: ${d.error ?? 'no answer'}`;
}

/**
 * Where to fix a rule that names a disabled provider: its preset's form when it has no key yet (a first run's
 * template), else the Providers page to enable it.
 */
export function disabledFix(
  name: string,
  providers: { name: string; base_url: string; api_key?: string }[],
): { href: string; label: string } | null {
  const p = providers.find((x) => x.name === name);
  if (!p) return null;
  const preset = vendorPresetOf(p.base_url) ?? presetById(name);
  if (preset && !p.api_key) return { href: `#/providers/add/${preset.id}`, label: `Set up ${preset.name}…` };
  return { href: '#/providers', label: `Enable it on Providers` };
}
