// Auto-update as Settings' switch says (updates.ts), on the stand-in's scriptable autoUpdater: download (the default),
// check only, off; and a switch changed while running.
import { describe, expect, it } from 'vitest';
import { FakeUpdater } from '../../test/support/electron-standin.ts';
import { eventually } from '../../test/support/serve-process.ts';
import { type UpdateState, Updates } from './updates.ts';

function updates(mode: 'download' | 'check' | 'off', everyMs = 60_000) {
  const updater = new FakeUpdater();
  const seen: UpdateState[] = [];
  const u = new Updates(updater, mode, (s) => seen.push(s), everyMs);
  return { updater, u, seen };
}

describe('auto-update modes', () => {
  it('download: checks at start and on a timer, downloads what it finds, then offers the restart', async () => {
    const { updater, u } = updates('download', 40);
    expect(updater.autoDownload).toBe(true);
    u.start();
    await eventually(() => expect(u.state).toEqual({ kind: 'none' }));
    updater.next = { version: '0.2.0' };
    await eventually(() => expect(u.state).toEqual({ kind: 'ready', version: '0.2.0' })); // the timer's check
    expect(updater.downloads).toBe(1);
    u.install();
    expect(updater.installs).toEqual([{ isSilent: false, isForceRunAfter: true }]);
    u.stop();
  });

  it('check: says what it found and downloads only when asked', async () => {
    const { updater, u, seen } = updates('check');
    expect(updater.autoDownload).toBe(false);
    updater.next = { version: '0.3.0' };
    u.start();
    await eventually(() => expect(u.state).toEqual({ kind: 'available', version: '0.3.0' }));
    await new Promise((r) => setTimeout(r, 20));
    expect(updater.downloads).toBe(0);
    await u.download();
    expect(u.state).toEqual({ kind: 'ready', version: '0.3.0' });
    expect(seen.map((s) => s.kind)).toEqual(['checking', 'available', 'downloading', 'ready']);
    u.stop();
  });

  it('off: no check of its own; a check asked for still works and offers the download', async () => {
    const { updater, u } = updates('off', 10);
    u.start();
    await new Promise((r) => setTimeout(r, 50));
    expect(updater.checks).toBe(0);
    updater.next = { version: '0.4.0' };
    await u.check();
    expect(u.state).toEqual({ kind: 'available', version: '0.4.0' });
    expect(updater.downloads).toBe(0);
  });

  it('a switch changed while running: turned on checks at once; to download fetches what waits; off stops', async () => {
    const { updater, u } = updates('off', 30);
    u.start();
    updater.next = { version: '0.5.0' };
    u.setMode('check');
    await eventually(() => expect(u.state).toEqual({ kind: 'available', version: '0.5.0' }));
    expect(updater.autoDownload).toBe(false);
    u.setMode('download');
    expect(updater.autoDownload).toBe(true);
    await eventually(() => expect(u.state).toEqual({ kind: 'ready', version: '0.5.0' }));
    u.setMode('off');
    const checks = updater.checks;
    await new Promise((r) => setTimeout(r, 100));
    expect(updater.checks).toBe(checks);
    expect(u.mode).toBe('off');
  });

  it('a failed download is said as the state, never thrown', async () => {
    const { updater, u } = updates('check');
    updater.next = { version: '0.6.0' };
    await u.check();
    updater.downloadUpdate = () => Promise.reject(new Error('net::ERR_CONNECTION_RESET\n  at x'));
    await u.download();
    expect(u.state).toEqual({ kind: 'error', message: 'net::ERR_CONNECTION_RESET' });
  });
});
