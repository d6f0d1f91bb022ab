// Child processes for benchmarks: start one that prints its listening URL, read its CPU time and peak memory, stop it.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { serveNodeFlags } from '../test/support/serve-flags.ts';

export type BenchChild = {
  name: string;
  pid: number;
  port: number;
  process: ChildProcess;
  /** The last few KB of its stdout and stderr, for error messages. */
  output(): string;
  /** utime + stime so far, in microseconds; null where /proc is missing (not Linux). */
  cpuMicros(): number | null;
  /** Peak resident set size (VmHWM) in MiB; null where /proc is missing. */
  peakRssMiB(): number | null;
  /** SIGTERM, then SIGKILL after graceMs; resolves once the process has exited. */
  stop(graceMs?: number): Promise<void>;
};

export type StartChildOptions = {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Open an IPC channel (process.send in the child). */
  ipc?: boolean;
  /** How long to wait for the listening line; default 20 s (tsx compiles on first start). */
  timeoutMs?: number;
};

const LISTENING = /http:\/\/127\.0\.0\.1:(\d+)/;
const OUTPUT_TAIL = 8192;

let clockTicks: number | undefined;
function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    const out = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
    clockTicks = Number(out.stdout?.trim()) || 100;
  }
  return clockTicks;
}

/** utime + stime of a process from /proc/<pid>/stat, in microseconds. */
export function readCpuMicros(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name start at field 3 (state); utime is 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return (ticks * 1e6) / ticksPerSecond();
  } catch {
    return null;
  }
}

/** VmHWM (peak RSS) of a process from /proc/<pid>/status, in MiB. */
export function readPeakRssMiB(pid: number): number | null {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/**
 * Starts `node <args>` and resolves once its stdout prints a line with http://127.0.0.1:<port>.
 * Rejects, after killing it, when it exits first or stays silent for timeoutMs.
 */
export function startChild(name: string, args: string[], opts: StartChildOptions): Promise<BenchChild> {
  const child = spawn(process.execPath, args, {
    cwd: opts.cwd,
    env: opts.env ?? process.env,
    stdio: opts.ipc ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'pipe', 'pipe'],
  });
  let tail = '';
  const keep = (chunk: Buffer): void => {
    tail = (tail + chunk.toString()).slice(-OUTPUT_TAIL);
  };
  // Both pipes are drained for the child's whole life: a full pipe would block a child that logs.
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });

  const stop = async (graceMs = 3000): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };

  return new Promise<BenchChild>((resolve, reject) => {
    let stdoutLine = '';
    let settled = false;
    const fail = (why: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void stop(500).then(() => reject(new Error(`${name} did not start: ${why}\n--- its output ---\n${tail.trim()}`)));
    };
    const timeoutMs = opts.timeoutMs ?? 20_000;
    const timer = setTimeout(
      () => fail(`no line with http://127.0.0.1:<port> on stdout within ${timeoutMs} ms`),
      timeoutMs,
    );
    child.once('error', (err) => fail(err.message));
    child.once('exit', (code, signal) => fail(`exited with ${signal ?? `code ${code}`}`));
    child.stdout?.on('data', (chunk: Buffer) => {
      keep(chunk);
      if (settled) return;
      stdoutLine += chunk.toString();
      const lines = stdoutLine.split('\n');
      stdoutLine = lines.pop() ?? '';
      for (const line of lines) {
        const match = LISTENING.exec(line);
        if (!match) continue;
        settled = true;
        clearTimeout(timer);
        const pid = child.pid as number;
        resolve({
          name,
          pid,
          port: Number(match[1]),
          process: child,
          output: () => tail,
          cpuMicros: () => readCpuMicros(pid),
          peakRssMiB: () => readPeakRssMiB(pid),
          stop,
        });
        return;
      }
    });
  });
}

/**
 * The node arguments that start a bench process the way a user runs it: Switchboard from the compiled build
 * (dist/main/cli.js, built by `npm run build`, which `npm ci` runs as its prepare step; built here when missing or
 * older than its sources), and the bench's own helpers (floor, mock provider) compiled the same way by esbuild into
 * bench/.build/, so neither side pays for TypeScript at run time and the ratios compare like with like. Switchboard
 * gets the node flags of package.json's `serve` script (serveNodeFlags); the floor and the mock run on node's defaults.
 */
export function nodeArgs(entry: 'switchboard' | 'floor' | 'mock-server', args: string[]): string[] {
  const flags = entry === 'switchboard' ? serveNodeFlags() : [];
  return [...flags, compiledEntry(entry), ...args];
}

const ROOT_DIR = new URL('..', import.meta.url).pathname;
const built = new Map<string, string>();

function compiledEntry(entry: 'switchboard' | 'floor' | 'mock-server'): string {
  const cached = built.get(entry);
  if (cached) return cached;
  let file: string;
  if (entry === 'switchboard') {
    const check = spawnSync(process.execPath, ['scripts/build.mjs', '--if-stale', '--runtime-only'], {
      cwd: ROOT_DIR,
      encoding: 'utf8',
    });
    if (check.status !== 0) throw new Error(`npm run build failed:\n${check.stdout}${check.stderr}`);
    file = `${ROOT_DIR}dist/main/cli.js`;
  } else {
    file = `${ROOT_DIR}bench/.build/${entry}.mjs`;
    // esbuild's bin may be its native executable (the install replaces the JS shim with it): run it as it is.
    const out = spawnSync(
      `${ROOT_DIR}node_modules/esbuild/bin/esbuild`,
      [
        `bench/${entry}.ts`,
        '--bundle',
        '--platform=node',
        '--format=esm',
        '--packages=external',
        `--outfile=${file}`,
        '--log-level=warning',
      ],
      { cwd: ROOT_DIR, encoding: 'utf8' },
    );
    if (out.status !== 0) throw new Error(`esbuild ${entry} failed:\n${out.stdout}${out.stderr}`);
  }
  built.set(entry, file);
  return file;
}
