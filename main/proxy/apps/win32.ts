// Windows: who owns a TCP socket, via `netstat -ano` (pid) and `tasklist` (image name).
import { parseNetstatTcp, pickClientPid, pickListenerPid } from './netstat-output.ts';
import { runCommand } from './run-command.ts';
import { imageNameOfPid } from './tasklist-output.ts';
import type { PlatformProcessLookup, ProcessInfo, SocketPair } from './types.ts';

export const win32ProcessLookup: PlatformProcessLookup = {
  async clientProcess(pair: SocketPair, signal: AbortSignal): Promise<ProcessInfo | null> {
    const rows = await netstatTcpRows(signal);
    return describePid(rows === null ? null : pickClientPid(rows, pair), signal);
  },

  async listeningProcess(port: number, signal: AbortSignal): Promise<ProcessInfo | null> {
    const rows = await netstatTcpRows(signal);
    return describePid(rows === null ? null : pickListenerPid(rows, port), signal);
  },
};

/** Plain `-ano` (no `-p`) lists IPv4 and IPv6 TCP in one run, saving the second spawn `-p TCPv6` would cost. */
async function netstatTcpRows(signal: AbortSignal) {
  const output = await runCommand('netstat', ['-ano'], signal);
  return output === null ? null : parseNetstatTcp(output);
}

async function describePid(pid: number | null, signal: AbortSignal): Promise<ProcessInfo | null> {
  if (pid === null) return null;
  const output = await runCommand('tasklist', ['/FI', `PID eq ${pid}`, '/FO', 'CSV', '/NH'], signal);
  const name = output === null ? null : imageNameOfPid(output, pid);
  return name === null ? null : { pid, name };
}
