// The desktop app's own state and settings contract (shared/desktop.ts): the stored file read field by field, the
// IPC request checked, and the browser's transport saying these calls belong to the desktop app.
import { describe, expect, it } from 'vitest';
import { parseDesktopState, SetAutoUpdateRequestSchema } from './desktop.ts';
import { httpTransport } from './http-client.ts';

describe('the desktop state file', () => {
  it('keeps each valid field and gives each invalid or missing one its default', () => {
    const window = { x: -1200, y: 40, width: 1000, height: 700, maximized: true };
    expect(parseDesktopState({ window, auto_update: 'check' })).toEqual({ window, auto_update: 'check' });
    expect(parseDesktopState({ window: { ...window, width: 'wide' }, auto_update: 'check' })).toEqual({
      window: null,
      auto_update: 'check',
    });
    expect(parseDesktopState({ window, auto_update: 'sometimes' })).toEqual({ window, auto_update: 'download' });
    expect(parseDesktopState({ window: { width: 50, height: 50 } }).window).toBeNull(); // smaller than any window
    expect(parseDesktopState({ window: { width: 900, height: 600 } }).window).toEqual({
      width: 900,
      height: 600,
      maximized: false,
    });
    for (const junk of [null, 'x', 42, []])
      expect(parseDesktopState(junk)).toEqual({ window: null, auto_update: 'download' });
  });

  it('the auto-update request names one of the three modes and nothing else', () => {
    expect(SetAutoUpdateRequestSchema.safeParse({ mode: 'off' }).success).toBe(true);
    expect(SetAutoUpdateRequestSchema.safeParse({ mode: 'never' }).success).toBe(false);
    expect(SetAutoUpdateRequestSchema.safeParse({ mode: 'off', extra: 1 }).success).toBe(false);
    expect(SetAutoUpdateRequestSchema.safeParse(undefined).success).toBe(false);
  });

  it("the browser's transport answers the desktop calls with 501 desktop_only, without a request", async () => {
    const api = httpTransport({ base: 'http://127.0.0.1:9', token: 't' });
    for (const r of [await api.getDesktopSettings(), await api.setAutoUpdate({ mode: 'off' })])
      expect(r).toMatchObject({ ok: false, failure: { status: 501, error: { code: 'desktop_only' } } });
  });
});
