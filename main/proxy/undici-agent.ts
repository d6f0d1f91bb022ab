// undici's Agent alone: the proxy dispatches (agent.dispatch with its own handler; agent.request for /models), so
// it needs the connection pool, the HTTP/1.1 client and the request API, not fetch, WebSocket, the cache or the mocks
// that undici's index also loads (about 1 MB of code, 100+ ms of start-up on these machines). undici is pinned to a
// patch range (~7.30) in package.json, so these paths inside the package are stable; undici-agent.test.ts checks the
// Agent is the one the index exports and that it dispatches and requests.
import type { Agent as UndiciAgent } from 'undici';
// @ts-expect-error undici ships no types for its internal module paths; the cast below gives the index's type.
import AgentImpl from 'undici/lib/dispatcher/agent.js';
// @ts-expect-error (as above)
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
// @ts-expect-error (as above)
import api from 'undici/lib/api/index.js';

// What undici's index does for every dispatcher: request(), stream(), pipeline(), connect(), upgrade().
Object.assign((Dispatcher as { prototype: object }).prototype, api);

export const Agent = AgentImpl as typeof UndiciAgent;
export type Agent = UndiciAgent;
