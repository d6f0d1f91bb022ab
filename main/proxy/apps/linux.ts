// Linux: who owns a TCP socket, via /proc/net/tcp{,6} (socket inode) and /proc/<pid>/fd (owning pid).
import { readFile, readlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { findPidHoldingSocket } from './proc-fd-scan.ts';
import { parseProcNetTcp, procTcpState, type ProcNetTcpEntry } from './proc-net-tcp.ts';
import { isSameEndpoint } from './socket-address.ts';
import type { PlatformProcessLookup, ProcessInfo, SocketPair } from './types.ts';

/** Linux truncates comm to 15 characters (TASK_COMM_LEN - 1). */
const commMaxLength = 15;

export const linuxProcessLookup: PlatformProcessLookup = {
  async clientProcess(pair: SocketPair, signal: AbortSignal): Promise<ProcessInfo | null> {
    const sockets = (await readTcpTables(signal)).filter(
      (entry) =>
        isSameEndpoint(entry.local, pair.remoteAddress, pair.remotePort) &&
        isSameEndpoint(entry.remote, pair.localAddress, pair.localPort),
    );
    return ownerOf(sockets, signal);
  },

  async listeningProcess(port: number, signal: AbortSignal): Promise<ProcessInfo | null> {
    const sockets = (await readTcpTables(signal)).filter(
      (entry) => entry.state === procTcpState.listen && entry.local.port === port,
    );
    return ownerOf(sockets, signal);
  },
};

async function readTcpTables(signal: AbortSignal): Promise<ProcNetTcpEntry[]> {
  const byteOrder = os.endianness();
  const texts = await Promise.all(
    ['/proc/net/tcp', '/proc/net/tcp6'].map((file) => readFile(file, 'utf8').catch(() => '')),
  );
  signal.throwIfAborted();
  return texts.flatMap((text) => parseProcNetTcp(text, byteOrder));
}

async function ownerOf(sockets: ProcNetTcpEntry[], signal: AbortSignal): Promise<ProcessInfo | null> {
  const owned = sockets.filter((entry) => entry.inode !== '0');
  if (owned.length === 0) return null;
  const inodes = new Set(owned.map((entry) => entry.inode));
  const uids = new Set(owned.map((entry) => entry.uid));
  const pid = await findPidHoldingSocket(inodes, uids, signal);
  return pid === null ? null : describeProcess(pid);
}

/** Name from comm, or from the executable's file name when comm was cut at 15 characters. */
export async function describeProcess(pid: number): Promise<ProcessInfo | null> {
  const [comm, exe] = await Promise.all([
    readFile(`/proc/${pid}/comm`, 'utf8').then(
      (text) => text.replace(/\n$/, ''),
      () => '',
    ),
    readlink(`/proc/${pid}/exe`).then(
      (link) => link.replace(/ \(deleted\)$/, ''),
      () => undefined,
    ),
  ]);
  const exeName = exe === undefined ? undefined : path.posix.basename(exe);
  const commIsCut = comm.length >= commMaxLength && exeName?.startsWith(comm) === true;
  const name = comm === '' || commIsCut ? exeName : comm;
  if (!name) return null;
  return exe === undefined ? { pid, name } : { pid, name, exe };
}
