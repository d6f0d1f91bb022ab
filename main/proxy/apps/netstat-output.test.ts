import { describe, expect, it } from 'vitest';
import { parseNetstatTcp, pickClientPid, pickListenerPid } from './netstat-output.ts';

const crlf = (text: string): string => text.replaceAll('\n', '\r\n');

// Windows 11 `netstat -ano`: Switchboard (15872) on 127.0.0.1:11434 and [::1]:11434, VS Code (20932)
// connected over IPv4, a curl (18044) over IPv6, a TIME_WAIT leftover (pid 0), UDP rows.
const netstatEnglish = crlf(`
Active Connections

  Proto  Local Address          Foreign Address        State           PID
  TCP    0.0.0.0:135            0.0.0.0:0              LISTENING       1060
  TCP    0.0.0.0:445            0.0.0.0:0              LISTENING       4
  TCP    127.0.0.1:11434        0.0.0.0:0              LISTENING       15872
  TCP    127.0.0.1:11434        127.0.0.1:52344        ESTABLISHED     15872
  TCP    127.0.0.1:52301        127.0.0.1:11434        TIME_WAIT       0
  TCP    127.0.0.1:52344        127.0.0.1:11434        ESTABLISHED     20932
  TCP    192.168.1.23:52110     140.82.112.25:443      ESTABLISHED     20932
  TCP    [::]:135               [::]:0                 LISTENING       1060
  TCP    [::]:445               [::]:0                 LISTENING       4
  TCP    [::1]:11434            [::]:0                 LISTENING       15872
  TCP    [::1]:11434            [::1]:52350            ESTABLISHED     15872
  TCP    [::1]:52350            [::1]:11434            ESTABLISHED     18044
  TCP    [fe80::1c2d:3e4f:5a6b:7c8d%12]:49670  [fe80::9a2b:3c4d:5e6f:7a8b%12]:445  ESTABLISHED     4
  UDP    0.0.0.0:5353           *:*                                    2652
  UDP    [::]:5353              *:*                                    2652
`);

// German Windows: localized headers and states; nothing may depend on them.
const netstatGerman = crlf(`
Aktive Verbindungen

  Proto  Lokale Adresse         Remoteadresse          Status           PID
  TCP    0.0.0.0:11434          0.0.0.0:0              ABHÖREN          7720
  TCP    127.0.0.1:52344        127.0.0.1:11434        HERGESTELLT      20932
`);

describe('parseNetstatTcp', () => {
  it('reads IPv4 and IPv6 TCP rows and skips headers and UDP', () => {
    const rows = parseNetstatTcp(netstatEnglish);
    expect(rows).toHaveLength(13);
    expect(rows[2]).toEqual({
      local: { address: '127.0.0.1', port: 11434 },
      remote: { address: null, port: 0 },
      state: 'LISTENING',
      pid: 15872,
    });
    expect(rows[11]).toEqual({
      local: { address: '::1', port: 52350 },
      remote: { address: '::1', port: 11434 },
      state: 'ESTABLISHED',
      pid: 18044,
    });
    expect(rows[12]?.local).toEqual({ address: 'fe80::1c2d:3e4f:5a6b:7c8d', port: 49670 });
  });

  it('returns nothing for empty or unrelated output', () => {
    expect(parseNetstatTcp('')).toEqual([]);
    expect(parseNetstatTcp('The requested operation requires elevation.\r\n')).toEqual([]);
  });
});

describe('pickClientPid', () => {
  it('finds the IPv4 client, not our own end of the connection', () => {
    const pair = { localAddress: '127.0.0.1', localPort: 11434, remoteAddress: '127.0.0.1', remotePort: 52344 };
    expect(pickClientPid(parseNetstatTcp(netstatEnglish), pair)).toBe(20932);
  });

  it('finds the client when our server sees IPv4-mapped addresses', () => {
    const pair = {
      localAddress: '::ffff:127.0.0.1',
      localPort: 11434,
      remoteAddress: '::ffff:127.0.0.1',
      remotePort: 52344,
    };
    expect(pickClientPid(parseNetstatTcp(netstatEnglish), pair)).toBe(20932);
  });

  it('finds the IPv6 client on [::1]', () => {
    const pair = { localAddress: '::1', localPort: 11434, remoteAddress: '::1', remotePort: 52350 };
    expect(pickClientPid(parseNetstatTcp(netstatEnglish), pair)).toBe(18044);
  });

  it('ignores rows with pid 0 and returns null when nothing matches', () => {
    const timeWait = { localAddress: '127.0.0.1', localPort: 11434, remoteAddress: '127.0.0.1', remotePort: 52301 };
    expect(pickClientPid(parseNetstatTcp(netstatEnglish), timeWait)).toBeNull();
    expect(pickClientPid(parseNetstatTcp(netstatEnglish), { ...timeWait, remotePort: 1 })).toBeNull();
  });

  it('works on localized output', () => {
    const pair = { localAddress: '127.0.0.1', localPort: 11434, remoteAddress: '127.0.0.1', remotePort: 52344 };
    expect(pickClientPid(parseNetstatTcp(netstatGerman), pair)).toBe(20932);
  });
});

describe('pickListenerPid', () => {
  it('finds listeners on 0.0.0.0, 127.0.0.1 and [::]', () => {
    const rows = parseNetstatTcp(netstatEnglish);
    expect(pickListenerPid(rows, 11434)).toBe(15872);
    expect(pickListenerPid(rows, 135)).toBe(1060);
    expect(pickListenerPid(rows, 445)).toBe(4);
    expect(pickListenerPid(parseNetstatTcp(netstatGerman), 11434)).toBe(7720);
  });

  it('does not mistake a connection on the port for a listener', () => {
    expect(pickListenerPid(parseNetstatTcp(netstatEnglish), 52344)).toBeNull();
    expect(pickListenerPid(parseNetstatTcp(netstatEnglish), 8080)).toBeNull();
  });
});
