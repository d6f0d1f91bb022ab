// Parses Linux /proc/net/tcp and /proc/net/tcp6 into endpoints, state and socket inode (pure, no I/O).
import { canonicalAddress, type Endpoint } from './socket-address.ts';

/** Kernel TCP states as printed in the `st` column (include/net/tcp_states.h). */
export const procTcpState = { established: 0x01, listen: 0x0a } as const;

/** `uid` is the socket owner's uid at creation; `inode` matches `socket:[inode]` links under /proc/<pid>/fd. */
export type ProcNetTcpEntry = { local: Endpoint; remote: Endpoint; state: number; uid: number; inode: string };

/** Byte order of the 32-bit address words: the host's (`os.endianness()`), little-endian on x86 and ARM. */
export type HostByteOrder = 'LE' | 'BE';

/**
 * One entry per socket line; the header and malformed lines are skipped. Addresses are canonical
 * (`127.0.0.1`, `::1`; IPv4-mapped IPv6 becomes IPv4), wildcards are null. Inode "0" means the socket
 * has no owner any more (TIME_WAIT and similar).
 */
export function parseProcNetTcp(text: string, byteOrder: HostByteOrder = 'LE'): ProcNetTcpEntry[] {
  const entries: ProcNetTcpEntry[] = [];
  for (const line of text.split('\n')) {
    const fields = line.trim().split(/\s+/);
    if (!/^\d+:$/.test(fields[0] ?? '')) continue;
    const local = parseHexEndpoint(fields[1] ?? '', byteOrder);
    const remote = parseHexEndpoint(fields[2] ?? '', byteOrder);
    const state = Number.parseInt(fields[3] ?? '', 16);
    const uid = Number(fields[7]);
    const inode = fields[9] ?? '';
    if (!local || !remote || Number.isNaN(state) || !Number.isInteger(uid) || !/^\d+$/.test(inode)) continue;
    entries.push({ local, remote, state, uid, inode });
  }
  return entries;
}

/** `0100007F:2CAA` → 127.0.0.1:11434. The port is plain big-endian hex; the address is host-order words. */
function parseHexEndpoint(text: string, byteOrder: HostByteOrder): Endpoint | null {
  const match = /^([0-9A-Fa-f]{8}|[0-9A-Fa-f]{32}):([0-9A-Fa-f]{4})$/.exec(text);
  if (!match) return null;
  const [, hexAddress = '', hexPort = ''] = match;
  const bytes = Buffer.from(hexAddress, 'hex');
  if (byteOrder === 'LE') {
    for (let word = 0; word < bytes.length; word += 4) bytes.subarray(word, word + 4).reverse();
  }
  const address = canonicalAddress(bytes.length === 4 ? bytes.join('.') : ipv6Text(bytes));
  return {
    address: address === '0.0.0.0' || address === '::' ? null : address,
    port: Number.parseInt(hexPort, 16),
  };
}

function ipv6Text(bytes: Buffer): string {
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(bytes.readUInt16BE(i).toString(16));
  return groups.join(':');
}
