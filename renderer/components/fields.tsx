// What the config pages put next to a field: its error in words (and the attributes that tie the field to it), a
// warning about a rule, and the unsaved-changes mark.
import type { ConfigProblem } from '../../shared/config.ts';

/** Attributes for the input of field `key`: invalid and described by its error when it has one. */
export function invalidProps(key: string, errors: Record<string, string>) {
  return errors[key] ? { 'aria-invalid': true as const, 'aria-describedby': `err-${key}` } : {};
}

/** The error of field `key` in words, under the field; nothing when it has none. */
export function FieldError({ field, errors }: { field: string; errors: Record<string, string> }) {
  const message = errors[field];
  if (!message) return null;
  return (
    <div className="field-error" id={`err-${field}`} data-testid={`field-error-${field}`}>
      {message}
    </div>
  );
}

/** The warnings about one rule (a disabled provider), beside it, each with where to fix it (`fix`: a link). */
export function RuleWarnings({
  warnings,
  testId,
  fix,
}: {
  warnings: ConfigProblem[];
  testId: string;
  /** The fix of a disabled provider: where to set it up or enable it, and the link's words. */
  fix?: (provider: string) => { href: string; label: string } | null;
}) {
  if (warnings.length === 0) return null;
  return (
    <div className="field-warning" data-testid={testId}>
      {warnings.map((w) => {
        const f = fix?.(String(w.value));
        return (
          <div key={w.path}>
            ⚠ Provider "{String(w.value)}" is disabled:{' '}
            {w.message.replace(/^names provider "[^"]*", which is disabled: /, '')}.
            {f && (
              <>
                {' '}
                <a href={f.href}>{f.label}</a>
              </>
            )}
          </div>
        );
      })}
    </div>
  );
}

/** "Unsaved changes" beside a page's heading while it holds edits. */
export function UnsavedMark({ dirty }: { dirty: boolean }) {
  if (!dirty) return null;
  return (
    <span className="unsaved" data-testid="unsaved">
      Unsaved changes
    </span>
  );
}

/** What the last save came to, in the words the live region said (green, or amber with its warnings). */
export function SavedLine({
  saved,
  testId,
  extra,
}: {
  saved: { text: string; warned: boolean } | null;
  testId: string;
  extra?: string;
}) {
  if (!saved) return null;
  return (
    <span className={saved.warned ? 'field-warning' : 'ok'} data-testid={testId}>
      {saved.text}
      {extra ? ` ${extra}` : ''}
    </span>
  );
}
