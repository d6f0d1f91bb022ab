// Bug 2 (issue 15): a save or restore that moves Switchboard to another port would strand the page on the old one
// (its address, its token: sessionStorage is per origin). The answer comes once the new port answers, so the page
// goes there at once, with the token and the page it was on.
import type { ListenChange } from '../../shared/admin.ts';
import type { ApiResult, SwitchboardApi } from '../../shared/ipc.ts';

export type FollowDeps = {
  /** The admin token of this tab, handed to the page at the new port (it takes it out of the address bar). */
  token: () => string;
  /** The current #/page, kept. */
  hash: () => string;
  /** Navigates (window.location.assign). */
  go: (url: string) => void;
};

/** The address of the UI at the new port after `listen` moved it, or null when the page stays. */
export function followUrl(listen: ListenChange | undefined, token: string, hash: string): string | null {
  if (!listen || listen.outcome !== 'moved' || listen.port === listen.previous_port) return null;
  return `${listen.ui_url}?token=${encodeURIComponent(token)}${hash && hash !== '#' ? hash : '#/settings'}`;
}

/** The HTTP client, with saves and restores that follow a port move (the desktop's IPC client follows it itself). */
export function followPortMoves(api: SwitchboardApi, deps: FollowDeps): SwitchboardApi {
  const follow = <T extends { listen?: ListenChange }>(r: ApiResult<T>): ApiResult<T> => {
    const url = r.ok ? followUrl(r.data.listen, deps.token(), deps.hash()) : null;
    if (url) deps.go(url);
    return r;
  };
  return {
    ...api,
    saveConfig: (config) => api.saveConfig(config).then(follow),
    restoreConfigBackup: (req) => api.restoreConfigBackup(req).then(follow),
  };
}
