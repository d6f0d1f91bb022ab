// The Origin guard (issue 13, item 8): a browser page may call only from this server's own origin or an origin of
// allowed_origins (granted CORS); pages on other ports of this machine, "null" and every other site are refused.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../shared/config.ts';
import { ApiError } from '../errors.ts';
import { checkOrigin, checkProxyHost, originAllowed, preflightHeaders } from './guards.ts';

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
  const hostRefused = (host: string | undefined, extra: string[] = []) => {
    try {
      checkProxyHost(host === undefined ? {} : { host }, extra);
      return null;
    } catch (err) {
      return err instanceof ApiError ? err.code : String(err);
    }
  };

  it('allows this machine by any of its names and refuses a public name (DNS rebinding)', () => {
    for (const h of [
      'localhost:11434',
      '127.0.0.1:11434',
      '[::1]:11434',
      '10.0.0.5',
      'box.local',
      'host.docker.internal',
    ])
      expect(hostRefused(h)).toBeNull();
    expect(hostRefused(undefined)).toBeNull(); // HTTP/1.0 may omit it
    expect(hostRefused('evil.example.com')).toBe('host_not_allowed');
    expect(hostRefused('localhost.evil.example.com:11434')).toBe('host_not_allowed');
  });

  it('the last allowed Host, remembered for the next request, never lets another one through', () => {
    expect(hostRefused('localhost:11434')).toBeNull();
    expect(hostRefused('evil.example.com:11434')).toBe('host_not_allowed');
    expect(hostRefused('localhost:11434')).toBeNull();
    // A name allowed only by the caller's extra list is not remembered for a caller without it.
    expect(hostRefused('team.example.com', ['team.example.com'])).toBeNull();
    expect(hostRefused('team.example.com')).toBe('host_not_allowed');
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
