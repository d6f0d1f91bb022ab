// Test support (a node --import preload, after tsx): runs the desktop app's compiled main bundle
// (dist/main/electron/main.js) in plain Node against the stand-in for Electron's API (electron-standin.ts), as
// test/shipped/electron-bundle.test.ts does on each Node of the as-shipped tier (Electron 45's main process is Node 22).
// `import … from 'electron'` and 'electron-updater' resolve to modules that hand out this stand-in; every module the
// bundle resolves is recorded, so the test can see which of its lazily loaded chunks ran. The parent drives it over
// the IPC channel: {cmd: 'state'} → tray labels, windows' pages, IPC channels, resolved URLs; {cmd: 'invoke',
// channel, req} → the handler's answer; {cmd: 'moveWindow', x, y} → the user drags the window; {cmd: 'quit'} →
// app.quit().
import { createRequire, register } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import { electronStandIn, FakeUpdater } from './electron-standin.ts';

// Electron's user-data folder on Linux: $XDG_CONFIG_HOME (or ~/.config), then the app's name (package.json's
// productName).
const si = electronStandIn({
  userData: path.join(process.env.XDG_CONFIG_HOME ?? path.join(os.homedir(), '.config'), 'Switchboard'),
});
const updater = new FakeUpdater(si.app);
(globalThis as Record<string, unknown>).__sbElectronStandIn = { electron: si.electron, updater };
// As Electron does: the process ends with app.exit() and after the quit event.
const exit = si.app.exit.bind(si.app);
si.app.exit = (code = 0) => {
  exit(code);
  setImmediate(() => process.exit(code));
};
si.app.on('quit', () => setImmediate(() => process.exit(0)));

const resolved = new Set<string>();
const { port1, port2 } = new MessageChannel();
port1.on('message', (url: string) => resolved.add(url));
port1.unref();
register(new URL('./electron-bundle-hooks.mjs', import.meta.url), {
  data: { port: port2, modules: new URL('./electron-bundle-modules/', import.meta.url).href },
  transferList: [port2],
});

type Command =
  | { id: number; cmd: 'state' }
  | { id: number; cmd: 'invoke'; channel: string; req?: unknown }
  | { id: number; cmd: 'moveWindow'; x: number; y: number }
  | { id: number; cmd: 'quit' };

process.on('message', (m: Command) => {
  const answer = async (): Promise<unknown> => {
    if (m.cmd === 'state')
      return {
        trayLabels: si.trayLabels(),
        pages: si.windows.map((w) => w.loaded),
        windows: si.windows.map((w) => ({ options: w.options, bounds: w.getNormalBounds(), maximized: w.maximized })),
        channels: [...si.handlers.keys()],
        resolved: [...resolved],
        // CommonJS files loaded (require() of a package, which the resolve hook may not see), as paths.
        required: Object.keys(createRequire(import.meta.url).cache),
        errorBoxes: si.errorBoxes,
      };
    if (m.cmd === 'invoke') return si.invoke(m.channel, m.req);
    if (m.cmd === 'moveWindow') {
      si.window().moveTo(m.x, m.y);
      return si.window().getNormalBounds();
    }
    si.app.quit();
    return null;
  };
  answer().then(
    (result) => process.send!({ id: m.id, result }),
    (err: unknown) => process.send!({ id: m.id, error: String((err as Error)?.message ?? err) }),
  );
});
