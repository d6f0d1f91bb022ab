// The renderer's entry: one data client, one store, pushed events batched into it, then the React tree.
import type { RequestLogEntry } from '../shared/admin.ts';
import type { AgentEvent } from '../shared/orchestrator.ts';
import { createRoot } from 'react-dom/client';
import { createClient } from './api/index.ts';
import { App } from './App.tsx';
import { createAppStore } from './store/index.ts';
import { logBatcher } from './store/logs.ts';
import { StoreContext } from './store/react.ts';
import './styles.css';

const api = createClient();
const store = createAppStore(api);

const logs = logBatcher<RequestLogEntry>((batch) => {
  store.getState().appendLogs(batch);
  store.getState().noteTraffic(); // the Overview, when shown, refreshes (at most once a second)
}, 200);
api.subscribe('log', logs.push);
api.subscribe('notification', (n) => {
  store.getState().addNotice(n);
  // The nav's marks: a budget crossed, or a call waiting for approval.
  if (n.kind.startsWith('budget_') || n.kind === 'approval_required') void store.getState().refreshAlerts();
});
const events = logBatcher<AgentEvent>((batch) => {
  store.getState().appendEvents(batch);
  if (batch.some((e) => e.type === 'approval_required' || e.type === 'approval_decided'))
    void store.getState().refreshAlerts();
}, 200);
api.subscribe('agentEvent', events.push);

createRoot(document.getElementById('root')!).render(
  <StoreContext.Provider value={{ store, api }}>
    <App />
  </StoreContext.Provider>,
);
