// `npm run serve` as a user runs it on a fresh clone (issue 17): bin/switchboard.mjs runs the compiled build
// (dist/, which `npm ci` makes through the prepare step; rebuilt first when the sources are newer), answers through
// the router and serves the UI at the /ui link it prints.
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockProvider, type MockProvider } from './support/mock-provider.ts';
import { serveNodeFlags } from './support/serve-flags.ts';
import { configFor, startServe, type ServeProcess } from './support/serve-process.ts';
import { testNode, testNodeMajor } from './support/test-node.ts';

/** One chat completion through the router. */
const chat = (sb: ServeProcess): Promise<Response> =>
  fetch(`${sb.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  });

describe('npm run serve (compiled)', () => {
  let mock: MockProvider;
  let sb: ServeProcess;
  beforeAll(async () => {
    mock = await startMockProvider({ behavior: { tokens: ['Hello', ' there'] } });
    sb = await startServe({ config: configFor({ mock: mock.baseUrl }, { log_requests: false }) });
  }, 120_000);
  afterAll(async () => {
    await sb?.stop();
    await mock?.close();
  });

  it("runs the compiled build on the project's Node and says so", () => {
    expect(sb.stdout()).toContain('runtime: compiled (dist/)');
    expect(realpathSync(`/proc/${sb.child.pid}/exe`)).toBe(realpathSync(testNode()));
    expect(sb.stdout()).toContain(`node v${testNodeMajor()}.`);
  });

  it('answers a chat request through the router', async () => {
    const res = await chat(sb);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { choices: { message: { content: string } }[] };
    expect(body.choices[0]!.message.content).toBe('Hello there');
  });

  it('serves the UI at the link it prints, with its scripts', async () => {
    const link = /UI: (http:\/\/\S+)/.exec(sb.stdout())?.[1];
    expect(link).toBeDefined();
    const page = await fetch(link!);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    const script = /src="\.?\/?(assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const js = await fetch(`${sb.url}/ui/${script}`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toContain('javascript');
  });

  it('runs node with the flags of package.json serve', () => {
    expect(sb.child.spawnargs.slice(1, 1 + serveNodeFlags().length)).toEqual(serveNodeFlags());
  });

  // The `switchboard` command run as an executable: its #! line (env -S) starts node with the same flags.
  it.skipIf(process.platform !== 'linux')(
    'the switchboard command starts node with the same flags',
    async () => {
      const bin = path.resolve(import.meta.dirname, '../bin/switchboard.mjs');
      // Its own folder (the data beside a config belongs to one instance).
      const dir = mkdtempSync(path.join(os.tmpdir(), 'sb-shebang-'));
      copyFileSync(sb.configPath, path.join(dir, 'config.json'));
      // The `node` on PATH is the project's (Node 20, 22 or 24), as a user's PATH picks theirs.
      const PATH = `${path.dirname(testNode())}${path.delimiter}${process.env.PATH}`;
      const child = spawn(bin, ['serve', '--config', path.join(dir, 'config.json'), '--port', '0'], {
        env: { ...process.env, PATH, SWITCHBOARD_NO_BUILD: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      try {
        await new Promise<void>((resolve, reject) => {
          let out = '';
          child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
          child.stdout!.on('data', (d: Buffer) => {
            out += d.toString();
            if (/http:\/\/127\.0\.0\.1:\d+/.test(out)) resolve();
          });
          child.once('exit', (code) => reject(new Error(`exited with ${code}: ${out}`)));
        });
        // env replaced itself with node: the same process, node's own command line.
        const argv = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0');
        expect(path.basename(argv[0]!)).toMatch(/^node/);
        expect(realpathSync(`/proc/${child.pid}/exe`)).toBe(realpathSync(testNode()));
        expect(argv.slice(1, 1 + serveNodeFlags().length)).toEqual(serveNodeFlags());
        expect(argv[1 + serveNodeFlags().length]).toBe(bin);
      } finally {
        child.kill('SIGTERM');
        await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
        rmSync(dir, { recursive: true, force: true });
      }
    },
    60_000,
  );
});

// What a start loads (issue 17's start-up target): a start asked only for chat completions never loads the Hono app
// (main/server/http-app.ts), whose @hono/node-server makes a Response at load and so loads Node's built-in fetch
// (~25 ms), nor node:http2, node:https or node:tls (undici's HTTP/2 client and prom-client's Pushgateway require them
// when they load; the bundle gives undici a stand-in and metrics take prom-client's classes from their own modules).
// The first other request loads the app; requests that arrive while it loads wait for it, then are answered.
describe.skipIf(process.platform === 'win32')('npm run serve (compiled): what a start loads', () => {
  const FETCH = 'NativeModule internal/deps/undici/undici';
  const NOT_AT_START = [FETCH, 'NativeModule http2', 'NativeModule https', 'NativeModule tls'];
  let mock: MockProvider;
  let sb: ServeProcess;
  let listFile: string;
  const loaded = async (): Promise<string[]> => {
    const before = sb.stdout().split('module list written').length;
    sb.child.kill('SIGUSR2');
    for (let i = 0; i < 100 && sb.stdout().split('module list written').length === before; i++)
      await new Promise((r) => setTimeout(r, 50));
    return JSON.parse(readFileSync(listFile, 'utf8')) as string[];
  };
  beforeAll(async () => {
    mock = await startMockProvider({ behavior: { tokens: ['Hello', ' there'] } });
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sb-modules-'));
    listFile = path.join(dir, 'modules.json');
    sb = await startServe({
      dir,
      config: configFor({ mock: mock.baseUrl }, { log_requests: false }),
      nodeArgs: ['--import', path.resolve(import.meta.dirname, 'support/module-list-preload.mjs')],
      env: { SWITCHBOARD_TEST_MODULE_LIST: listFile },
    });
  }, 120_000);
  afterAll(async () => {
    await sb?.stop();
    await mock?.close();
    if (sb) rmSync(sb.dir, { recursive: true, force: true });
  });

  it('answers chat completions without loading the Hono app, fetch, http2, https or tls; loads it on demand', async () => {
    const answer = await chat(sb);
    expect(answer.status).toBe(200);
    await answer.text();
    const atStart = await loaded();
    expect(atStart).toContain('NativeModule http'); // the list is the server's
    for (const m of NOT_AT_START) expect(atStart).not.toContain(m);

    // The first requests for other routes, all at once while the app loads: each answered.
    const answers = await Promise.all([
      fetch(`${sb.baseUrl}/models`),
      fetch(`${sb.url}/api/tags`),
      sb.admin('/status'),
      fetch(`${sb.url}/no/such/route`),
    ]);
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 404]);
    const models = (await answers[0]!.json()) as { data: { id: string }[] };
    expect(Array.isArray(models.data)).toBe(true);
    expect(((await answers[3]!.json()) as { error: { message: string } }).error.message).toContain('No route');
    expect(await loaded()).toContain(FETCH); // the app loaded (and with it Node's fetch)
  });
});
