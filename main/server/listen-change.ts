// What a save (or restore) that changes listen_port does to the port Switchboard listens on, said in its answer: the
// server moved (answered once the new port is bound, so a page can follow at once), the port is pinned by
// `serve --port` for this run (listen_port applies at the next start without it), or the new port could not be bound.
import type { Config } from '../../shared/config.ts';
import type { ListenChange } from '../../shared/admin.ts';
import type { PortFollow } from '../../shared/connect.ts';

/** How the running server treats a listen_port change (main/app.ts fills it in). */
export type ListenControl = {
  /** This run's port was given with `--port`: a config change never moves it. */
  pinned: boolean;
  /**
   * The move the last config change started: resolves once the new port is bound (null) or the bind failed (why).
   * Read right after the save that changed the port (the move starts during the save).
   */
  moved: () => Promise<string | null>;
  /** After a move: the tools Connect had pointed at the old port, rewritten to the new one (or left, and why). */
  followed?: () => Promise<PortFollow[]>;
};

/** The UI's address at `port`, on the host name the caller used (the admin Host guard allows only loopback names). */
function uiUrl(hostHeader: string | undefined, port: number): string {
  let url: URL;
  try {
    url = new URL(`http://${hostHeader || '127.0.0.1'}`);
  } catch {
    url = new URL('http://127.0.0.1');
  }
  url.port = String(port);
  return `${url.origin}/ui/`;
}

/** The answer's `listen` part, or undefined when the save did not change listen_port or listen_host. */
export async function listenChange(
  prev: Config,
  next: Config,
  previousPort: number,
  listenPort: () => number,
  control: ListenControl | undefined,
  hostHeader: string | undefined,
): Promise<ListenChange | undefined> {
  if (prev.listen_port === next.listen_port && prev.listen_host === next.listen_host) return undefined;
  const wanted = next.listen_port;
  if (!control || control.pinned) {
    const port = listenPort();
    return {
      outcome: 'next_start',
      port,
      previous_port: previousPort,
      listen_port: wanted,
      ui_url: uiUrl(hostHeader, port),
      message:
        `Saved: the port in config.json is now ${wanted}, but this run keeps port ${port}, which was given with ` +
        `--port. The new port applies at the next start without --port.`,
    };
  }
  const failed = await control.moved();
  const port = listenPort();
  if (failed !== null) {
    return {
      outcome: 'failed',
      port,
      previous_port: previousPort,
      listen_port: wanted,
      ui_url: uiUrl(hostHeader, port),
      message:
        `Saved, but Switchboard could not move to port ${wanted} (${failed.split(/\.\s/)[0]}) and still listens on ` +
        `port ${port}. Pick another port, or free port ${wanted} and restart Switchboard.`,
    };
  }
  const tools = port === previousPort ? [] : ((await control.followed?.()) ?? []);
  const moved = tools.filter((t) => t.outcome === 'moved').map((t) => t.name);
  const followed = moved.length
    ? ` ${moved.join(', ')} ${moved.length === 1 ? 'was' : 'were'} pointed at the new port (Undo on the Connect page ` +
      `still puts back ${moved.length === 1 ? 'its file' : 'their files'} as before Connect).`
    : '';
  return {
    outcome: 'moved',
    port,
    previous_port: previousPort,
    listen_port: wanted,
    ui_url: uiUrl(hostHeader, port),
    message:
      port === previousPort
        ? `Saved: Switchboard listens on port ${port} (now on ${next.listen_host}).`
        : `Saved: Switchboard moved to port ${port} and released port ${previousPort}.${followed} Point your ` +
          `${followed ? 'other ' : ''}tools at http://localhost:${port} (Connect shows each address).`,
    ...(tools.length ? { tools } : {}),
  };
}
