// The Origin guard (issue 13, item 8): a browser page may call only from this server's own origin or an origin of
// allowed_origins (granted CORS); pages on other ports of this machine, "null" and every other site are refused.
import type { IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../shared/config.ts';
import { ApiError } from '../errors.ts';
import { checkOrigin, checkProxyHost, hostListed, originAllowed, preflightHeaders } from './guards.ts';
import { LocalNames } from './host-names.ts';

const HOST = '127.0.0.1:11434';
const refused = (origin: string | undefined, allowed: string[] = [], extra: Record<string, string> = {}) => {
  try {
    checkOrigin({ host: HOST, ...(origin === undefined ? {} : { origin }), ...extra }, allowed);
    return null;
  } catch (err) {
    return err instanceof ApiError ? err.code : String(err);
  }
};

describe('checkOrigin', () => {
  it('no Origin (curl, SDKs, scripts): passes, no grant; Sec-Fetch-Site cross-site without one is refused', () => {
    expect(checkOrigin({ host: HOST })).toBeNull();
    expect(refused(undefined, [], { 'sec-fetch-site': 'cross-site' })).toBe('origin_not_allowed');
  });

  it('this server’s own origin passes with no grant (its UI); the default port is the same origin', () => {
    expect(checkOrigin({ host: HOST, origin: `http://${HOST}` })).toBeNull();
    expect(checkOrigin({ host: 'localhost', origin: 'http://localhost:80' })).toBeNull();
    expect(checkOrigin({ host: '[::1]:11434', origin: 'http://[::1]:11434' })).toBeNull();
    expect(checkOrigin({ host: 'gw.example.com', origin: 'https://gw.example.com' })).toBeNull();
  });

  it('a page on another port of this machine is another origin: refused unless allowed', () => {
    expect(refused('http://127.0.0.1:3000')).toBe('origin_not_allowed');
    expect(refused('http://localhost:11434')).toBe('origin_not_allowed'); // another host name is another origin
    expect(refused('http://127.0.0.1:3000', ['http://127.0.0.1:*'])).toBeNull();
  });

  it('allowed_origins: exact origins and * patterns, case-insensitive, granted CORS with the origin itself', () => {
    const allowed = ['app://obsidian.md', 'vscode-webview://*', 'http://localhost:*'];
    expect(checkOrigin({ host: HOST, origin: 'app://obsidian.md' }, allowed)).toBe('app://obsidian.md');
    expect(checkOrigin({ host: HOST, origin: 'vscode-webview://0a1b2c' }, allowed)).toBe('vscode-webview://0a1b2c');
    expect(checkOrigin({ host: HOST, origin: 'APP://Obsidian.md' }, allowed)).toBe('APP://Obsidian.md');
    expect(checkOrigin({ host: HOST, origin: 'http://localhost:5173', 'sec-fetch-site': 'same-site' }, allowed)).toBe(
      'http://localhost:5173',
    );
    expect(refused('app://obsidian.md.evil', allowed)).toBe('origin_not_allowed');
    expect(refused('https://evil.example', allowed)).toBe('origin_not_allowed');
    expect(refused('vscode-file://x', allowed)).toBe('origin_not_allowed');
  });

  it('"null" is refused even when "*" is allowed (sandboxed frames of any site send it)', () => {
    expect(refused('null', ['*'])).toBe('origin_not_allowed');
    expect(checkOrigin({ host: HOST, origin: 'https://anything.example' }, ['*'])).toBe('https://anything.example');
  });

  it('the refusal names the origin and the setting that allows one', () => {
    try {
      checkOrigin({ host: HOST, origin: 'http://127.0.0.1:3000' });
    } catch (err) {
      expect((err as ApiError).message).toContain('http://127.0.0.1:3000');
      expect((err as ApiError).action).toContain('allowed_origins');
    }
    expect.assertions(2);
  });

  it('patterns are regular-expression safe: a dot is a dot', () => {
    expect(originAllowed('app://obsidianXmd', ['app://obsidian.md'])).toBe(false);
    expect(originAllowed('app://a(b)', ['app://a(b)'])).toBe(true);
  });
});

describe('checkProxyHost', () => {
  const hostRefused = async (host: string | undefined, extra: string[] = [], more: IncomingHttpHeaders = {}) => {
    try {
      await checkProxyHost(host === undefined ? { ...more } : { host, ...more }, extra);
      return null;
    } catch (err) {
      return err instanceof ApiError ? err.code : String(err);
    }
  };

  it('allows this machine by its loopback names and IP literals and refuses a public name (DNS rebinding)', async () => {
    for (const h of ['localhost:11434', '127.0.0.1:11434', '[::1]:11434', '10.0.0.5'])
      expect(await hostRefused(h)).toBeNull();
    expect(await hostRefused(undefined)).toBeNull(); // HTTP/1.0 may omit it
    expect(await hostRefused('evil.example.com')).toBe('host_not_allowed');
    expect(await hostRefused('localhost.evil.example.com:11434')).toBe('host_not_allowed');
  });

  // Issue 33, item 7: `Host: evil.local` (and .internal, .localhost names) was accepted, with an Origin of the same name.
  it('refuses *.local, *.internal and *.localhost names that do not resolve to this machine, and any a browser sends', async () => {
    for (const h of ['evil.local', 'evil.internal:11434', 'evil.localhost', 'nothing-here-1234.local'])
      expect(await hostRefused(h)).toBe('host_not_allowed');
    expect(await hostRefused('evil.local:11434', [], { origin: 'http://evil.local:11434' })).toBe('host_not_allowed');
  });

  it('allowed_hosts lets a name through, by name or by a leading dot for every name under it', async () => {
    expect(await hostRefused('host.docker.internal:11434', ['host.docker.internal'])).toBeNull();
    expect(await hostRefused('box.example.lan', ['.example.lan'])).toBeNull();
    expect(await hostRefused('example.lan', ['.example.lan'])).toBeNull();
    expect(await hostRefused('evilexample.lan', ['.example.lan'])).toBe('host_not_allowed');
    expect(hostListed('host.docker.internal', ['HOST.docker.internal'])).toBe(true);
  });

  it('the last allowed Host, remembered for the next request, never lets another one through', async () => {
    expect(await hostRefused('localhost:11434')).toBeNull();
    expect(await hostRefused('evil.example.com:11434')).toBe('host_not_allowed');
    expect(await hostRefused('localhost:11434')).toBeNull();
    // A name allowed only by the caller's list is not remembered for a caller without it.
    expect(await hostRefused('team.example.com', ['team.example.com'])).toBeNull();
    expect(await hostRefused('team.example.com')).toBe('host_not_allowed');
  });
});

describe('LocalNames: which *.local-style names are this machine', () => {
  const mine = () => new Set(['192.168.1.20', '127.0.0.1', '::1']);
  const names = (answers: Record<string, string[]>, calls: string[] = []) =>
    new LocalNames({
      addresses: mine,
      lookup: async (n) => {
        calls.push(n);
        if (!(n in answers)) throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
        return answers[n]!;
      },
    });

  it('a name is this machine when every address it resolves to is loopback or an interface of this machine', async () => {
    const ln = names({
      'box.local': ['192.168.1.20'],
      'app.localhost': ['127.0.0.1', '::1'],
      'host.docker.internal': ['::ffff:192.168.1.20'],
      'mixed.local': ['127.0.0.1', '93.184.216.34'],
      'other.local': ['192.168.1.99'],
    });
    for (const n of ['box.local', 'app.localhost', 'host.docker.internal']) expect(await ln.check(n)).toBe(true);
    for (const n of ['mixed.local', 'other.local', 'unknown.local']) expect(await ln.check(n)).toBe(false);
  });

  it('remembers answers (one lookup per name per TTL) and refuses at once past the lookups in flight', async () => {
    const calls: string[] = [];
    const ln = names({ 'box.local': ['192.168.1.20'] }, calls);
    expect(await ln.check('box.local')).toBe(true);
    expect(ln.check('box.local')).toBe(true); // known: answered at once
    expect(calls).toEqual(['box.local']);
    const slow = new LocalNames({
      addresses: mine,
      maxInFlight: 1,
      lookup: () => new Promise(() => {}),
      timeoutMs: 50,
    });
    const first = slow.check('a.local');
    expect(slow.check('b.local')).toBe(false);
    expect(await first).toBe(false); // the lookup that never answers is refused after its timeout
  });
});

describe('preflightHeaders', () => {
  it('grants the origin, the methods, the headers asked for, and Private Network Access when asked', () => {
    const h = preflightHeaders('app://obsidian.md', {
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type',
      'access-control-request-private-network': 'true',
    });
    expect(h).toMatchObject({
      'access-control-allow-origin': 'app://obsidian.md',
      'access-control-allow-headers': 'authorization, content-type',
      'access-control-allow-private-network': 'true',
    });
    expect(h['access-control-allow-methods']).toContain('POST');
    expect(preflightHeaders('app://x', {})['access-control-allow-private-network']).toBeUndefined();
  });
});

describe('allowed_origins in config.json', () => {
  const problems = (allowed: unknown) => {
    const r = parseConfig({ allowed_origins: allowed });
    return r.ok ? [] : r.problems.map((p) => `${p.path}: ${p.message}`);
  };

  it('takes origins and patterns; defaults to none', () => {
    expect(problems(['app://obsidian.md', 'vscode-webview://*', 'http://localhost:*', 'tauri://localhost'])).toEqual(
      [],
    );
    const r = parseConfig({});
    expect(r.ok && r.config.allowed_origins).toEqual([]);
  });

  it('refuses "null" and anything that is not an origin, naming the entry', () => {
    expect(problems(['null'])).toEqual([expect.stringMatching(/^allowed_origins\[0\]: cannot be "null"/)]);
    expect(problems(['app://x', 'obsidian.md'])).toEqual([
      expect.stringMatching(/^allowed_origins\[1\]: must be an origin/),
    ]);
    expect(problems(['https://example.com/'])).toHaveLength(1);
  });

  it('max_connections and body_idle_timeout_ms: defaults 2048 and 30 s; 0 is no cap; a tiny idle time is refused', () => {
    const r = parseConfig({});
    expect(r.ok && [r.config.max_connections, r.config.body_idle_timeout_ms]).toEqual([2048, 30_000]);
    expect(parseConfig({ max_connections: 0 }).ok).toBe(true);
    expect(parseConfig({ body_idle_timeout_ms: 10 }).ok).toBe(false);
  });
});
