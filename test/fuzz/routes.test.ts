// The fuzz suite covers every route the server serves (issue 33): each route of the HTTP app's own route table (walked,
// so a route added later is covered) and the WebSocket upgrade must have an entry in routes.ts, and every entry must
// name a route the server serves. A route without a fuzz entry fails here, naming it.
import { describe, expect, it } from 'vitest';
import { REALTIME_PATH } from '../../main/gateway/front-doors.ts';
import { serverRoutes } from '../support/server-routes.ts';
import { ROUTES } from './routes.ts';

/** A Hono path pattern as a regular expression over concrete paths. */
function patternOf(path: string): RegExp {
  const body = path
    .split('/')
    .map((part) => (part === '*' ? '.*' : part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${body}$`);
}

/** A fuzz entry's template as a concrete path: each hole a plain value, the query left out. */
const concrete = (template: string): string => template.split('?')[0]!.replace(/\{(\w+)\}/g, 'x1');

describe("the fuzz suite's route list", () => {
  const server = serverRoutes();

  it('has an entry for every route the server serves (a new route needs its fuzz entry in test/fuzz/routes.ts)', () => {
    const missing = server.filter(
      (r) => !ROUTES.some((f) => f.method === r.method && patternOf(r.path).test(concrete(f.template))),
    );
    expect(missing.map((r) => `${r.method} ${r.path}`)).toEqual([]);
  });

  it('names only routes the server serves', () => {
    const stale = ROUTES.filter(
      (f) => !server.some((r) => r.method === f.method && patternOf(r.path).test(concrete(f.template))),
    );
    expect(stale.map((f) => `${f.method} ${f.template}`)).toEqual([]);
  });

  it('covers every family: front doors, gateway, realtime, model lists, admin (MCP, Connect, usage), agent API, UI', () => {
    const has = (prefix: string) => ROUTES.some((r) => r.template.startsWith(prefix));
    for (const prefix of [
      '/v1/chat',
      '/v1/messages',
      '/v1beta/',
      '/api/chat',
      '/v1/videos',
      '/vendorb/',
      REALTIME_PATH,
      '/v1/models',
      '/admin/v1/mcp',
      '/admin/v1/connect',
      '/admin/v1/usage',
      '/admin/v1/config/backups',
      '/api/v1/agents',
      '/ui',
    ])
      expect(has(prefix), prefix).toBe(true);
  });
});
