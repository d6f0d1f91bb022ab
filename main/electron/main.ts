// The desktop shell: single instance, the engine in-process on listen_port, tray, window (hidden on close),
// start on login, IPC. Thin on purpose: behaviour lives in the engine and in the plain modules beside this file.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BrowserWindow, Menu, Tray, app, dialog, ipcMain, nativeImage, nativeTheme, shell } from 'electron';
import type { MenuItemConstructorOptions } from 'electron';
import Store from 'electron-store';
import { httpTransport } from '../../shared/http-client.ts';
import type { PortConflictInfo } from '../../shared/ipc.ts';
import { Switchboard } from '../app.ts';
import { resolveConfigPath } from '../config/paths.ts';
import { ConfigError } from '../config/store.ts';
import { VERSION } from '../version.ts';
import { PortInUseError } from '../server/port-conflict.ts';
import { applyStartOnLogin } from './autostart.ts';
import { configJsonSchemaProperties } from './config-schema.ts';
import { desktopHandlers, forwardEvents, registerIpc } from './ipc-handlers.ts';
import { portConflictInfo } from './port-conflict-page.ts';
import { type TrayAction, trayIconName, trayMenuModel } from './tray-menu.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ASSETS = path.resolve(HERE, '../../../assets'); // dist/main/electron → assets/
const RENDERER = path.resolve(HERE, '../../renderer/index.html'); // dist/renderer in a packaged build

if (!app.requestSingleInstanceLock()) app.exit(0); // the running instance gets 'second-instance' and shows itself

let win: BrowserWindow | null = null;
let tray: Tray | null = null;
let sb: Switchboard | null = null;
let conflict: PortConflictInfo | null = null;
let quitting = false;
const configPath = resolveConfigPath(undefined);

/** config.json through electron-store: same path, same schema as the engine (no clearing on invalid hand edits). */
const configFile = new Store<Record<string, unknown>>({
  cwd: path.dirname(configPath),
  name: path.basename(configPath, '.json'),
  schema: configJsonSchemaProperties() as never,
  clearInvalidConfig: false,
  watch: true,
});

function showWindow(): void {
  if (!win) {
    win = new BrowserWindow({
      width: 1100,
      height: 760,
      show: false,
      title: 'Switchboard',
      webPreferences: {
        preload: path.join(HERE, '../../preload/preload.cjs'),
        contextIsolation: true,
        sandbox: true,
        nodeIntegration: false,
      },
    });
    win.on('close', (e) => {
      if (!quitting) {
        e.preventDefault(); // closing hides to the tray
        win?.hide();
      }
    });
    void win.loadFile(RENDERER);
  }
  win.show();
  win.focus();
}

async function refreshTray(): Promise<void> {
  if (!tray) return;
  const status = sb && !conflict ? sb.engine.pool.all().map((p) => p.status()) : [];
  const model = trayMenuModel({
    port: sb && !conflict ? sb.port : null,
    providers: status,
    paused: sb?.engine?.paused ?? false,
    startOnLogin: configFile.get('start_on_login') === true,
    problem: conflict ? `port ${conflict.port} is taken` : null,
  });
  const items: MenuItemConstructorOptions[] = model.map((item) =>
    item.kind === 'separator'
      ? { type: 'separator' }
      : item.kind === 'status'
        ? { label: item.label, enabled: false }
        : {
            label: item.label,
            type: item.kind === 'checkbox' ? 'checkbox' : 'normal',
            checked: item.kind === 'checkbox' ? item.checked : false,
            click: () => void onTray(item.id),
          },
  );
  tray.setContextMenu(Menu.buildFromTemplate(items));
  tray.setToolTip(model[0]?.kind === 'status' ? `Switchboard: ${model[0].label}` : 'Switchboard');
}

async function onTray(action: TrayAction): Promise<void> {
  if (action === 'open') showWindow();
  if (action === 'toggle-pause' && sb?.engine) sb.engine.paused = !sb.engine.paused;
  if (action === 'toggle-login') configFile.set('start_on_login', configFile.get('start_on_login') !== true);
  if (action === 'open-config-folder') void shell.openPath(path.dirname(configPath));
  if (action === 'quit') app.quit(); // before-quit stops the server first
  await refreshTray();
}

async function syncStartOnLogin(): Promise<void> {
  await applyStartOnLogin(configFile.get('start_on_login') === true, {
    platform: process.platform,
    env: process.env,
    home: os.homedir(),
    target: { execPath: process.execPath, args: app.isPackaged ? ['--hidden'] : [app.getAppPath(), '--hidden'] },
    writeFile: async (f, t) => {
      await fs.mkdir(path.dirname(f), { recursive: true });
      await fs.writeFile(f, t, { mode: 0o644 });
    },
    removeFile: (f) => fs.rm(f, { force: true }),
    setLoginItem: (s) => app.setLoginItemSettings(s),
  });
}

app.on('second-instance', () => showWindow());
app.on('window-all-closed', () => {
  // Stay in the tray.
});

app.whenReady().then(async () => {
  sb = new Switchboard({ configPath });
  try {
    await sb.start();
  } catch (err) {
    if (err instanceof ConfigError) {
      dialog.showErrorBox(
        'Switchboard did not start: config.json is invalid',
        `${err.message}\n\nFix the file and start Switchboard again.`,
      );
      app.exit(2);
      return;
    }
    if (!(err instanceof PortInUseError)) throw err;
    conflict = portConflictInfo(err.port, err.holder, configPath, err.suggested);
  }
  const client = httpTransport({
    base: conflict ? 'http://127.0.0.1:0' : `http://127.0.0.1:${sb.port}`,
    token: sb.adminToken,
    keyStore: (() => {
      let key: string | null = null; // the window's agent key lives in memory only
      return { get: () => key, set: (k: string) => void (key = k || null) };
    })(),
  });
  registerIpc(
    ipcMain,
    desktopHandlers(client, () => ({ shell: 'electron', version: VERSION, port_conflict: conflict })),
    (e) => e.sender === win?.webContents && e.senderFrame === win?.webContents.mainFrame,
  );
  if (!conflict) forwardEvents(client, () => win?.webContents ?? null);

  const icon = () =>
    nativeImage.createFromPath(path.join(ASSETS, trayIconName(process.platform, nativeTheme.shouldUseDarkColors)));
  tray = new Tray(icon());
  nativeTheme.on('updated', () => tray?.setImage(icon()));
  tray.on('click', () => showWindow());
  configFile.onDidChange('start_on_login', () => void syncStartOnLogin().then(refreshTray));
  await syncStartOnLogin();
  await refreshTray();
  setInterval(() => void refreshTray(), 5000).unref();
  if (conflict || !process.argv.includes('--hidden')) showWindow();
});

/** Every way out (tray Quit, Cmd+Q, logout) stops the server cleanly before the process ends. */
let stopped = false;
app.on('before-quit', (e) => {
  quitting = true;
  if (stopped || !sb) return;
  e.preventDefault();
  void sb
    .stop()
    .catch(() => undefined)
    .finally(() => {
      stopped = true;
      app.quit();
    });
});
