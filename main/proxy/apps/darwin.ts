// macOS: who owns a TCP socket, by asking `lsof` for the sockets on the port and parsing its -F output.
import { parseLsofFields, pickClientOwner, pickListener, type LsofProcess } from './lsof-output.ts';
import { runCommand } from './run-command.ts';
import type { PlatformProcessLookup, ProcessInfo, SocketPair } from './types.ts';

/** -n/-P: no DNS or service names; -w: no warnings; +c 0: the untruncated command name; -F: fields. */
const lsofBaseArgs = ['-nP', '-w', '+c', '0', '-Fpcn'];

export const darwinProcessLookup: PlatformProcessLookup = {
  async clientProcess(pair: SocketPair, signal: AbortSignal): Promise<ProcessInfo | null> {
    // Select by the client's port only (it also lists our own end of the connection): matching the exact
    // addresses in the parser copes with IPv4-mapped and bracketed IPv6 spellings that -i@addr would not.
    const output = await runCommand('lsof', [...lsofBaseArgs, `-iTCP:${pair.remotePort}`, '-sTCP:ESTABLISHED'], signal);
    return output === null ? null : toProcessInfo(pickClientOwner(parseLsofFields(output), pair));
  },

  async listeningProcess(port: number, signal: AbortSignal): Promise<ProcessInfo | null> {
    const output = await runCommand('lsof', [...lsofBaseArgs, `-iTCP:${port}`, '-sTCP:LISTEN'], signal);
    return output === null ? null : toProcessInfo(pickListener(parseLsofFields(output), port));
  },
};

function toProcessInfo(owner: LsofProcess | null): ProcessInfo | null {
  return owner === null ? null : { pid: owner.pid, name: owner.command };
}
