// One request's details in a drawer beside the log: what became of it (the provider, or why none was tried), times to
// the millisecond, tokens, and every attempt with the fields its provider did not get. Focus moves into it when it
// opens. It is not modal (the list stays usable beside it, as a mail app's reading pane): Tab from its last control
// goes back to the row it shows (never to the page's <body>), and Escape closes it wherever the focus is (issue 34,
// bug 14), as Close does.
import { type KeyboardEvent, useEffect, useRef } from 'react';
import type { RequestLogEntry } from '../../shared/admin.ts';
import { CaptureView } from './CaptureView.tsx';
import { attemptsText, formatDateTime, outcomeText, tokensText } from './log-text.ts';

export function LogDrawer({
  entry,
  onClose,
  onTabOut,
}: {
  entry: RequestLogEntry;
  onClose: () => void;
  /** Tab from the drawer's last control: focus goes back to the row it shows. */
  onTabOut: () => void;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  const box = useRef<HTMLElement>(null);
  useEffect(() => heading.current?.focus(), [entry.id]);
  // Escape closes it from anywhere while it is open (focus on the list, or lost to the page).
  const close = useRef(onClose);
  close.current = onClose;
  useEffect(() => {
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (e.key !== 'Escape' || e.defaultPrevented) return;
      e.preventDefault();
      close.current();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
  const onKey = (e: KeyboardEvent) => {
    if (e.key !== 'Tab' || e.shiftKey) return;
    const controls = box.current?.querySelectorAll<HTMLElement>('button, a[href], summary, [tabindex="0"]');
    const last = controls?.[controls.length - 1];
    if (last && document.activeElement === last) {
      e.preventDefault();
      onTabOut();
    }
  };
  const ms = (v: number | null) => (v === null ? '—' : `${Math.round(v)} ms`);

  return (
    <aside
      ref={box}
      className="drawer"
      role="dialog"
      aria-modal="false"
      aria-labelledby="log-detail-title"
      data-testid="log-detail"
      onKeyDown={onKey}
    >
      <div className="drawer-head">
        <h3 id="log-detail-title" tabIndex={-1} ref={heading}>
          {entry.method} {entry.path} → {entry.status}
        </h3>
        <button onClick={onClose} data-testid="log-detail-close">
          Close
        </button>
      </div>
      <p data-testid="log-detail-outcome">
        <strong>{outcomeText(entry)}</strong>
        {entry.error_code ? ` (error ${entry.error_code})` : ''}
      </p>
      <dl className="facts">
        <dt>time</dt>
        <dd>{formatDateTime(entry.time)}</dd>
        <dt>app</dt>
        <dd>
          {entry.app ?? '—'} {entry.app_source ? `(named by ${entry.app_source})` : ''}
        </dd>
        <dt>model</dt>
        <dd className="mono">
          {entry.requested_model ?? '—'}
          {entry.routed_model && entry.routed_model !== entry.requested_model ? ` → ${entry.routed_model}` : ''}
        </dd>
        <dt>latency</dt>
        <dd>
          {ms(entry.latency_ms)}, first byte {ms(entry.ttfb_ms)}
          {entry.stream ? ', streamed' : ''}
        </dd>
        <dt>tokens</dt>
        <dd>{tokensText(entry)}</dd>
        <dt>attempts</dt>
        <dd>{attemptsText(entry)}</dd>
        <dt>id</dt>
        <dd className="mono small">{entry.id}</dd>
        {entry.replay_of && (
          <>
            <dt>replay of</dt>
            <dd className="mono small">{entry.replay_of}</dd>
          </>
        )}
        {entry.guard && (
          <>
            <dt>secret guard</dt>
            <dd data-testid="log-detail-guard">
              {entry.guard.action}:{' '}
              {entry.guard.found.map((f) => `${f.rule}${f.count > 1 ? ` ×${f.count}` : ''}`).join(', ')}
            </dd>
          </>
        )}
      </dl>
      {entry.captured && <CaptureView id={entry.id} />}
      {entry.attempts.length > 0 && (
        <>
          <h4>Attempts</h4>
          <ol data-testid="log-detail-attempts">
            {entry.attempts.map((a, i) => (
              <li key={i}>
                <strong>{a.provider}</strong>: {a.status ?? a.error} in {Math.round(a.latency_ms)} ms
                {a.status !== null && a.error ? ` (${a.error})` : ''}
                {a.dropped && a.dropped.length > 0 && (
                  <div className="small">not sent to it: {a.dropped.join('; ')}</div>
                )}
              </li>
            ))}
          </ol>
        </>
      )}
    </aside>
  );
}
