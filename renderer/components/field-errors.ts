// Config problems in the page's own words, next to the field they are about: a problem's path in config.json
// (`providers[6].name`) is mapped to the page's field (the provider form's Name), and the schema's message is said as
// a sentence about that field ("Name is already used by another provider."). What no field of the page shows is kept
// for the page's list of problems.
import type { ConfigProblem } from '../../shared/config.ts';

/** One field of a page: the config paths it shows (a pattern over the path) and its label in the page's words. */
export type FieldRule = {
  /** A pattern over the problem's path, e.g. /^routing\.rules\[(\d+)\]\.pattern$/. */
  path: RegExp;
  /** The field's key on the page, from the match (e.g. `rule-3-pattern`). */
  key: (m: RegExpExecArray) => string;
  /** The field's name as the page labels it ("Name", "Pattern"). */
  label: string;
};

/** Errors by field key (one sentence each, the first problem of the field), and the problems no field took. */
export type FieldErrors = { fields: Record<string, string>; rest: ConfigProblem[] };

const upper = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const sentence = (s: string) => (/[.!?]$/.test(s) ? s : `${s}.`);

/**
 * One problem as a sentence about the field labelled `label`. Known schema messages get words of their own; the rest
 * keep the schema's words (they are written as the end of a sentence about the field: "must be between 1 and 65535").
 */
export function problemInWords(label: string, p: ConfigProblem): string {
  const m = p.message;
  const value = typeof p.value === 'string' ? p.value : undefined;
  if (m.startsWith('is used by two providers')) return `${label} is already used by another provider.`;
  const ref = /^names no provider; use one of: (.*)$/.exec(m);
  if (ref) return `No provider is named "${value ?? ''}": pick one of ${ref[1]}.`;
  if (m.startsWith('names no provider')) return `No provider is named "${value ?? ''}": add the provider first.`;
  const same = /^is the same app as app_rules\[\d+\] \("([^"]*)"\)/.exec(m);
  if (same)
    return `"${value ?? ''}" is the same app as the rule for "${same[1]}" (app names ignore case): edit that rule instead.`;
  if (/^is required/.test(m)) return `${label} is required.`;
  if (/^must be an? number/.test(m)) return `${label} must be a number.`;
  return sentence(`${upper(label)} ${m}`);
}

/** Sorts `problems` into the page's fields (by `rules`, the first rule that matches a path) and the rest. */
export function fieldErrors(problems: readonly ConfigProblem[], rules: readonly FieldRule[]): FieldErrors {
  const fields: Record<string, string> = {};
  const rest: ConfigProblem[] = [];
  for (const p of problems) {
    let taken = false;
    for (const r of rules) {
      const m = r.path.exec(p.path);
      if (!m) continue;
      const key = r.key(m);
      fields[key] ??= problemInWords(r.label, p);
      taken = true;
      break;
    }
    if (!taken) rest.push(p);
  }
  return { fields, rest };
}

/** A problem no field of the page shows, in words with its place in config.json. */
export function restInWords(p: ConfigProblem): string {
  return sentence(`${p.path} ${p.message}`);
}

/** Where a config warning is, in the page's words: "rule 2", "the default provider", "the app rule for zed". */
export function warningPlace(path: string, cfg?: { app_rules?: { app?: string }[] }): string {
  const rule = /^routing\.rules\[(\d+)\]/.exec(path);
  if (rule) return `rule ${Number(rule[1]) + 1}`;
  if (path === 'routing.default_provider') return 'the default provider';
  const app = /^app_rules\[(\d+)\]/.exec(path);
  if (app) {
    const name = cfg?.app_rules?.[Number(app[1])]?.app;
    return name ? `the app rule for ${name}` : `app rule ${Number(app[1]) + 1}`;
  }
  return path;
}

/** A config warning as a sentence about its place: 'rule 2: provider "off" is disabled: models matching … .' */
export function warningInWords(w: ConfigProblem, cfg?: { app_rules?: { app?: string }[] }): string {
  const what = w.message.replace(/^names provider "([^"]*)", which is disabled: /, 'provider "$1" is disabled: ');
  return sentence(`${warningPlace(w.path, cfg)}: ${what}`);
}

/**
 * What a save came to, said the same way on the page and in the live region (issue 34, bug 11: the page said
 * "Saved." while the announcement had the warnings): "Routing saved.", or "Routing saved, with a warning: …".
 */
export function savedText(
  subject: string,
  warnings: ConfigProblem[],
  cfg?: { app_rules?: { app?: string }[] },
  teamNote?: string,
): string {
  const n = warnings.length === 1 ? 'a warning' : `${warnings.length} warnings`;
  const saved =
    warnings.length === 0
      ? `${subject} saved.`
      : `${subject} saved, with ${n}: ${warnings.map((w) => warningInWords(w, cfg)).join(' ')}`;
  // An instance of a team (store "redis"): the server's note that the save is this instance's only, said first.
  return teamNote ? `${teamNote} ${saved}` : saved;
}
