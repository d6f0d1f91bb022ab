// Address helpers shared by the platform parsers: canonical form, loopback test, and "host:port" parsing.
import net from 'node:net';

const loopback = new net.BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/**
 * Canonical text for an IP address so that two spellings of one address compare equal:
 * brackets and zone ids dropped, IPv6 compressed and lowercased, IPv4-mapped IPv6 (`::ffff:127.0.0.1`)
 * reduced to plain IPv4. Returns null for anything that is not an IP address (`*`, host names, '').
 */
export function canonicalAddress(address: string): string | null {
  const bare = address.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  const family = net.isIP(bare);
  if (family === 0) return null;
  const canonical = new net.SocketAddress({ address: bare, family: family === 4 ? 'ipv4' : 'ipv6' }).address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(canonical);
  return mapped?.[1] ?? canonical;
}

/** True for 127.0.0.0/8, ::1 and ::ffff:127.x.x.x in any spelling; false for everything else. */
export function isLoopbackAddress(address: string): boolean {
  const canonical = canonicalAddress(address);
  if (canonical === null) return false;
  return loopback.check(canonical, net.isIP(canonical) === 4 ? 'ipv4' : 'ipv6');
}

/** A TCP endpoint; `address` is canonical, or null for a wildcard / unparseable host (`*`, `0.0.0.0`, `[::]`). */
export type Endpoint = { address: string | null; port: number };

/** Parses `127.0.0.1:80`, `[::1]:11434`, `*:11434`, `::1:80` style text as printed by lsof and netstat. */
export function parseEndpoint(text: string): Endpoint | null {
  const match = /^(.*):(\d+|\*)$/.exec(text.trim());
  if (!match) return null;
  const [, host = '', portText = ''] = match;
  const port = portText === '*' ? 0 : Number(portText);
  if (!Number.isInteger(port) || port > 65535) return null;
  const address = canonicalAddress(host);
  return { address: address === '0.0.0.0' || address === '::' ? null : address, port };
}

/** Same address (in any spelling) and same port. */
export function isSameEndpoint(endpoint: Endpoint, address: string, port: number): boolean {
  return endpoint.port === port && endpoint.address !== null && endpoint.address === canonicalAddress(address);
}
