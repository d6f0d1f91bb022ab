// Parses Windows `netstat -ano` TCP rows and picks the pid owning a connection or listener (pure).
import { isSameEndpoint, parseEndpoint, type Endpoint } from './socket-address.ts';
import type { SocketPair } from './types.ts';

export type NetstatTcpRow = { local: Endpoint; remote: Endpoint; state: string; pid: number };

/**
 * TCP rows (IPv4 and `[v6]` alike) of `netstat -ano`; headers, UDP rows and blank lines are skipped.
 * Headers and state names are localized (`ABHÖREN`, `HERGESTELLT`), so nothing below relies on them.
 */
export function parseNetstatTcp(text: string): NetstatTcpRow[] {
  const rows: NetstatTcpRow[] = [];
  for (const line of text.split(/\r?\n/)) {
    const fields = line.trim().split(/\s+/);
    if (fields[0]?.toUpperCase() !== 'TCP' || fields.length < 5) continue;
    const local = parseEndpoint(fields[1] ?? '');
    const remote = parseEndpoint(fields[2] ?? '');
    const pid = Number(fields[fields.length - 1]);
    if (!local || !remote || !Number.isInteger(pid)) continue;
    rows.push({ local, remote, state: fields.slice(3, -1).join(' '), pid });
  }
  return rows;
}

/** The pid of the row whose local end is the client's side and foreign end is ours (pid 0 = no owner). */
export function pickClientPid(rows: readonly NetstatTcpRow[], pair: SocketPair): number | null {
  const row = rows.find(
    (r) =>
      r.pid > 0 &&
      isSameEndpoint(r.local, pair.remoteAddress, pair.remotePort) &&
      isSameEndpoint(r.remote, pair.localAddress, pair.localPort),
  );
  return row?.pid ?? null;
}

/** The pid of a listening row on `port`: any local address, foreign end `0.0.0.0:0` or `[::]:0`. */
export function pickListenerPid(rows: readonly NetstatTcpRow[], port: number): number | null {
  const row = rows.find((r) => r.pid > 0 && r.local.port === port && r.remote.address === null && r.remote.port === 0);
  return row?.pid ?? null;
}
