// IPC: one handler per channel of shared/ipc.ts (a missing one does not compile), each checking its sender.
import type { IpcMainInvokeEvent } from 'electron';
import { type AutoUpdateMode, type DesktopSettings, SetAutoUpdateRequestSchema } from '../../shared/desktop.ts';
import { IPC_CHANNELS, IPC_EVENTS } from '../../shared/ipc.ts';
import type { AppInfo, IpcChannel, IpcEvents, IpcHandlers, SwitchboardApi } from '../../shared/ipc.ts';

/** The shell's own settings, which no HTTP route serves (they are the desktop app's, not the engine's). */
export type DesktopIpc = {
  settings(): Promise<DesktopSettings>;
  setAutoUpdate(mode: AutoUpdateMode): Promise<DesktopSettings>;
};

/**
 * The handlers: the shared data client against our own in-process server, plus the shell's own app info and
 * settings. A request the shell reads itself is checked against its shared schema first (the renderer is input).
 */
export function desktopHandlers(client: SwitchboardApi, appInfo: () => AppInfo, desktop: DesktopIpc): IpcHandlers {
  return {
    getAppInfo: async () => ({ ok: true, data: appInfo() }),
    getDesktopSettings: async () => ({ ok: true, data: await desktop.settings() }),
    setAutoUpdate: async (req) => {
      const r = SetAutoUpdateRequestSchema.safeParse(req);
      if (!r.success)
        return {
          ok: false,
          failure: {
            status: 400,
            error: {
              code: 'invalid_request',
              message: 'Send {"mode": "download"}, {"mode": "check"} or {"mode": "off"}.',
              details: r.error.issues.map((i) => ({ field: i.path.join('.'), message: i.message })),
            },
          },
        };
      return { ok: true, data: await desktop.setAutoUpdate(r.data.mode) };
    },
    getStatus: () => client.getStatus(),
    getConfig: () => client.getConfig(),
    saveConfig: (c) => client.saveConfig(c),
    recentLogs: (r) => client.recentLogs(r),
    explainRoute: (r) => client.explainRoute(r),
    testProvider: (r) => client.testProvider(r),
    detectProviders: () => client.detectProviders(),
    setPaused: (r) => client.setPaused(r),
    listAgentKeys: () => client.listAgentKeys(),
    createAgentKey: (r) => client.createAgentKey(r),
    revokeAgentKey: (r) => client.revokeAgentKey(r),
    agentApi: (r) => client.agentApi(r),
    listModels: () => client.listModels(),
    checkPort: (r) => client.checkPort(r),
    listConfigBackups: () => client.listConfigBackups(),
    getConfigBackup: (r) => client.getConfigBackup(r),
    restoreConfigBackup: (r) => client.restoreConfigBackup(r),
    getConnect: () => client.getConnect(),
    connectTool: (r) => client.connectTool(r),
    undoConnect: (r) => client.undoConnect(r),
    tryMessage: (r) => client.tryMessage(r),
    getUsage: (r) => client.getUsage(r),
    usageRequests: (r) => client.usageRequests(r),
    getLogBody: (r) => client.getLogBody(r),
    replay: (r) => client.replay(r),
    getAttribution: (r) => client.getAttribution(r),
    getMcp: () => client.getMcp(),
    refreshMcp: (r) => client.refreshMcp(r),
    setMcpEnabled: (r) => client.setMcpEnabled(r),
    importMcp: (r) => client.importMcp(r),
  };
}

/** Registers every handler; a call from any frame but our window's own page is refused. */
export function registerIpc(
  ipcMain: { handle(channel: string, listener: (event: IpcMainInvokeEvent, req: unknown) => Promise<unknown>): void },
  handlers: IpcHandlers,
  isTrusted: (e: IpcMainInvokeEvent) => boolean,
): void {
  for (const channel of Object.keys(IPC_CHANNELS) as IpcChannel[]) {
    const handler = handlers[channel] as (req: unknown) => Promise<unknown>;
    ipcMain.handle(IPC_CHANNELS[channel], async (event, req: unknown) => {
      if (!isTrusted(event)) {
        return {
          ok: false,
          failure: {
            status: 403,
            error: { code: 'ipc_sender_refused', message: 'This IPC call did not come from the Switchboard window.' },
          },
        };
      }
      return handler(req);
    });
  }
}

/** Forwards the client's pushed events to the window. */
export function forwardEvents(
  client: SwitchboardApi,
  target: () => { isDestroyed(): boolean; send(channel: string, payload: unknown): void } | null,
): () => void {
  const send =
    <E extends keyof IpcEvents>(name: E) =>
    (payload: IpcEvents[E]) => {
      const wc = target();
      if (wc && !wc.isDestroyed()) wc.send(IPC_EVENTS[name], payload);
    };
  const offs = [
    client.subscribe('log', send('log')),
    client.subscribe('agentEvent', send('agentEvent')),
    client.subscribe('notification', send('notification')),
  ];
  return () => offs.forEach((off) => off());
}
