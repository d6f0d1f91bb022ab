// The window: navigation, the pause switch, and the page for the current #/hash.
import { useEffect, useState } from 'react';
import type { AppInfo } from '../shared/ipc.ts';
import { ErrorLine } from './components/controls.tsx';
import {
  LiveRegion,
  PAUSE_QUESTION,
  OfflineBanner,
  PausedBanner,
  TeamSaveNote,
  useFocusHeading,
  useHashGuard,
  useUnloadGuard,
} from './components/shell.tsx';
import { AgentsPage } from './pages/Agents.tsx';
import { AppsPage } from './pages/Apps.tsx';
import { ConfigProblemsPage } from './pages/ConfigProblems.tsx';
import { ConnectPage } from './pages/Connect.tsx';
import { LogsPage } from './pages/Logs.tsx';
import { OverviewPage } from './pages/Overview.tsx';
import { PortConflictPage } from './pages/PortConflict.tsx';
import { ProvidersPage } from './pages/Providers.tsx';
import { RoutingPage } from './pages/Routing.tsx';
import { SettingsPage } from './pages/Settings.tsx';
import { useApi, useApp, useAppStore } from './store/react.ts';

const PAGES = {
  overview: 'Overview',
  connect: 'Connect',
  providers: 'Providers',
  routing: 'Routing',
  apps: 'Apps',
  logs: 'Logs',
  agents: 'Agents',
  settings: 'Settings',
} as const;
type Page = keyof typeof PAGES;

function pageFromHash(): Page {
  const h = window.location.hash.replace(/^#\/?/, '').split('/')[0] ?? ''; // #/agents/tasks: the Agents area
  return (h in PAGES ? h : 'overview') as Page;
}

export function App() {
  const [page, setPage] = useState<Page>(pageFromHash);
  const [info, setInfo] = useState<AppInfo | null>(null);
  const api = useApi();
  const store = useAppStore();
  const status = useApp((s) => s.status);
  const statusError = useApp((s) => s.statusError);
  const dirtyPages = useApp((s) => s.dirtyPages);
  const exceeded = useApp((s) => s.exceededBudgets);
  const approvals = useApp((s) => s.pendingApprovals);
  // Leaving a page with unsaved edits (a link, Back, closing the window) asks first; focus goes to the new heading.
  useHashGuard(
    () => page,
    (p) => PAGES[p as Page] ?? p,
    () => setPage(pageFromHash()),
  );
  useUnloadGuard(info !== null && info.shell !== 'electron');
  useFocusHeading(page);

  useEffect(() => {
    void api.getAppInfo().then((r) => r.ok && setInfo(r.data));
    const s = store.getState();
    void s.refreshStatus();
    void s.loadConfig();
    void api.recentLogs({ limit: 1000 }).then((r) => r.ok && store.getState().setLogs(r.data.data));
    const timer = setInterval(() => void store.getState().refreshStatus(), 3000);
    void s.refreshAlerts();
    const alerts = setInterval(() => void store.getState().refreshAlerts(), 10_000);
    return () => {
      clearInterval(timer);
      clearInterval(alerts);
    };
  }, [api, store]);

  if (info?.config_problems) return <ConfigProblemsPage info={info.config_problems} />;
  if (info?.port_conflict) return <PortConflictPage conflict={info.port_conflict} />;

  const togglePause = async () => {
    if (!status || (!status.paused && !window.confirm(PAUSE_QUESTION))) return;
    await api.setPaused({ paused: !status.paused });
    await store.getState().refreshStatus();
  };

  return (
    <div className="app">
      <nav>
        <h1>Switchboard</h1>
        {Object.entries(PAGES).map(([id, label]) => (
          <a
            key={id}
            href={`#/${id}`}
            className={page === id ? 'active' : ''}
            aria-current={page === id ? 'page' : undefined}
            data-testid={`nav-${id}`}
          >
            {label}
            {id === 'overview' && exceeded.length > 0 && (
              <span className="nav-badge" title={`Budget exceeded: ${exceeded.join('; ')}`} data-testid="badge-budget">
                !
                <span className="sr-only">
                  {' '}
                  ({exceeded.length === 1 ? 'a budget is' : `${exceeded.length} budgets are`} exceeded)
                </span>
              </span>
            )}
            {id === 'agents' && approvals > 0 && (
              <span
                className="nav-badge"
                title={`${approvals} waiting for your approval`}
                data-testid="badge-approvals"
              >
                {approvals}
                <span className="sr-only"> waiting for your approval</span>
              </span>
            )}
            {dirtyPages[id] && (
              <span className="dirty-dot" title="unsaved changes">
                {' '}
                ●<span className="sr-only"> (unsaved changes)</span>
              </span>
            )}
          </a>
        ))}
        <div className="nav-foot">
          {status && (
            <>
              <div>port {status.listen_port}</div>
              <button onClick={togglePause} data-testid="pause-routing">
                {status.paused ? 'Resume routing' : 'Pause routing'}
              </button>
            </>
          )}
        </div>
      </nav>
      <main>
        <PausedBanner onResume={() => void togglePause()} />
        <TeamSaveNote />
        <OfflineBanner />
        <ErrorLine message={statusError} alert />
        {status?.config_error && (
          <div className="error">config.json has problems: {status.config_error.join('; ')}</div>
        )}
        {page === 'overview' && <OverviewPage />}
        {page === 'connect' && <ConnectPage />}
        {page === 'providers' && <ProvidersPage />}
        {page === 'routing' && <RoutingPage />}
        {page === 'apps' && <AppsPage />}
        {page === 'logs' && <LogsPage />}
        {page === 'agents' && <AgentsPage />}
        {page === 'settings' && <SettingsPage />}
      </main>
      <LiveRegion />
    </div>
  );
}
