// The window: navigation, the pause switch, and the page for the current #/hash.
import { useEffect, useState } from 'react';
import type { AppInfo } from '../shared/ipc.ts';
import { ErrorLine } from './components/controls.tsx';
import { AgentsPage } from './pages/Agents.tsx';
import { AppsPage } from './pages/Apps.tsx';
import { LogsPage } from './pages/Logs.tsx';
import { PortConflictPage } from './pages/PortConflict.tsx';
import { ProvidersPage } from './pages/Providers.tsx';
import { RoutingPage } from './pages/Routing.tsx';
import { SettingsPage } from './pages/Settings.tsx';
import { useApi, useApp, useAppStore } from './store/react.ts';

const PAGES = {
  providers: 'Providers',
  routing: 'Routing',
  apps: 'Apps',
  logs: 'Logs',
  agents: 'Agents',
  settings: 'Settings',
} as const;
type Page = keyof typeof PAGES;

function pageFromHash(): Page {
  const h = window.location.hash.replace(/^#\/?/, '');
  return (h in PAGES ? h : 'providers') as Page;
}

export function App() {
  const [page, setPage] = useState<Page>(pageFromHash);
  const [info, setInfo] = useState<AppInfo | null>(null);
  const api = useApi();
  const store = useAppStore();
  const status = useApp((s) => s.status);
  const statusError = useApp((s) => s.statusError);

  useEffect(() => {
    const onHash = () => setPage(pageFromHash());
    window.addEventListener('hashchange', onHash);
    void api.getAppInfo().then((r) => r.ok && setInfo(r.data));
    const s = store.getState();
    void s.refreshStatus();
    void s.loadConfig();
    void api.recentLogs({ limit: 1000 }).then((r) => r.ok && store.getState().setLogs(r.data.data));
    const timer = setInterval(() => void store.getState().refreshStatus(), 3000);
    return () => {
      window.removeEventListener('hashchange', onHash);
      clearInterval(timer);
    };
  }, [api, store]);

  if (info?.port_conflict) return <PortConflictPage conflict={info.port_conflict} />;

  const togglePause = async () => {
    if (!status) return;
    await api.setPaused({ paused: !status.paused });
    await store.getState().refreshStatus();
  };

  return (
    <div className="app">
      <nav>
        <h1>Switchboard</h1>
        {Object.entries(PAGES).map(([id, label]) => (
          <a key={id} href={`#/${id}`} className={page === id ? 'active' : ''} data-testid={`nav-${id}`}>
            {label}
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
        <ErrorLine message={statusError} alert />
        {status?.config_error && (
          <div className="error">config.json has problems: {status.config_error.join('; ')}</div>
        )}
        {page === 'providers' && <ProvidersPage />}
        {page === 'routing' && <RoutingPage />}
        {page === 'apps' && <AppsPage />}
        {page === 'logs' && <LogsPage />}
        {page === 'agents' && <AgentsPage />}
        {page === 'settings' && <SettingsPage />}
      </main>
    </div>
  );
}
