// The stand-in for node:http2 that undici's HTTP/2 client gets in the CLI bundle (scripts/build.mjs): its constants
// are node:http2's, client-h2.js reads no constant it lacks (an undici update that reads another fails here), and
// connect is node:http2's own, loaded on first use.
import http2 from 'node:http2';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const lazy = require('./undici-http2-lazy.cjs') as { constants: Record<string, unknown>; connect: unknown };

describe("undici's node:http2 in the CLI bundle", () => {
  it("has node:http2's values for every constant client-h2.js reads", () => {
    const source = readFileSync(require.resolve('undici/lib/dispatcher/client-h2.js'), 'utf8');
    const block = /const \{\s*constants: \{([^}]*)\}\s*\} = http2/.exec(source);
    expect(block, 'client-h2.js still destructures http2.constants at load').not.toBeNull();
    const names = block![1]!
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    expect(names.length).toBeGreaterThan(0);
    for (const name of names)
      expect(lazy.constants[name], name).toBe((http2.constants as Record<string, unknown>)[name]);
    // Anything else client-h2.js takes from http2 at load would be undefined in the bundle.
    const uses = new Set([...source.matchAll(/\bhttp2\.(\w+)/g)].map((m) => m[1]));
    expect([...uses].sort()).toEqual(['connect']);
  });

  it('connects through node:http2', async () => {
    const server = http2.createServer((_req, res) => res.end('ok'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as { port: number };
    const session = (lazy.connect as typeof http2.connect)(`http://127.0.0.1:${port}`);
    try {
      const text = await new Promise<string>((resolve, reject) => {
        const req = session.request({ ':path': '/' });
        let body = '';
        req.setEncoding('utf8');
        req.on('data', (d: string) => (body += d));
        req.on('end', () => resolve(body));
        req.on('error', reject);
        req.end();
      });
      expect(text).toBe('ok');
    } finally {
      session.close();
      await new Promise((r) => server.close(r));
    }
  });
});
