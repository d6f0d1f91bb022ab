// Every route the server serves, from the HTTP app's own route table (walked, so a route added later is listed) and
// the realtime WebSocket upgrade outside it: the fuzz suite's route list and the docs are both checked against it.
import { REALTIME_PATH } from '../../main/gateway/front-doors.ts';
import { buildHttpApp } from '../../main/server/http-app.ts';

/** The server's routes: method and Hono path pattern (`:param`, `*`), middleware (`ALL`) left out. */
export function serverRoutes(): { method: string; path: string }[] {
  const app = buildHttpApp({
    engine: () => {
      throw new Error('not used: the app is built only to list its routes');
    },
    store: {} as never,
    adminToken: 'unused',
    listenPort: () => 0,
    agents: {
      orchestrator: { workflows: {}, swarms: {}, store: { waits: {} }, tasks: {}, mcp: {} },
      wal: {},
      keys: {},
      metrics: {},
      heartbeatMs: () => 1000,
    } as never,
  });
  const routes = app.routes.filter((r) => r.method !== 'ALL').map((r) => ({ method: r.method, path: r.path }));
  const unique = routes.filter((r, i) => routes.findIndex((o) => o.method === r.method && o.path === r.path) === i);
  return [...unique, { method: 'GET', path: REALTIME_PATH }]; // the upgrade, outside the HTTP app
}
