// The page follows a port move: to the UI at the new port with the token and the page it was on; never for a save
// that did not move the port (pinned by --port, a port that could not be bound, no port change), nor on a failure.
import { describe, expect, it } from 'vitest';
import type { ListenChange } from '../../shared/admin.ts';
import type { ApiResult, ConfigDocument, SwitchboardApi } from '../../shared/ipc.ts';
import { followPortMoves, followUrl } from './follow-port.ts';

const moved: ListenChange = {
  outcome: 'moved',
  port: 11500,
  previous_port: 11434,
  listen_port: 11500,
  ui_url: 'http://localhost:11500/ui/',
  message: 'Saved: Switchboard moved to port 11500…',
};
const doc = (listen?: ListenChange): ConfigDocument => ({ path: '/c.json', config: {}, error: null, listen });

function client(answer: ApiResult<ConfigDocument>) {
  const gone: string[] = [];
  const api = followPortMoves(
    {
      saveConfig: async () => answer,
      restoreConfigBackup: async () => answer,
      getStatus: async () => ({ ok: false, failure: { status: 0, error: { code: 'x', message: 'x' } } }),
    } as unknown as SwitchboardApi,
    { token: () => 'tok en/1', hash: () => '#/settings', go: (u) => void gone.push(u) },
  );
  return { api, gone };
}

describe('following a port move', () => {
  it('goes to the UI at the new port with the token and the current page, after a save and after a restore', async () => {
    const { api, gone } = client({ ok: true, data: doc(moved) });
    const r = await api.saveConfig({});
    expect(r).toEqual({ ok: true, data: doc(moved) });
    await api.restoreConfigBackup({ id: 'b' });
    expect(gone).toEqual([
      'http://localhost:11500/ui/?token=tok%20en%2F1#/settings',
      'http://localhost:11500/ui/?token=tok%20en%2F1#/settings',
    ]);
  });

  it('stays for a pinned port, a port that could not be bound, no port change, or a failed save', async () => {
    for (const answer of [
      { ok: true, data: doc({ ...moved, outcome: 'next_start', port: 11434 }) },
      { ok: true, data: doc({ ...moved, outcome: 'failed', port: 11434 }) },
      { ok: true, data: doc() },
      { ok: false, failure: { status: 400, error: { code: 'config_invalid', message: 'no' } } },
    ] as ApiResult<ConfigDocument>[]) {
      const { api, gone } = client(answer);
      await api.saveConfig({});
      expect(gone).toEqual([]);
    }
  });

  it('keeps the page it was on, and opens Settings when there was none', () => {
    expect(followUrl(moved, 't', '#/logs')).toBe('http://localhost:11500/ui/?token=t#/logs');
    expect(followUrl(moved, 't', '')).toBe('http://localhost:11500/ui/?token=t#/settings');
    expect(followUrl({ ...moved, port: 11434, previous_port: 11434 }, 't', '')).toBeNull();
  });
});
