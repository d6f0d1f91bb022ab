// The one data client: the preload bridge in the desktop app, else HTTP + SSE with the token from /ui?token=.
// The only file that reads `window.switchboard`; the rest of the UI never knows which transport it has.
import { BRIDGE_KEY, type SwitchboardApi } from '../../shared/ipc.ts';
import { httpTransport } from '../../shared/http-client.ts';
import { followPortMoves } from './follow-port.ts';

const TOKEN_KEY = 'switchboard.adminToken';
/** Where earlier versions kept an agent key of their own; removed (the UI now asks the server for its one key). */
const LEGACY_AGENT_KEY = 'switchboard.agentKey';

/** Reads ?token= once, keeps it for this tab, and takes it out of the address bar (and so out of history). */
export function adminTokenFromPage(): string {
  const url = new URL(window.location.href);
  const fromUrl = url.searchParams.get('token');
  if (fromUrl) {
    sessionStorage.setItem(TOKEN_KEY, fromUrl);
    url.searchParams.delete('token');
    window.history.replaceState(null, '', url.pathname + url.search + url.hash);
    return fromUrl;
  }
  return sessionStorage.getItem(TOKEN_KEY) ?? '';
}

export function createClient(): SwitchboardApi {
  const bridge = (window as unknown as Record<string, SwitchboardApi | undefined>)[BRIDGE_KEY];
  if (bridge) return bridge;
  localStorage.removeItem(LEGACY_AGENT_KEY);
  // The agent key is the server's one UI key, handed back to the token holder on each load; kept in memory only.
  const token = adminTokenFromPage();
  // A save that moves Switchboard to another port takes the page there (the token with it).
  return followPortMoves(httpTransport({ base: '', token }), {
    token: () => token,
    hash: () => window.location.hash,
    // After the store has taken the answer (the page's edits are saved, so leaving does not ask about them).
    go: (url) => void setTimeout(() => window.location.assign(url), 0),
  });
}
