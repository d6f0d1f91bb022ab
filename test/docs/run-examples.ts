// Runs the docs' runnable examples (```sh runnable, ```js runnable) against a started Switchboard: a shell example's
// `curl`s print their statuses, which must be the block's `# → <status>` lines in order; a JS example runs as an ES
// module with the repository's node_modules (the official SDKs) and must exit 0. Each returns its problems, one line
// each (empty: it ran as the text says), so a test can also run a doctored example and see it fail.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Block } from './checks.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** How long one example may run. */
const EXAMPLE_TIMEOUT_MS = 20_000;

/** Where the examples run: the server's address (in place of localhost:11434), and the values they may name. */
export type ExampleWorld = {
  url: string;
  /** The Node binary the JS examples run on (the project's). */
  node: string;
  /** $ADMIN_TOKEN and $KEY (an agent API key) for the shell examples. */
  env: Record<string, string>;
};

/** The address the docs write, in every spelling, replaced by the started server's. */
const withServer = (text: string, url: string): string =>
  text.replace(/http:\/\/(?:localhost|127\.0\.0\.1):11434/g, url);

/** The statuses a shell example says its requests answer, in order: its `# → 200` lines. */
export const expectedStatuses = (body: string): number[] =>
  [...body.matchAll(/^\s*#\s*→\s*(\d{3})\b/gm)].map((m) => Number(m[1]));

type Run = { code: number | null; stdout: string; stderr: string };
function run(file: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv }): Promise<Run> {
  return new Promise((resolve) => {
    execFile(file, args, { ...opts, timeout: EXAMPLE_TIMEOUT_MS, maxBuffer: 4 << 20 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : null) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

const where = (b: Block): string => `${b.page}:${b.line}`;

export async function shExampleProblems(block: Block, world: ExampleWorld): Promise<string[]> {
  const expected = expectedStatuses(block.body);
  if (expected.length === 0)
    return [`${where(block)}: a runnable sh example says no status; add a "# → <status>" line after each curl`];
  // Each curl prints only its status (the body is not the example's claim; the status is).
  const script = `curl() { command curl -sS -o /dev/null -w '%{http_code}\\n' "$@"; }\n${withServer(block.body, world.url)}\n`;
  const r = await run('sh', ['-c', script], { env: { ...process.env, ...world.env } });
  const got = r.stdout
    .split('\n')
    .filter((l) => /^\d{3}$/.test(l))
    .map(Number);
  if (r.code !== 0 || JSON.stringify(got) !== JSON.stringify(expected))
    return [
      `${where(block)}: the text says ${expected.join(', ')}, the example answered ${got.join(', ') || 'nothing'} (exit ${r.code})${r.stderr ? `: ${r.stderr.trim().slice(0, 300)}` : ''}`,
    ];
  return [];
}

export async function jsExampleProblems(block: Block, world: ExampleWorld): Promise<string[]> {
  // A folder of its own whose node_modules is the repository's, so `import OpenAI from 'openai'` resolves.
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-doc-example-'));
  try {
    await fs.symlink(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    await fs.writeFile(path.join(dir, 'example.mjs'), withServer(block.body, world.url));
    const r = await run(world.node, ['example.mjs'], { cwd: dir, env: { ...process.env, ...world.env } });
    if (r.code !== 0)
      return [`${where(block)}: the example exited ${r.code}: ${(r.stderr || r.stdout).trim().slice(0, 400)}`];
    return [];
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
