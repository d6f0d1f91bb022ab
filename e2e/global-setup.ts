// vitest globalSetup of the e2e project only: builds the UI once per run into a temp folder (so parallel runs never
// race on dist/) and hands its path to the e2e tests, which pass it to `serve` as SWITCHBOARD_UI_DIR. A unit-only
// run (`npx vitest run --project unit`) never gets here; without Chromium there is nothing to build for.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { findChromium } from './chromium.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

declare module 'vitest' {
  export interface ProvidedContext {
    uiDir: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (findChromium() === null) {
    project.provide('uiDir', '');
    return async () => undefined;
  }
  const outDir = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-ui-'));
  const { build } = await import('vite');
  await build({
    configFile: path.join(ROOT, 'vite.config.ts'),
    logLevel: 'error',
    build: { outDir, emptyOutDir: true },
  });
  project.provide('uiDir', outDir);
  return async () => {
    await fs.rm(outDir, { recursive: true, force: true });
  };
}
