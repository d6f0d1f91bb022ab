// `npm run bench`: runs every bench module in bench/ that exports main(), in sequence, and prints its table
// (`npm run bench -- usage agents` runs only the benches named).
// A bench's main() takes no required argument and returns an object; its `table` (markdown) is printed, and the
// whole object is saved as bench/results/<name>.json. `pass: false` in a result makes the run exit non-zero.
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { targetsTable, type TargetCheck } from './targets.ts';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
/** Entry points and helpers that are not benches (floor and mock-server start servers on import). */
const NOT_BENCHES = new Set(['run.ts', 'floor.ts', 'mock-server.ts', 'targets.ts', 'processes.ts', 'on-off.ts']);

export async function benchFiles(dir = BENCH_DIR): Promise<string[]> {
  const names = await readdir(dir);
  return names
    .filter((n) => n.endsWith('.ts') && !n.endsWith('.d.ts') && !n.includes('test') && !NOT_BENCHES.has(n))
    .sort();
}

async function runAll(only: readonly string[]): Promise<boolean> {
  let ok = true;
  const targets: (TargetCheck & { bench: string })[] = [];
  const files = await benchFiles();
  const unknown = only.filter((n) => !files.includes(`${n}.ts`));
  if (unknown.length) throw new Error(`no bench named ${unknown.join(', ')}; there are ${files.join(', ')}`);
  for (const file of files) {
    if (only.length && !only.includes(path.basename(file, '.ts'))) continue;
    const mod = (await import(pathToFileURL(path.join(BENCH_DIR, file)).href)) as { main?: unknown };
    if (typeof mod.main !== 'function') continue;
    const name = path.basename(file, '.ts');
    process.stderr.write(`\n[bench] ${name}\n`);
    const started = Date.now();
    try {
      const result: unknown = await (mod.main as () => Promise<unknown>)();
      const record = (result ?? {}) as { table?: unknown; pass?: unknown; targets?: TargetCheck[] };
      for (const t of record.targets ?? []) targets.push({ bench: name, ...t });
      if (typeof record.table === 'string') console.log(record.table);
      else if (result !== undefined)
        console.log(`## ${name}\n\n\`\`\`json\n${JSON.stringify(result, null, 2)}\n\`\`\`\n`);
      if (record.pass === false) ok = false;
      const out = path.join(BENCH_DIR, 'results');
      await mkdir(out, { recursive: true });
      await writeFile(
        path.join(out, `${name}.json`),
        JSON.stringify({ finishedAt: new Date().toISOString(), result }, null, 2) + '\n',
      );
    } catch (err) {
      ok = false;
      console.log(`## ${name}\n\nFAILED: ${(err as Error).stack ?? String(err)}\n`);
    }
    process.stderr.write(`[bench] ${name} took ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  }
  if (targets.length) console.log(targetsTable(targets));
  return ok;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (!(await runAll(process.argv.slice(2)))) process.exitCode = 1;
}
