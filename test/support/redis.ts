// Test support: a real redis-server on a free loopback port, started and stopped by the test that needs it (no
// persistence, its own temp folder). `.ci/run` installs redis-server from Debian's packages when it is missing.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { freePort } from './ports.ts';
import { makeTempDir, type TempDir } from './temp.ts';

export type TestRedis = {
  url: string;
  port: number;
  /** Kill the server (SIGKILL: as a crash would); restart() brings it back on the same port, empty. */
  kill(): Promise<void>;
  restart(): Promise<void>;
  stop(): Promise<void>;
};

/** Where redis-server is, or null (the caller says how to install it). */
export function redisServerBinary(): string | null {
  const found = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
  const bin = found.stdout.trim();
  return found.status === 0 && bin ? bin : null;
}

async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.write('PING\r\n');
      });
      socket.once('data', (d) => {
        socket.destroy();
        // A server with requirepass answers PING with -NOAUTH: it is up all the same.
        resolve(d.toString().startsWith('+PONG') || d.toString().startsWith('-NOAUTH'));
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`redis-server did not answer on 127.0.0.1:${port}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * Start a redis-server on 127.0.0.1 at a free port. Throws when redis-server is not installed. `args` replace the
 * persistence settings (e.g. `['--appendonly', 'yes', '--appendfsync', 'always']`; the default is none at all); with
 * `password`: requirepass, and `url` carries it.
 */
export async function startRedis(opts: { args?: string[]; password?: string } = {}): Promise<TestRedis> {
  const bin = redisServerBinary();
  if (!bin) throw new Error('redis-server is not installed (apt-get install redis-server; .ci/run does it)');
  const port = await freePort();
  const temp: TempDir = await makeTempDir('switchboard-redis');
  let child: ChildProcess | null = null;
  const launch = async () => {
    child = spawn(
      bin,
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        temp.dir,
        ...(opts.args ?? ['--save', '', '--appendonly', 'no']),
        ...(opts.password ? ['--requirepass', opts.password] : []),
      ],
      { stdio: 'ignore' },
    );
    await waitForPort(port, 10_000);
  };
  const kill = async () => {
    const c = child;
    child = null;
    if (!c || c.exitCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGKILL');
    await exited;
  };
  await launch();
  return {
    url: opts.password ? `redis://:${opts.password}@127.0.0.1:${port}` : `redis://127.0.0.1:${port}`,
    port,
    kill,
    restart: launch,
    stop: async () => {
      await kill();
      await temp.cleanup();
    },
  };
}

/**
 * The Redis budget of tests about sharing (exact limits across instances, slots held in Redis, keys read from it):
 * the default `store.timeout_ms` (50 ms) runs out now and then on a loaded machine, and a call past it is answered by
 * the instance alone (fail-open, as designed), which is not what those tests check. The budget itself is tested in
 * test/team-resilience.serve.test.ts and main/store/fail-open.test.ts with the default.
 */
export const SHARING_BUDGET = { timeout_ms: 2_000 } as const;
