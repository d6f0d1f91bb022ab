// axe-core in the page under test: the accessibility rules (WCAG 2.x A and AA, and axe's best practices) run in the
// real Chromium. `axeViolations` answers every violation (of the whole page, or of the parts `include` selects);
// `seriousViolations` keeps the serious and critical ones; `violationsText` says them, each with its rule, help and
// elements; `expectEveryLook` checks a page in light and dark at the two window sizes the UI is made for.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { screenshot } from './harness.ts';

const source = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export type AxeViolation = { id: string; impact: string | null; help: string; nodes: string[] };

/**
 * Runs axe on the page as it is now (or on the elements the CSS selectors of `include` match) and answers its
 * violations. The script is evaluated over the DevTools protocol, so the page's Content-Security-Policy
 * (script-src 'self') does not block it.
 */
export async function axeViolations(page: Page, include?: string[]): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(source);
  return page.evaluate(async (selectors) => {
    const axe = (window as unknown as { axe: { run: (ctx: unknown, opts: object) => Promise<unknown> } }).axe;
    const context = selectors ? { include: selectors.map((s) => [s]) } : document;
    const r = (await axe.run(context, { resultTypes: ['violations'] })) as {
      violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[];
    };
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => JSON.stringify(n.target)),
    }));
  }, include ?? null);
}

/** The serious and critical violations of the page as it is now. */
export async function seriousViolations(page: Page, include?: string[]): Promise<AxeViolation[]> {
  return (await axeViolations(page, include)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** The violations in words, one per line (for a failing expectation's message). */
export const violationsText = (vs: AxeViolation[]): string =>
  vs.map((v) => `${v.impact} ${v.id}: ${v.help} — ${v.nodes.slice(0, 5).join(', ')}`).join('\n');

/** The window sizes every page is checked at: a laptop's, and the smallest the app's window allows. */
export const LOOK_SIZES = [
  [1280, 800],
  [800, 600],
] as const;

/**
 * The page as it is now, in light and dark at each of LOOK_SIZES: no serious or critical axe-core violation, and (with
 * `sideways`) nothing runs off the side; a screenshot of each named `${name}-${scheme}-${w}x${h}`. Leaves the page in
 * light at its last size.
 */
export async function expectEveryLook(page: Page, name: string, opts: { sideways?: boolean } = {}): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const [w, h] of LOOK_SIZES) {
      await page.setViewportSize({ width: w, height: h });
      const found = await seriousViolations(page);
      expect(found, `${name}, ${scheme}, ${w}x${h}:\n${violationsText(found)}`).toEqual([]);
      if (opts.sideways) {
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow, `${name}, ${scheme}, ${w}x${h} overflows sideways by ${overflow}px`).toBeLessThanOrEqual(0);
      }
      await screenshot(page, `${name}-${scheme}-${w}x${h}`);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
}
