import { describe, expect, it } from 'vitest';
import { parseProcNetTcp, procTcpState } from './proc-net-tcp.ts';

// Recorded on Linux 6.x (x86_64): a node server on 127.0.0.1:40223 with a client from port 49140,
// a listener on :11434, and a TIME_WAIT leftover (inode 0).
const procNetTcp = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000:07E8 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 179 1 00000000b331d9bc 100 0 0 10 0
   1: 0100007F:2CAA 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 52311 1 0000000047a1c3de 100 0 0 10 0
   2: 0100007F:BFF4 0100007F:9D1F 01 00000000:00000000 00:00000000 00000000     0        0 8365 2 000000001c3f40ac 20 0 0 10 -1
   3: 0100007F:9D1F 0100007F:BFF4 01 00000000:00000000 00:00000000 00000000     0        0 8366 1 000000009d8f9bc2 20 0 0 10 -1
   4: 0100007F:2CAA 0100007F:C350 06 00000000:00000000 03:000016B2 00000000     0        0 0 3 00000000a0b1c2d3
   5: 0F00020A:8A3C 5DB8D822:01BB 01 00000000:00000000 02:00000A1B 00000000  1000        0 60001 2 00000000deadbeef 20 4 30 10 -1
`;

// Recorded: a node server listening on :: (dual stack) with an IPv4 client (shows IPv4-mapped), and
// a server on ::1:40797 with an IPv6 client from port 34218.
const procNetTcp6 = `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000000000000:97EB 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 8569 1 00000000b6b4088e 100 0 0 10 0
   1: 0000000000000000FFFF00000100007F:97EB 0000000000000000FFFF00000100007F:8086 01 00000000:00000000 00:00000000 00000000     0        0 8571 1 00000000f37ccc20 20 0 0 10 -1
   2: 00000000000000000000000001000000:9F5D 00000000000000000000000001000000:85AA 01 00000000:00000000 00:00000000 00000000     0        0 8533 1 00000000b54f4e8c 20 0 0 10 -1
   3: 00000000000000000000000001000000:85AA 00000000000000000000000001000000:9F5D 01 00000000:00000000 00:00000000 00000000     0        0 8532 2 00000000f37ccc20 20 0 0 10 -1
   4: 000080FE00000000FF0B0A02FEC1A9FE:0016 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 9001 1 0000000011111111 100 0 0 10 0
`;

describe('parseProcNetTcp', () => {
  it('decodes little-endian IPv4 words, big-endian ports, state and inode', () => {
    const entries = parseProcNetTcp(procNetTcp);
    expect(entries).toHaveLength(6);
    expect(entries[0]).toEqual({
      local: { address: null, port: 2024 },
      remote: { address: null, port: 0 },
      state: procTcpState.listen,
      uid: 0,
      inode: '179',
    });
    expect(entries[1]).toMatchObject({
      local: { address: '127.0.0.1', port: 11434 },
      state: procTcpState.listen,
      uid: 1000,
      inode: '52311',
    });
    expect(entries[2]).toEqual({
      local: { address: '127.0.0.1', port: 49140 },
      remote: { address: '127.0.0.1', port: 40223 },
      state: procTcpState.established,
      uid: 0,
      inode: '8365',
    });
    expect(entries[4]).toMatchObject({ state: 0x06, inode: '0' });
    expect(entries[5]).toMatchObject({
      local: { address: '10.2.0.15', port: 35388 },
      remote: { address: '34.216.184.93', port: 443 },
    });
  });

  it('decodes IPv6 as four little-endian words, reducing IPv4-mapped addresses to IPv4', () => {
    const entries = parseProcNetTcp(procNetTcp6);
    expect(entries.map((e) => [e.local.address, e.local.port, e.remote.address, e.remote.port, e.inode])).toEqual([
      [null, 38891, null, 0, '8569'],
      ['127.0.0.1', 38891, '127.0.0.1', 32902, '8571'],
      ['::1', 40797, '::1', 34218, '8533'],
      ['::1', 34218, '::1', 40797, '8532'],
      ['fe80::20a:bff:fea9:c1fe', 22, null, 0, '9001'],
    ]);
  });

  it('reads words in big-endian order when the host is big-endian', () => {
    const line =
      '   0: 7F000001:2CAA 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 42 1 0 100 0 0 10 0';
    expect(parseProcNetTcp(line, 'BE')[0]?.local).toEqual({ address: '127.0.0.1', port: 11434 });
  });

  it('skips the header, blank and malformed lines', () => {
    expect(parseProcNetTcp('')).toEqual([]);
    expect(parseProcNetTcp('  sl  local_address rem_address   st\n   0: nothex:0000 00000000:0000 0A\n\n')).toEqual([]);
  });
});
