// The preload: the shared contract as domain methods on window.switchboard; never raw ipcRenderer.
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { BRIDGE_KEY, IPC_CHANNELS, IPC_EVENTS, type IpcChannel, type SwitchboardApi } from '../shared/ipc.ts';

const methods = Object.fromEntries(
  (Object.keys(IPC_CHANNELS) as IpcChannel[]).map((ch) => [
    ch,
    (req?: unknown) => ipcRenderer.invoke(IPC_CHANNELS[ch], req),
  ]),
) as Omit<SwitchboardApi, 'subscribe'>;

const api: SwitchboardApi = {
  ...methods,
  subscribe(event, listener) {
    const channel = IPC_EVENTS[event];
    const wrapped = (_e: IpcRendererEvent, ...args: unknown[]) => listener(args[0] as Parameters<typeof listener>[0]);
    ipcRenderer.on(channel, wrapped);
    return () => void ipcRenderer.removeListener(channel, wrapped);
  },
};

contextBridge.exposeInMainWorld(BRIDGE_KEY, api);
