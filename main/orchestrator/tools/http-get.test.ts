// http_get's SSRF guard: address ranges (ipaddr.js) over many literal forms, and real sockets: a server on 127.0.0.1
// that must not be reached through IPv4-mapped IPv6 or a name that rebinds between the check and the connection.
import dc from 'node:diagnostics_channel';
import dns from 'node:dns';
import http from 'node:http';
import { syncBuiltinESMExports } from 'node:module';
import type net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpGet, isPrivateAddress } from './http-get.ts';

const limits = { allow_private: false, allow_hosts: [] as string[], max_bytes: 1000, timeout_ms: 2000 };

describe('isPrivateAddress', () => {
  it('refuses every non-unicast range whatever way the address is written', () => {
    const refused = [
      // IPv4 loopback, private, link-local (cloud metadata), CGNAT, unspecified, multicast, broadcast, reserved
      ...['127.0.0.1', '127.255.255.254', '10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.1.4'],
      ...['169.254.169.254', '100.64.0.1', '0.0.0.0', '0.1.2.3', '224.0.0.1', '239.255.255.250'],
      ...['255.255.255.255', '240.0.0.1', '192.0.0.8', '192.0.2.1', '198.18.0.1', '198.51.100.7', '203.0.113.9'],
      // IPv4 in decimal, hex, octal and short forms (inet_aton's grammar)
      ...['2130706433', '0x7f000001', '0x7f.0.0.1', '0177.0.0.1', '0177.1', '127.1', '10.1', '017700000001'],
      // IPv4-mapped IPv6: dotted, hex, expanded, upper case, with leading zeros
      ...['::ffff:127.0.0.1', '::ffff:7f00:1', '0:0:0:0:0:ffff:7f00:1', '0000:0000:0000:0000:0000:FFFF:7F00:0001'],
      ...['::FFFF:127.0.0.1', '0:0:0:0:0:ffff:127.0.0.1', '::ffff:a9fe:a9fe', '::ffff:169.254.169.254'],
      ...['::ffff:a00:1', '::ffff:c0a8:101', '::ffff:ac10:1', '::ffff:6440:1', '::ffff:0:0'],
      // IPv6 loopback, unspecified, link-local (with zone ids), unique-local, site-local, multicast
      ...['::1', '0:0:0:0:0:0:0:1', '::', 'fe80::1', 'fe80::1%eth0', 'fe80::1%1', 'fc00::1', 'fd00::2', 'fec0::1'],
      ...['ff02::1', 'ff05::1:3'],
      // IPv4-compatible (deprecated) and SIIT (rfc6145) forms embedding loopback
      ...['::127.0.0.1', '::7f00:1', '::ffff:0:7f00:1', '::ffff:0:a9fe:a9fe'],
      // NAT64 embedding private IPv4; the local-use NAT64 prefix; 6to4 and Teredo tunnels; documentation, discard
      ...['64:ff9b::7f00:1', '64:ff9b::127.0.0.1', '64:ff9b::a9fe:a9fe', '64:ff9b::a00:1', '64:ff9b:1::808:808'],
      ...['2002:7f00:1::1', '2002:808:808::1', '2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001:db8::1', '100::1'],
      // Not an address at all: refused (fail closed)
      ...['', 'localhost', 'not-an-ip', '1.2.3.4.5', '::ffff:999.0.0.1', '[::1]'],
    ];
    for (const ip of refused) expect([ip, isPrivateAddress(ip)]).toEqual([ip, true]);
    const allowed = ['8.8.8.8', '1.1.1.1', '93.184.215.14', '::ffff:8.8.8.8', '::ffff:808:808', '2606:4700::1111'];
    for (const ip of [...allowed, '64:ff9b::808:808', '64:ff9b::8.8.8.8', '2a00:1450:4001:81b::200e']) {
      expect([ip, isPrivateAddress(ip)]).toEqual([ip, false]);
    }
  });
});

