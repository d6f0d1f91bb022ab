// vitest globalSetup: builds the UI once per run into a temp folder (so parallel runs never race on dist/) and
// hands its path to the e2e tests, which pass it to `serve` as SWITCHBOARD_UI_DIR.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

declare module 'vitest' {
  export interface ProvidedContext {
    uiDir: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const outDir = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-ui-'));
  const { build } = await import('vite');
  await build({ configFile: path.join(ROOT, 'vite.config.ts'), logLevel: 'error', build: { outDir, emptyOutDir: true } });
  project.provide('uiDir', outDir);
  return async () => {
    await fs.rm(outDir, { recursive: true, force: true });
  };
}
