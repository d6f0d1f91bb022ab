// http_get: fetches a public http(s) URL with a size and time limit; loopback and private ranges are refused
// unless config allows them (orchestrator.http_get.allow_private or allow_hosts).
import { lookup } from 'node:dns/promises';
import net from 'node:net';

export type HttpGetLimits = { allow_private: boolean; allow_hosts: string[]; max_bytes: number; timeout_ms: number };

export function isPrivateAddress(ip: string): boolean {
  if (net.isIPv4(ip)) {
    const [a = 0, b = 0] = ip.split('.').map(Number);
    return (
      a === 10 ||
      a === 127 ||
      a === 0 ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 100 && b >= 64 && b <= 127) ||
      a >= 224
    );
  }
  const v6 = ip.toLowerCase();
  if (v6.startsWith('::ffff:')) return isPrivateAddress(v6.slice(7));
  return v6 === '::1' || v6 === '::' || v6.startsWith('fc') || v6.startsWith('fd') || v6.startsWith('fe80');
}

export async function httpGet(rawUrl: string, limits: HttpGetLimits, signal?: AbortSignal): Promise<string> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new Error('url must be a full http:// or https:// address');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('only http and https are allowed');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!limits.allow_private && !limits.allow_hosts.includes(host)) {
    const addrs = net.isIP(host) ? [{ address: host }] : await lookup(host, { all: true });
    if (addrs.some((a) => isPrivateAddress(a.address))) {
      throw new Error(
        `${host} is a loopback or private address; allow it with orchestrator.http_get.allow_hosts in config.json`,
      );
    }
  }
  const timeout = AbortSignal.timeout(limits.timeout_ms);
  const both = signal ? AbortSignal.any([signal, timeout]) : timeout;
  const res = await fetch(url, { signal: both, redirect: 'manual' });
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
  return `HTTP ${res.status}\n${text}${truncated ? `\n[truncated at ${limits.max_bytes} bytes]` : ''}`;
}
