// The built React UI (vite → dist/renderer) served at /ui, for machines without a display. Static files only.
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Hono } from 'hono';

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** Where the UI build lives: $SWITCHBOARD_UI_DIR when set, else dist/renderer from the source tree or the compiled one. */
export function uiDir(): string | null {
  const env = process.env.SWITCHBOARD_UI_DIR;
  // From the sources (main/server/), the bundle's chunks (dist/main/chunks/) or a packaged app: the nearest
  // ancestor holding a built renderer, as dist/renderer or renderer (inside dist).
  const ancestors = [HERE, path.resolve(HERE, '..'), path.resolve(HERE, '../..'), path.resolve(HERE, '../../..')];
  const candidates = env ? [env] : ancestors.flatMap((d) => [path.join(d, 'dist/renderer'), path.join(d, 'renderer')]);
  for (const dir of candidates) {
    if (!dir) continue;
    try {
      // A source tree's renderer/ has index.html too, but no built assets folder.
      require_(path.join(dir, 'index.html'));
      require_(path.join(dir, 'assets'));
      return dir;
    } catch {
      // next candidate
    }
  }
  return null;
}

function require_(p: string): void {
  fsSync.statSync(p); // throws when missing
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

/** The UI's Content-Security-Policy, at /ui and in the desktop window (main/electron/window.ts). */
export const UI_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** The page holds the admin token in its URL: never send it on as a Referer, never let another site frame it. */
const SECURITY_HEADERS = {
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'content-security-policy': UI_CSP,
};

export function uiRoutes(dir: () => string | null = uiDir): Hono {
  const ui = new Hono();
  // /ui → /ui/ (the build uses relative asset paths, so the page must sit in a folder), keeping ?token=.
  ui.get('/', (c) => {
    const u = new URL(c.req.url);
    if (!u.pathname.endsWith('/')) return c.redirect(`/ui/${u.search}`, 302);
    return serveFile(c, dir(), 'index.html');
  });
  ui.get('/*', (c) => {
    const rel = decodeURIComponent(c.req.path.replace(/^\/ui\/?/, ''));
    return serveFile(c, dir(), rel || 'index.html');
  });
  return ui;
}

async function serveFile(
  c: { body: (data: Uint8Array | string, status: 200 | 404, headers: Record<string, string>) => Response },
  root: string | null,
  rel: string,
): Promise<Response> {
  if (!root) {
    return c.body(
      'The Switchboard UI is not built. Run `npm run build:ui` (or `npm run build`) and reload this page.\n',
      404,
      { 'content-type': 'text/plain; charset=utf-8', ...SECURITY_HEADERS },
    );
  }
  const file = path.resolve(root, rel);
  if (file !== root && !file.startsWith(root + path.sep))
    return c.body('not found\n', 404, { 'content-type': 'text/plain' });
  let data: Buffer;
  let target = file;
  try {
    data = await fs.readFile(file);
  } catch {
    // Client-side routes (/ui/logs) get the app; missing assets stay 404.
    if (path.extname(rel) !== '') return c.body('not found\n', 404, { 'content-type': 'text/plain' });
    target = path.join(root, 'index.html');
    data = await fs.readFile(target);
  }
  const type = TYPES[path.extname(target)] ?? 'application/octet-stream';
  const cache = target.includes(`${path.sep}assets${path.sep}`) ? 'public, max-age=31536000, immutable' : 'no-store';
  return c.body(new Uint8Array(data), 200, { 'content-type': type, 'cache-control': cache, ...SECURITY_HEADERS });
}
