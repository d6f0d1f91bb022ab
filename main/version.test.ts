import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { VERSION } from './version.ts';

it('reports the version package.json holds', () => {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  expect(VERSION).toBe(pkg.version);
  expect(VERSION).toMatch(/^\d+\.\d+\.\d+/);
});
