// http_get: fetches a public http(s) URL with a size and time limit. Every address that is not public unicast
// (loopback, private, link-local, …, whatever way it is written) is refused unless config allows it
// (orchestrator.http_get.allow_private or allow_hosts). A name is resolved once and checked; the socket's own lookup
// hands it exactly those checked addresses, so a name that rebinds between check and connect cannot slip through.
import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

export type HttpGetLimits = { allow_private: boolean; allow_hosts: string[]; max_bytes: number; timeout_ms: number };

const RANGE_NAMES: Record<string, string> = {
  loopback: 'a loopback',
  private: 'a private',
  linkLocal: 'a link-local',
  carrierGradeNat: 'a carrier-grade NAT',
  unspecified: 'an unspecified',
  multicast: 'a multicast',
  broadcast: 'a broadcast',
  reserved: 'a reserved',
  uniqueLocal: 'a unique-local',
  deprecatedSiteLocal: 'a site-local',
  rfc6145: 'an IPv4-translated (RFC 6145)',
  rfc6052: 'a local-use NAT64',
  '6to4': 'a 6to4 tunnel',
  teredo: 'a Teredo tunnel',
};
const NAT64 = ipaddr.parseCIDR('64:ff9b::/96');
const V4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/**
 * Why `ip` may not be fetched ("a loopback address", …), or null for a public unicast address. IPv4-mapped IPv6 is
 * unwrapped first; IPv4 in decimal, hex, octal or short form is read as inet_aton reads it; NAT64 (64:ff9b::/96) is
 * judged by the IPv4 address it embeds; IPv4-compatible (::/96), SIIT, 6to4 and Teredo forms are refused whole.
 * Anything that does not parse as an address is refused too.
 */
export function refusedAddress(ip: string): string | null {
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.process(ip);
  } catch {
    return 'not an IP address';
  }
  const range: string = addr.range();
  const mapped = addr.kind() === 'ipv4' && net.isIPv6(ip) ? ` (IPv4-mapped ${addr.toString()})` : '';
  if (addr.kind() === 'ipv6' && range === 'unicast' && addr.match(V4_COMPATIBLE)) {
    return 'an IPv4-compatible address (deprecated; it embeds an IPv4 address)';
  }
  if (addr.kind() === 'ipv6' && range === 'rfc6052' && addr.match(NAT64)) {
    const v4 = ipaddr.fromByteArray(addr.toByteArray().slice(12)).toString();
    const inner = refusedAddress(v4);
    return inner ? `a NAT64 address of ${v4}, ${inner}` : null;
  }
  if (range === 'unicast') return null;
  return `${RANGE_NAMES[range] ?? `a special-purpose (${range})`} address${mapped}`;
}

export const isPrivateAddress = (ip: string): boolean => refusedAddress(ip) !== null;

/** A refusal by the address check (told apart from connection errors so its text reaches the agent as is). */
class RefusedAddress extends Error {}

const refusal = (what: string) =>
  new RefusedAddress(
    `${what}; http_get refuses loopback or private addresses unless config.json allows them ` +
      '(orchestrator.http_get.allow_hosts, or allow_private)',
  );

type LookupCallback = (err: Error | null, address: string | dns.LookupAddress[], family?: number) => void;

/** Resolves `hostname` once; refuses it when any of its addresses is not public; else gives the checked addresses. */
function resolveChecked(hostname: string, options: dns.LookupOptions = {}): Promise<dns.LookupAddress[]> {
  return new Promise((resolve, reject) => {
    dns.lookup(hostname, { family: options.family, hints: options.hints, all: true }, (err, addresses) => {
      if (err) return reject(err);
      const bad = addresses.map((a) => [a.address, refusedAddress(a.address)] as const).find(([, why]) => why);
      if (bad) return reject(refusal(`${hostname} resolves to ${bad[0]}, ${bad[1]}`));
      if (addresses.length === 0)
        return reject(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }));
      resolve(addresses);
    });
  });
}

/**
 * The socket's lookup: `pinned` answers for the name checked before the request (nothing is resolved again, so the
 * socket connects to exactly the checked addresses); any other name is resolved and checked here.
 */
function pinnedLookup(pinned: Map<string, dns.LookupAddress[]>) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    const known = pinned.get(hostname);
    const answer = known ? Promise.resolve(known) : resolveChecked(hostname, options);
    answer.then(
      (all) => {
        const fit = options.family ? all.filter((a) => a.family === options.family) : all;
        const first = fit[0];
        if (!first) callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
        else if (options.all) callback(null, fit);
        else callback(null, first.address, first.family);
      },
      (err: Error) => callback(err, []),
    );
  };
}

const untilAborted = <T>(work: Promise<T>, signal: AbortSignal): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });

const bare = (host: string) => host.toLowerCase().replace(/^\[|\]$/g, '');

export async function httpGet(rawUrl: string, limits: HttpGetLimits, signal?: AbortSignal): Promise<string> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new Error('url must be a full http:// or https:// address');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('only http and https are allowed');
  // allow_hosts names a host as the URL parser spells it (so 127.0.0.1 does not also allow [::ffff:127.0.0.1]).
  const host = bare(url.hostname);
  const trusted = limits.allow_private || limits.allow_hosts.some((h) => bare(h) === host);
  const timeout = AbortSignal.timeout(limits.timeout_ms);
  const both = signal ? AbortSignal.any([signal, timeout]) : timeout;
  const pinned = new Map<string, dns.LookupAddress[]>();
  if (!trusted && net.isIP(host)) {
    const why = refusedAddress(host);
    if (why) throw refusal(`${url.hostname} is ${why}`);
  } else if (!trusted) pinned.set(host, await untilAborted(resolveChecked(host), both));
  // One agent per call: no connection is shared between calls, and each lookup is checked (TLS SNI and Host stay
  // the name). Redirects are not followed: the agent sees the 3xx and its Location and may call http_get again,
  // which checks the new address like any other.
  const { Agent, fetch } = await import('undici'); // undici's fetch: loaded by the first http_get, not at start
  const dispatcher = new Agent({ connect: trusted ? {} : { lookup: pinnedLookup(pinned) } });
  try {
    const res = await fetch(url, { signal: both, redirect: 'manual', dispatcher }).catch((err: Error) => {
      const cause = err.cause as Error | undefined;
      if (cause instanceof RefusedAddress) throw new RefusedAddress(cause.message);
      if (both.aborted || !cause?.message) throw err;
      throw new Error(`${err.message}: ${cause.message}`);
    });
    const reader = res.body?.getReader();
    const parts: Uint8Array[] = [];
    let size = 0;
    let truncated = false;
    if (reader) {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > limits.max_bytes) {
          parts.push(value.subarray(0, value.byteLength - (size - limits.max_bytes)));
          truncated = true;
          await reader.cancel();
          break;
        }
        parts.push(value);
      }
    }
    const text = Buffer.concat(parts).toString('utf8');
    const location = res.status >= 300 && res.status < 400 ? res.headers.get('location') : null;
    const head = `HTTP ${res.status}${location ? `\nLocation: ${location}` : ''}`;
    return `${head}\n${text}${truncated ? `\n[truncated at ${limits.max_bytes} bytes]` : ''}`;
  } finally {
    await dispatcher.destroy().catch(() => {});
  }
}
