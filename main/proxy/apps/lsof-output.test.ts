import { describe, expect, it } from 'vitest';
import { parseLsofFields, pickClientOwner, pickListener } from './lsof-output.ts';

// macOS 14, `lsof -nP -w +c 0 -Fpcn -iTCP:52344 -sTCP:ESTABLISHED`: the client (Code Helper) and our
// own end (node, listening on :: so it sees the IPv4-mapped form). macOS lsof always adds `f` lines.
const clientIpv4 = `p48213
cCode Helper
f38
n127.0.0.1:52344->127.0.0.1:11434
p48101
cnode
f27
n[::ffff:127.0.0.1]:11434->[::ffff:127.0.0.1]:52344
`;

// `-iTCP:52350`: an IPv6 client; a forked child (same command) shares the descriptor; a stray
// connection of another process to a different server happens to use remote port 52350.
const clientIpv6 = `p48101
cnode
f29
n[::1]:11434->[::1]:52350
p50111
ccurl
f5
n[::1]:52350->[::1]:11434
p50112
ccurl
f5
n[::1]:52350->[::1]:11434
p50900
cPython
f7
n192.168.1.23:61000->10.0.0.8:52350
`;

// `-iTCP:11434 -sTCP:LISTEN`: Ollama listening on IPv4 and IPv6 loopback.
const listeners = `p912
collama
f3
n127.0.0.1:11434
f4
n[::1]:11434
`;

// Linux lsof 4.95 (no `f` lines unless asked for), recorded from a real run.
const linuxLsof = 'p4041\ncnode\nn127.0.0.1:49140->127.0.0.1:40223\nn127.0.0.1:40223->127.0.0.1:49140\n';

const pair = {
  localAddress: '::ffff:127.0.0.1',
  localPort: 11434,
  remoteAddress: '::ffff:127.0.0.1',
  remotePort: 52344,
};

describe('parseLsofFields', () => {
  it('groups command and sockets under each pid, ignoring other fields', () => {
    expect(parseLsofFields(clientIpv4)).toEqual([
      {
        pid: 48213,
        command: 'Code Helper',
        sockets: [{ local: { address: '127.0.0.1', port: 52344 }, remote: { address: '127.0.0.1', port: 11434 } }],
      },
      {
        pid: 48101,
        command: 'node',
        sockets: [{ local: { address: '127.0.0.1', port: 11434 }, remote: { address: '127.0.0.1', port: 52344 } }],
      },
    ]);
  });

  it('reads listeners (no remote end) and wildcard addresses', () => {
    expect(parseLsofFields(listeners)[0]?.sockets).toEqual([
      { local: { address: '127.0.0.1', port: 11434 }, remote: null },
      { local: { address: '::1', port: 11434 }, remote: null },
    ]);
    expect(parseLsofFields('p7\ncnc\nf3\nn*:8080\n')[0]?.sockets).toEqual([
      { local: { address: null, port: 8080 }, remote: null },
    ]);
  });

  it('tolerates CRLF, a trailing state and junk', () => {
    expect(parseLsofFields('p9\r\ncnode\r\nn127.0.0.1:1->127.0.0.1:2 (ESTABLISHED)\r\nxjunk\n\n')).toEqual([
      {
        pid: 9,
        command: 'node',
        sockets: [{ local: { address: '127.0.0.1', port: 1 }, remote: { address: '127.0.0.1', port: 2 } }],
      },
    ]);
    expect(parseLsofFields('')).toEqual([]);
    expect(parseLsofFields('cnode\nn127.0.0.1:1\n')).toEqual([]);
  });
});

describe('pickClientOwner', () => {
  it('picks the process whose LOCAL end is the client side, not our own end', () => {
    expect(pickClientOwner(parseLsofFields(clientIpv4), pair)).toMatchObject({ pid: 48213, command: 'Code Helper' });
  });

  it('handles bracketed IPv6 and takes the first of several processes sharing the socket', () => {
    const v6pair = { localAddress: '::1', localPort: 11434, remoteAddress: '::1', remotePort: 52350 };
    expect(pickClientOwner(parseLsofFields(clientIpv6), v6pair)).toMatchObject({ pid: 50111, command: 'curl' });
  });

  it('matches real Linux lsof output too', () => {
    const recorded = { localAddress: '127.0.0.1', localPort: 40223, remoteAddress: '127.0.0.1', remotePort: 49140 };
    expect(pickClientOwner(parseLsofFields(linuxLsof), recorded)).toMatchObject({ pid: 4041, command: 'node' });
  });

  it('returns null when no socket has the client side as local end', () => {
    expect(pickClientOwner(parseLsofFields(clientIpv4), { ...pair, remotePort: 1 })).toBeNull();
    expect(pickClientOwner(parseLsofFields(clientIpv4), { ...pair, localPort: 8080 })).toBeNull();
    expect(pickClientOwner([], pair)).toBeNull();
  });
});

describe('pickListener', () => {
  it('finds the listening process and ignores connected sockets on the same port', () => {
    expect(pickListener(parseLsofFields(listeners), 11434)).toMatchObject({ pid: 912, command: 'ollama' });
    expect(pickListener(parseLsofFields(clientIpv4), 11434)).toBeNull();
    expect(pickListener(parseLsofFields(listeners), 11435)).toBeNull();
  });
});
