// The limits in force, in words, from the admin status (docs/gateway.md, "Limits"): the Settings page shows them.
import type { LimitInForce, LimitsStatus, ScopeLimits, StoreStatus } from '../../shared/admin.ts';

type Name = 'rpm' | 'tpm' | 'concurrency';
const NAMES: readonly Name[] = ['rpm', 'tpm', 'concurrency'];

const num = (n: number): string => n.toLocaleString('en-US');

function amount(name: Name, value: number, windowMs: number): string {
  const per = windowMs === 60_000 ? '/min' : ` per ${num(windowMs)} ms`;
  if (name === 'rpm') return `${num(value)} requests${per}`;
  if (name === 'tpm') return `${num(value)} tokens${per}`;
  return `${num(value)} in flight at once`;
}

function origin(l: LimitInForce): string {
  if (l.source === 'key') return "the key's own";
  if (l.source === 'gateway_default') return 'default';
  return l.field;
}

/** "60 requests/min (default), 10 in flight at once (limits.per_key.ci.concurrency)"; null when none is set. */
function valuesText(s: ScopeLimits, windowMs: number): string | null {
  const parts = NAMES.filter((n) => s[n].value > 0).map((n) => `${amount(n, s[n].value, windowMs)} (${origin(s[n])})`);
  return parts.length ? parts.join(', ') : null;
}

function scopeName(scope: string): string {
  const [kind, ...rest] = scope.split(':');
  const name = rest.join(':');
  if (kind === 'app') return `app "${name}"`;
  if (kind === 'key') return `key "${name}"`;
  if (kind === 'pat') return `personal access token "${name}"`;
  return `JWT subject "${name}"`;
}

/** The headline, why this mode, and one line per scope with entries of its own. */
export function limitsInWords(s: LimitsStatus): { headline: string; reason: string; lines: string[] } {
  const reason = `${s.mode === 'local' ? 'Local' : 'Gateway'} mode because ${s.mode_reason}.`;
  if (!s.enabled)
    return {
      headline: 'Limits are off: limits.enabled is false in config.json, so no request is limited.',
      reason,
      lines: [],
    };
  const every = valuesText(s.default, s.window_ms);
  let headline: string;
  if (s.mode === 'local') {
    headline = every
      ? `Local mode: each app gets ${every}.`
      : `Local mode: no limits${s.scopes.length ? ' except for the apps below' : ''}; set limits.rpm, limits.tpm ` +
        'or limits.concurrency in config.json to add one (limits.per_app.<app> for one app).';
  } else {
    const defaults = NAMES.every((n) => s.default[n].source === 'gateway_default');
    const values = NAMES.map((n) => amount(n, s.default[n].value, s.window_ms));
    headline = defaults
      ? `Gateway mode: ${values.join(', ')} per key (the defaults; set limits.rpm, limits.tpm or ` +
        'limits.concurrency in config.json to change them, limits.per_key.<name> for one key).'
      : every
        ? `Gateway mode: ${every} per key.`
        : 'Gateway mode: no limits per key (limits.rpm, limits.tpm and limits.concurrency are 0 in config.json).';
  }
  const lines = s.scopes.map((sc) => `${scopeName(sc.scope)}: ${valuesText(sc, s.window_ms) ?? 'no limits'}`);
  return { headline, reason, lines };
}

/**
 * Where limits, keys, video tasks and breakers are kept (docs/team.md, "Shared state"), in words; null for the embedded
 * store (the default: nothing to say). `since` is shown as given (an ISO time), `now` only decides nothing here.
 */
export function storeInWords(store: StoreStatus | undefined): { text: string; down: boolean } | null {
  if (!store || store.kind === 'embedded') return null;
  const where = store.url ? ` (${store.url})` : '';
  if (store.up)
    return {
      text: `Shared with the team through Redis${where}, connected since ${store.since}: limits, keys, video tasks and circuit breakers are the same on every instance.`,
      down: false,
    };
  return {
    text: `Redis${where} is unreachable since ${store.since}: requests keep flowing, with limits counted by this instance alone until it is back.`,
    down: true,
  };
}
