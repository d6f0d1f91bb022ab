// e2e support: the system Chromium via playwright-core, a `serve` with the freshly built UI, screenshots.
import fs from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { describe } from 'vitest';
import { type MockBehavior, type MockProvider, startMockProvider } from '../test/support/mock-provider.ts';
import { configFor, type ServeOptions, type ServeProcess, startServe } from '../test/support/serve-process.ts';
import { findChromium } from './chromium.ts';

export const ARTIFACTS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'artifacts');
/** The browser the tests drive, or null where none is installed (the tests are then reported as skipped). */
export const CHROMIUM = findChromium();

/**
 * A suite that needs a browser: skipped (counted as skipped, never as passed) on a machine without Chromium;
 * `npm test` then says so once, with how to get one.
 */
export const describeWithChromium = describe.skipIf(CHROMIUM === null);

export async function launchBrowser(): Promise<Browser> {
  if (!CHROMIUM) throw new Error('no Chromium found: install it (apt-get install chromium) or set CHROMIUM_PATH');
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** `switchboard serve` (the compiled build, with the UI it ships in dist/renderer). */
export function serveWithUi(opts: ServeOptions): Promise<ServeProcess> {
  return startServe(opts);
}

/**
 * The agent pages' `serve`: the UI, routing to a mock provider named `mock` (with `behavior`), its event streams
 * on a 500 ms heartbeat.
 */
export async function serveAgentsUi(behavior: MockBehavior): Promise<{ mock: MockProvider; sb: ServeProcess }> {
  const mock = await startMockProvider({ name: 'mock', behavior });
  try {
    const config = configFor({ mock: mock.baseUrl }, { orchestrator: { sse_heartbeat_ms: 500 } });
    return { mock, sb: await serveWithUi({ config }) };
  } catch (err) {
    await mock.close();
    throw err;
  }
}

/** Makes an agent (model mock-model) in the Agents page, as a person would, and waits for its row. */
export async function createAgentInUi(page: Page, name: string): Promise<void> {
  await page.getByTestId('page-agents').waitFor();
  await page.getByTestId('agent-name').fill(name);
  await page.getByTestId('agent-model').fill('mock-model');
  await page.getByTestId('agent-create').click();
  await page.getByTestId('agent-row').filter({ hasText: name }).waitFor();
}

/**
 * The UI link as a person gets it from `serve`'s banner (its stdout): on a terminal the link carries the token; piped
 * (as here, or under systemd) the banner names the token file and says to open `/ui/?token=<that token>` (issue 36).
 */
export function uiLink(sb: ServeProcess): string {
  const out = sb.stdout();
  const link = /UI: (\S+)/.exec(out)?.[1];
  if (!link) throw new Error(`serve printed no UI link:\n${out}`);
  if (link.includes('?token=')) return link;
  const file = /sign in with the token in (\S+?);/.exec(out)?.[1];
  if (!file) throw new Error(`serve's UI line names neither a token link nor a token file:\n${out}`);
  return `${link}?token=${readFileSync(file, 'utf8').trim()}`;
}

/** Opens /ui with the token link `serve` printed (read from its stdout, as a person would). */
export async function openUi(browser: Browser, sb: ServeProcess, page = 'providers'): Promise<Page> {
  const link = uiLink(sb);
  const p = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  p.on('pageerror', (err) => process.stderr.write(`page error: ${err.message}\n`));
  await p.goto(`${link}#/${page}`);
  return p;
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await fs.mkdir(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}
