// Test support: runs `switchboard serve` as a child process on a free port with a config file of the test's: the
// compiled build, started as `npm run serve` starts it (node with package.json serve's flags, then bin/switchboard.mjs),
// on the Node of the test's project (test-node.ts: 20, 22 or 24).
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveNodeFlags } from './serve-flags.ts';
import { testNode } from './test-node.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export type ServeProcess = {
  url: string;
  port: number;
  baseUrl: string;
  dir: string;
  configPath: string;
  adminToken: string;
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Fetches an admin route with the token. */
  admin: (route: string, init?: RequestInit) => Promise<Response>;
  writeConfig: (config: unknown) => Promise<void>;
  stop: () => Promise<void>;
};

export type ServeOptions = {
  config?: unknown;
  /** Raw file text instead of `config` (for invalid JSON tests). */
  configText?: string;
  port?: number;
  dir?: string;
  env?: NodeJS.ProcessEnv;
  args?: string[];
  /** Listen on config.json's listen_port instead of a free port (for rebind tests). */
  portFromConfig?: boolean;
  /** Node flags before bin/switchboard.mjs (after package.json serve's). */
  nodeArgs?: string[];
  /** The working folder serve runs in (default: the repository). */
  cwd?: string;
};

const BIN = path.join(ROOT, 'bin/switchboard.mjs');

/** The arguments after node for `switchboard <args>` as a user runs it: package.json serve's node flags (the #! line
 * of bin/switchboard.mjs has the same), the bin, the command. Start with testNode(). */
export function switchboardArgs(...args: string[]): string[] {
  const flags = serveNodeFlags();
  return [...flags, BIN, ...args];
}

/** The exit code and output of `switchboard <args>` (the compiled CLI on the project's Node), whatever the code. */
export function runSwitchboard(
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(testNode(), switchboardArgs(...args), {
    cwd: opts.cwd ?? ROOT,
    env: opts.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => {
    const t = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.once('close', (code) => {
      clearTimeout(t);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The child's exit: code and everything it printed, for tests that expect serve to refuse to start. */
export async function runServeToExit(
  opts: ServeOptions & { timeoutMs?: number },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { child, dir, configPath, out, err } = await spawnServe(opts);
  void dir;
  void configPath;
  const code = await new Promise<number | null>((resolve) => {
    const t = setTimeout(() => {
      child.kill('SIGKILL');
      resolve(null);
    }, opts.timeoutMs ?? 15_000);
    child.once('exit', (c) => {
      clearTimeout(t);
      resolve(c);
    });
  });
  return { code, stdout: out.join(''), stderr: err.join('') };
}

async function spawnServe(opts: ServeOptions) {
  const dir = opts.dir ?? (await fs.mkdtemp(path.join(os.tmpdir(), 'sb-serve-')));
  const configPath = path.join(dir, 'config.json');
  if (opts.configText !== undefined) await fs.writeFile(configPath, opts.configText);
  else if (opts.config !== undefined) await fs.writeFile(configPath, JSON.stringify(opts.config, null, 2));
  const args = [...(opts.nodeArgs ?? []), ...switchboardArgs('serve', '--config', configPath)];
  if (opts.port !== undefined) args.push('--port', String(opts.port));
  else if (!opts.portFromConfig) args.push('--port', '0');
  args.push(...(opts.args ?? []));
  const child = spawn(testNode(), args, {
    cwd: opts.cwd ?? ROOT,
    env: { ...process.env, SWITCHBOARD_LOG_LEVEL: 'info', ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out: string[] = [];
  const err: string[] = [];
  child.stdout!.on('data', (d: Buffer) => out.push(d.toString()));
  child.stderr!.on('data', (d: Buffer) => err.push(d.toString()));
  return { child, dir, configPath, out, err };
}

export async function startServe(opts: ServeOptions = {}): Promise<ServeProcess> {
  const { child, dir, configPath, out, err } = await spawnServe(opts);
  const port = await new Promise<number>((resolve, reject) => {
    const t = setTimeout(
      () => reject(new Error(`serve did not start in time:\n${out.join('')}\n${err.join('')}`)),
      20_000,
    );
    const onData = () => {
      const m = /listening on http:\/\/[^:]+:(\d+)/.exec(out.join(''));
      if (m) {
        clearTimeout(t);
        child.stdout!.off('data', onData);
        resolve(Number(m[1]));
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(t);
      reject(new Error(`serve exited with ${code}:\n${out.join('')}\n${err.join('')}`));
    });
  });
  const adminToken = (await fs.readFile(path.join(dir, 'admin-token'), 'utf8')).trim();
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    port,
    baseUrl: `${url}/v1`,
    dir,
    configPath,
    adminToken,
    child,
    stdout: () => out.join(''),
    stderr: () => err.join(''),
    admin: (route, init = {}) =>
      fetch(`${url}/admin/v1${route}`, {
        ...init,
        headers: { authorization: `Bearer ${adminToken}`, ...(init.headers as Record<string, string>) },
      }),
    writeConfig: (config) => fs.writeFile(configPath, JSON.stringify(config, null, 2)),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        const t = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(t);
      }
      if (!opts.dir) await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

/** A config with the given providers (name → base URL), all enabled, and optional rules. */
export function configFor(
  providers: Record<string, string>,
  extra: {
    rules?: { pattern: string; provider?: string; providers?: string[]; [k: string]: unknown }[];
    default_provider?: string;
    app_rules?: unknown[];
    [k: string]: unknown;
  } = {},
): Record<string, unknown> {
  const { rules = [], default_provider, app_rules = [], ...rest } = extra;
  const names = Object.keys(providers);
  return {
    listen_port: 11434,
    log_requests: false,
    start_on_login: false,
    providers: names.map((name) => ({
      name,
      base_url: providers[name],
      api_key: `sk-${name}-secret-key-123456`,
      enabled: true,
    })),
    routing: { default_provider: default_provider ?? names[0] ?? '', rules },
    app_rules,
    health_check: { interval_ms: 0, timeout_ms: 2000 },
    ...rest,
  };
}

/** Polls until `check` passes or the time is up (for hot reload and other asynchronous effects). */
export async function eventually<T>(check: () => Promise<T> | T, timeoutMs = 5_000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastErr: unknown;
  while (Date.now() < deadline) {
    try {
      return await check();
    } catch (err) {
      lastErr = err;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw lastErr;
}
