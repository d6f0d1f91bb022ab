// The one data client: the preload bridge in the desktop app, else HTTP + SSE with the token from /ui?token=.
// The only file that reads `window.switchboard`; the rest of the UI never knows which transport it has.
import { BRIDGE_KEY, type SwitchboardApi } from '../../shared/ipc.ts';
import { httpTransport } from '../../shared/http-client.ts';

const TOKEN_KEY = 'switchboard.adminToken';
const AGENT_KEY = 'switchboard.agentKey';

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
  return httpTransport({
    base: '',
    token: adminTokenFromPage(),
    keyStore: { get: () => localStorage.getItem(AGENT_KEY) || null, set: (k) => localStorage.setItem(AGENT_KEY, k) },
  });
}