describe('http_get over real sockets', () => {
  let server: http.Server;
  let port = 0;
  let hits: string[] = [];
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      hits.push(req.url ?? '');
      if (req.url === '/redirect') {
        res.writeHead(302, { location: `http://[::ffff:127.0.0.1]:${port}/secret` }).end('moved');
      } else res.end('secret');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    port = (server.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('never reaches a server on 127.0.0.1 through IPv4-mapped, expanded, numeric or unspecified forms', async () => {
    hits = [];
    const hosts = ['[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '[0:0:0:0:0:ffff:7f00:1]', '[0:0:0:0:0:ffff:127.0.0.1]'];
    hosts.push('[::127.0.0.1]', '2130706433', '0x7f000001', '0177.0.0.1', '127.1', '127.0.0.1.', '[::1]');
    hosts.push('0.0.0.0', '[::]', '[::ffff:0.0.0.0]', 'LOCALHOST');
    for (const host of hosts) {
      await expect(httpGet(`http://${host}:${port}/`, limits), host).rejects.toThrow(/loopback or private/);
    }
    expect(hits).toEqual([]);
  });

  it('refuses cloud metadata and private ranges written as IPv4-mapped IPv6 before connecting', async () => {
    for (const host of ['[::ffff:a9fe:a9fe]', '[::ffff:169.254.169.254]', '[::ffff:a00:1]', '[::ffff:c0a8:1]']) {
      await expect(httpGet(`http://${host}/latest/meta-data/`, limits), host).rejects.toThrow(
        /is a (link-local|private) address.*allow_hosts/,
      );
    }
    await expect(httpGet('http://[64:ff9b::a9fe:a9fe]/', limits)).rejects.toThrow(/NAT64.*169\.254\.169\.254/);
    await expect(httpGet('http://[fe80::1%25eth0]/', limits)).rejects.toThrow(/full http/); // zone ids: no URL
  });

  it('resolves a name once and connects to the checked address: a rebinding answer never reaches loopback', async () => {
    hits = [];
    const resolver = rebinding(['93.184.215.14'], ['127.0.0.1']);
    const sockets = watchSockets();
    try {
      const got = await httpGet(`http://rebind.switchboard.test:${port}/`, limits).catch((e: Error) => e);
      expect(got).toBeInstanceOf(Error);
      // One resolution, and the socket was handed the address that was checked, nothing else.
      expect(resolver.calls).toEqual(['rebind.switchboard.test']);
      expect(sockets.addresses).toEqual(['93.184.215.14']);
    } finally {
      sockets.stop();
      resolver.restore();
    }
    expect(hits).toEqual([]);
  });

  it('refuses a name when any of its addresses is private, with the name and the address in the message', async () => {
    hits = [];
    const resolver = rebinding(['93.184.215.14', '::ffff:127.0.0.1']);
    try {
      await expect(httpGet(`http://mixed.switchboard.test:${port}/`, limits)).rejects.toThrow(
        /mixed\.switchboard\.test resolves to ::ffff:127\.0\.0\.1, a loopback address.*allow_hosts/,
      );
    } finally {
      resolver.restore();
    }
    expect(hits).toEqual([]);
  });

  it('bounds the name resolution by timeout_ms, and says why a connection failed', async () => {
    const resolver = rebinding('hang');
    try {
      const t0 = Date.now();
      await expect(httpGet('http://slow-dns.switchboard.test/', { ...limits, timeout_ms: 200 })).rejects.toThrow(
        /timeout/,
      );
      expect(Date.now() - t0).toBeLessThan(1500);
    } finally {
      resolver.restore();
    }
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
    const closedPort = (closed.address() as net.AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const own = { ...limits, allow_hosts: ['127.0.0.1'] };
    await expect(httpGet(`http://127.0.0.1:${closedPort}/`, own)).rejects.toThrow(/fetch failed: .*ECONNREFUSED/);
  });

  it('keeps allow_hosts and allow_private working, and does not follow redirects', async () => {
    hits = [];
    const own = { ...limits, allow_hosts: ['127.0.0.1'] };
    expect(await httpGet(`http://127.0.0.1:${port}/`, own)).toBe('HTTP 200\nsecret');
    expect(await httpGet(`http://localhost:${port}/`, { ...limits, allow_hosts: ['localhost'] })).toBe(
      'HTTP 200\nsecret',
    );
    // allow_hosts names the host as the URL spells it: the mapped form of an allowed 127.0.0.1 stays refused.
    await expect(httpGet(`http://[::ffff:127.0.0.1]:${port}/`, own)).rejects.toThrow(/loopback/);
    const open = { ...limits, allow_private: true };
    expect(await httpGet(`http://[::ffff:127.0.0.1]:${port}/`, open)).toBe('HTTP 200\nsecret');
    const moved = await httpGet(`http://127.0.0.1:${port}/redirect`, own);
    expect(moved).toBe(`HTTP 302\nLocation: http://[::ffff:127.0.0.1]:${port}/secret\nmoved`);
    expect(hits).toEqual(['/', '/', '/', '/redirect']);
  });
});

/**
 * Replaces the system resolver (both dns.lookup and dns/promises' lookup) with scripted answers, one per call (the
 * last one repeats); 'hang' never answers.
 */
function rebinding(...answers: (string[] | 'hang')[]) {
  const calls: string[] = [];
  const saved = { cb: dns.lookup, promise: dns.promises.lookup };
  const next = (host: string) => {
    calls.push(host);
    const answer = answers[Math.min(calls.length, answers.length) - 1] ?? [];
    return answer === 'hang' ? null : answer.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  const cb = (host: string, opts: unknown, done?: unknown) => {
    const callback = (typeof opts === 'function' ? opts : done) as (...a: unknown[]) => void;
    const all = next(host);
    if (!all) return;
    const wantAll = typeof opts === 'object' && opts !== null && (opts as { all?: boolean }).all;
    process.nextTick(() => (wantAll ? callback(null, all) : callback(null, all[0]?.address, all[0]?.family)));
  };
  const promise = (host: string, opts?: { all?: boolean }) => {
    const all = next(host);
    return all ? Promise.resolve(opts?.all ? all : all[0]) : new Promise(() => {});
  };
  Object.assign(dns, { lookup: cb });
  Object.assign(dns.promises, { lookup: promise });
  syncBuiltinESMExports();
  return {
    calls,
    restore() {
      Object.assign(dns, { lookup: saved.cb });
      Object.assign(dns.promises, { lookup: saved.promise });
      syncBuiltinESMExports();
    },
  };
}

/** Records the address each new client socket is about to connect to, and stops it there (no traffic leaves). */
function watchSockets() {
  const addresses: string[] = [];
  const onSocket = (msg: unknown) => {
    const socket = (msg as { socket: net.Socket }).socket;
    socket.once('lookup', (err: Error | null, address: string) => {
      if (!err) addresses.push(address);
      socket.destroy(new Error('stopped by the test before connecting'));
    });
  };
  dc.subscribe('net.client.socket', onSocket);
  return { addresses, stop: () => dc.unsubscribe('net.client.socket', onSocket) };
}
