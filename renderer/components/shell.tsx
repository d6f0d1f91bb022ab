// The window's own parts around every page: the one live region (saves and test results are announced there), the
// banner while routing is paused, the guard on leaving a page with unsaved edits (a hash change, closing the window),
// and focus moved to the page's heading on navigation.
import { useEffect, useRef } from 'react';
import { useApp, useAppStore } from '../store/react.ts';

/** The one polite live region: reads the store's latest announcement. */
export function LiveRegion() {
  const { text, seq } = useApp((s) => s.announcement);
  return (
    <div className="sr-only" role="status" aria-live="polite" aria-atomic="true" data-testid="announcer">
      {/* A new key per announcement: the same words said twice are read twice. */}
      <span key={seq}>{text}</span>
    </div>
  );
}

/** Shown on every page while routing is paused, with Resume. */
export function PausedBanner({ onResume }: { onResume: () => void }) {
  const paused = useApp((s) => s.status?.paused === true);
  if (!paused) return null;
  return (
    <div className="banner paused" data-testid="paused-banner">
      <strong>Routing is paused.</strong> Every model request gets 503 routing_paused until you resume.{' '}
      <button onClick={onResume} data-testid="paused-banner-resume">
        Resume routing
      </button>
    </div>
  );
}

/** After a config save on an instance of a team (the Redis store): the save changed this instance only. */
export function TeamSaveNote() {
  const note = useApp((s) => s.saveNote);
  if (!note) return null;
  return (
    <div className="banner" role="note" data-testid="team-save-note">
      {note}
    </div>
  );
}

/** Shown on every page while requests are served by routing.offline's local providers (docs/routing.md, "Offline fallback"). */
export function OfflineBanner() {
  const offline = useApp((s) => s.status?.offline ?? null);
  if (!offline) return null;
  return (
    <div className="banner offline" data-testid="offline-banner" role="status">
      <strong>offline: serving locally.</strong> Every provider of a route is out of reach since{' '}
      {new Date(offline.since).toLocaleTimeString()}; requests go to your local models ({offline.detail}). They go back
      to the cloud as soon as it answers.
    </div>
  );
}

/** The question asked before routing is paused. */
export const PAUSE_QUESTION =
  'Pause routing? Every model request (from every app) will get 503 routing_paused until you resume it.';

/** The question asked before leaving page `label` with unsaved edits. */
export const leaveQuestion = (label: string) =>
  `${label} has unsaved changes. Leave and discard them? (Cancel stays on the page.)`;

/**
 * Guards navigation by the address's #hash: when `current()` (the page shown) holds unsaved edits and the user does
 * not confirm leaving it, the previous hash is put back and `onPage` is not called.
 */
export function useHashGuard(current: () => string, label: (page: string) => string, onPage: () => void): void {
  const store = useAppStore();
  const lastHash = useRef(window.location.hash);
  const fns = useRef({ current, label, onPage });
  fns.current = { current, label, onPage };
  useEffect(() => {
    const onHash = () => {
      const { current, label, onPage } = fns.current;
      const from = current();
      const stays = window.location.hash.replace(/^#\/?/, '').split('/')[0] === from;
      if (!stays && store.getState().dirtyPages[from] && !window.confirm(leaveQuestion(label(from)))) {
        // Back to where the edits are, without a history entry and without asking again.
        window.history.replaceState(null, '', lastHash.current);
        return;
      }
      lastHash.current = window.location.hash;
      onPage();
    };
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, [store]);
}

/**
 * Closing the tab (or reloading, or another address) with unsaved edits asks first: the browser's own question. Off
 * in the desktop window (`enabled` false): closing it hides it to the tray with the page and its edits kept, and there
 * a prevented unload would silently cancel Quit (Electron shows no question; the shell would need will-prevent-unload).
 */
export function useUnloadGuard(enabled: boolean): void {
  const store = useAppStore();
  useEffect(() => {
    if (!enabled) return;
    const onUnload = (e: BeforeUnloadEvent) => {
      if (!Object.values(store.getState().dirtyPages).some(Boolean)) return;
      e.preventDefault();
      e.returnValue = ''; // older engines (and Electron) need a value set
    };
    window.addEventListener('beforeunload', onUnload);
    return () => window.removeEventListener('beforeunload', onUnload);
  }, [store, enabled]);
}

/** After navigation (not the first render), focus goes to the page's heading, so a screen reader starts there. */
export function useFocusHeading(page: string): void {
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    const h = document.querySelector<HTMLElement>('main h2');
    if (!h) return;
    // A page that put the focus on one of its own fields as it opened (a preset's key) keeps it there.
    const at = document.activeElement;
    if (at && at.closest('main') && at.matches('input, select, textarea')) return;
    if (!h.hasAttribute('tabindex')) h.setAttribute('tabindex', '-1');
    h.focus();
  }, [page]);
}
