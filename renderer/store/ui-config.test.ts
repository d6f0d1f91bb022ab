// The window's UI slice (the live region's announcements, pages with unsaved edits) and what a config save answers
// the pages (issue 15): problems by path for the fields, from the shared schema or the server's config_invalid
// details, and the server's warnings on success; all with a scripted transport.
import { describe, expect, it, vi } from 'vitest';
import type { ApiResult, SwitchboardApi } from '../../shared/ipc.ts';
import { createAppStore } from './index.ts';

const ok = <T>(data: T): Promise<ApiResult<T>> => Promise.resolve({ ok: true, data });
const fakeApi = (over: Partial<SwitchboardApi>): SwitchboardApi =>
  new Proxy(over, {
    get: (target, key) =>
      key in target ? target[key as keyof SwitchboardApi] : () => Promise.reject(new Error(`not used: ${String(key)}`)),
  }) as SwitchboardApi;

const stored = {
  path: '/c.json',
  config: {
    providers: [
      { name: 'a', base_url: 'http://127.0.0.1:1/v1' },
      { name: 'b', base_url: 'http://127.0.0.1:2/v1', enabled: false },
    ],
    routing: { default_provider: 'a', rules: [] },
  },
  error: null,
};

describe('ui slice', () => {
  it('announces each message with a new sequence number, the same words twice included', () => {
    const s = createAppStore(fakeApi({}));
    s.getState().announce('Saved.');
    const first = s.getState().announcement;
    s.getState().announce('Saved.');
    expect(s.getState().announcement).toEqual({ text: 'Saved.', seq: first.seq + 1 });
  });

  it('keeps which pages hold unsaved edits, and changes nothing when told the same', () => {
    const s = createAppStore(fakeApi({}));
    let updates = 0;
    s.subscribe(() => updates++);
    s.getState().setDirty('routing', true);
    s.getState().setDirty('routing', true);
    expect(s.getState().dirtyPages).toEqual({ routing: true });
    expect(updates).toBe(1);
    s.getState().setDirty('routing', false);
    expect(s.getState().dirtyPages.routing).toBe(false);
  });
});

describe('config save outcome', () => {
  it("gives the schema's problems by path (a duplicate name), sending nothing", async () => {
    const saveConfig = vi.fn();
    const s = createAppStore(fakeApi({ getConfig: () => ok(stored), saveConfig }));
    await s.getState().loadConfig();
    const next = s.getState().currentConfig();
    next.providers!.push({ name: 'a', base_url: 'http://127.0.0.1:3/v1' });
    const r = await s.getState().saveConfig(next);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.problems.map((p) => p.path)).toEqual(['providers[2].name']);
    expect(saveConfig).not.toHaveBeenCalled();
  });

  it("gives the server's config_invalid details as problems by path", async () => {
    const s = createAppStore(
      fakeApi({
        getConfig: () => ok(stored),
        saveConfig: () =>
          Promise.resolve({
            ok: false as const,
            failure: {
              status: 400,
              error: {
                code: 'config_invalid',
                message: 'The config was not saved.',
                details: [{ path: 'app_rules[1].app', value: 'Cursor', message: 'is the same app as app_rules[0]' }],
              },
            },
          }),
      }),
    );
    await s.getState().loadConfig();
    const r = await s.getState().saveConfig(s.getState().currentConfig());
    expect(!r.ok && r.problems).toEqual([
      { path: 'app_rules[1].app', value: 'Cursor', message: 'is the same app as app_rules[0]' },
    ]);
  });

  it("passes on the server's warnings after a save (a rule naming a disabled provider)", async () => {
    const warnings = [
      { path: 'routing.rules[0].provider', value: 'b', message: 'names provider "b", which is disabled' },
    ];
    const s = createAppStore(
      fakeApi({
        getConfig: () => ok(stored),
        saveConfig: (c) => ok({ ...stored, config: c, backup: null, warnings }),
        getStatus: () => ok({ paused: false } as never),
      }),
    );
    await s.getState().loadConfig();
    expect(await s.getState().saveConfig(s.getState().currentConfig())).toEqual({ ok: true, warnings });
  });
});
