// Issue 34's layout bugs, in a real Chromium against `switchboard serve`: the Providers page at 800×600 shows every
// action whole and at 1280 with nine providers never breaks an address or a key in the middle of a word (bug 2); an
// empty chart's y axis reads 0 and 1 (bug 9); in dark mode the charts' gridlines are not bright white and the System
// prompt is an input like the others (bug 12); the sidebar with Pause routing stays in view on long pages (bug 13).
import type { Browser, Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { shutDownAfterAll } from '../test/support/lifecycle.ts';
import { type MockProvider, startMockProvider } from '../test/support/mock-provider.ts';
import { configFor, type ServeProcess } from '../test/support/serve-process.ts';
import { describeWithChromium, launchBrowser, openUi, screenshot, serveWithUi } from './harness.ts';

let browser: Browser;
let alpha: MockProvider;
let sb: ServeProcess;

/** Nine providers with long addresses and keys, as a user with several vendors has. */
const NINE = [
  ['openrouter-main', 'https://openrouter.ai/api/v1', 'sk-or-v1-0123456789abcdef0123456789abcdef'],
  ['azure-eastus', 'https://my-resource-name.openai.azure.com/openai/deployments/gpt-4o/v1', 'azurekey0123456789abcd'],
  ['deepseek', 'https://api.deepseek.com/v1', 'sk-deepseek0123456789abcdef'],
  ['groq', 'https://api.groq.com/openai/v1', 'gsk_0123456789abcdefghijklmnop'],
  ['mistral', 'https://api.mistral.ai/v1', 'mistral0123456789abcdefghij'],
  ['xai', 'https://api.x.ai/v1', 'xai-0123456789abcdefghijklmnop'],
  ['together', 'https://api.together.xyz/v1', 'together0123456789abcdefghij'],
  ['lmstudio', 'http://127.0.0.1:1234/v1', ''],
] as const;

describeWithChromium('layout: providers at 800×600 and with nine, empty charts, dark mode, the sidebar', () => {
  beforeAll(async () => {
    [alpha, browser] = await Promise.all([startMockProvider({ name: 'alpha' }), launchBrowser()]);
    const config = configFor({ alpha: alpha.baseUrl }, { rules: [{ pattern: 'gpt-*', provider: 'alpha' }] }) as {
      providers: unknown[];
    };
    for (const [name, base_url, api_key] of NINE) config.providers.push({ name, base_url, api_key, enabled: false });
    sb = await serveWithUi({ config });
  });
  shutDownAfterAll(() => [browser, sb, alpha]);

  it('Providers at 800×600: every action button is whole and in view (bug 2)', async () => {
    const page = await openUi(browser, sb, 'providers');
    await page.setViewportSize({ width: 800, height: 600 });
    await page.getByTestId('provider-alpha').waitFor();
    await page.waitForTimeout(200);
    const buttons = page.locator('[data-testid^="provider-"] .actions button');
    expect(await buttons.count()).toBe(9 * 5);
    const clipped = await buttons.evaluateAll((els) =>
      els
        .map((b) => {
          const r = b.getBoundingClientRect();
          const cut = b.scrollWidth > b.clientWidth + 1 || r.left < 0 || r.right > window.innerWidth;
          return cut ? `${b.getAttribute('aria-label')} (${Math.round(r.left)}-${Math.round(r.right)})` : null;
        })
        .filter((x) => x !== null),
    );
    expect(clipped).toEqual([]);
    await screenshot(page, 'layout-providers-800x600');
    await page.close();
  });

  it('Providers at 1280 with nine: addresses break only after "/" or ".", keys never (bug 2)', async () => {
    const page = await openUi(browser, sb, 'providers');
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByTestId('provider-azure-eastus').waitFor();
    await page.waitForTimeout(200);
    const breaks = await page.evaluate(() => {
      /** The characters after which a line ends inside the element's text. */
      const lineEnds = (el: Element): string[] => {
        const out: string[] = [];
        const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
        let prev: { top: number; ch: string } | null = null;
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
          const text = n.textContent ?? '';
          for (let i = 0; i < text.length; i++) {
            const range = document.createRange();
            range.setStart(n, i);
            range.setEnd(n, i + 1);
            const top = range.getBoundingClientRect().top;
            if (prev && top > prev.top + 2) out.push(prev.ch);
            prev = { top, ch: text[i]! };
          }
        }
        return out;
      };
      const urls = Array.from(document.querySelectorAll('[data-testid^="provider-url-"]')).map((e) => lineEnds(e));
      const keys = Array.from(document.querySelectorAll('[data-testid^="provider-key-"]')).map(
        (e) => lineEnds(e).length,
      );
      return { urls, keys };
    });
    expect(breaks.urls).toHaveLength(9);
    for (const ends of breaks.urls) for (const ch of ends) expect('/.?&').toContain(ch);
    expect(breaks.keys.every((n) => n === 0)).toBe(true);
    await screenshot(page, 'layout-providers-nine-1280');
    await page.close();
  });

  it('an empty chart of requests labels its y axis 0 and 1 (bug 9)', async () => {
    const page = await openUi(browser, sb, 'overview');
    const chart = page.getByTestId('chart-requests');
    await chart.waitFor();
    await expectAttr(page, '[data-testid=chart-requests]', 'data-y-labels', '0, 1');
    await page.close();
  });

  it('dark mode: gridlines are not bright, the System prompt is dark like the other inputs (bug 12)', async () => {
    const page = await openUi(browser, sb, 'overview');
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.getByTestId('chart-requests').waitFor();
    await page.waitForTimeout(300);
    // Inside the plotting area (uPlot's .u-over box) nothing is near white: the grid is drawn in the dark scheme's
    // colour, and the lines in their own.
    const bright = await page.evaluate(() => {
      const fig = document.querySelector('[data-testid=chart-requests]')!;
      const canvas = fig.querySelector('canvas')!;
      const over = fig.querySelector<HTMLElement>('.u-over')!;
      const ratio = canvas.width / canvas.getBoundingClientRect().width;
      const c = canvas.getBoundingClientRect();
      const o = over.getBoundingClientRect();
      const x = Math.round((o.left - c.left) * ratio);
      const y = Math.round((o.top - c.top) * ratio);
      const w = Math.round(o.width * ratio);
      const h = Math.round(o.height * ratio);
      const px = canvas.getContext('2d')!.getImageData(x, y, w, h).data;
      let n = 0;
      for (let i = 0; i < px.length; i += 4) if (px[i]! > 200 && px[i + 1]! > 200 && px[i + 2]! > 200) n++;
      return n;
    });
    expect(bright).toBe(0);
    await page.evaluate(() => (window.location.hash = '#/agents'));
    await page.getByTestId('agent-system-prompt').waitFor();
    const bg = (sel: string) => page.locator(sel).evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(await bg('[data-testid=agent-system-prompt]')).toBe(await bg('[data-testid=agent-name]'));
    expect(await bg('[data-testid=agent-system-prompt]')).not.toBe('rgb(255, 255, 255)');
    await screenshot(page, 'layout-agents-dark');
    await page.close();
  });

  it('the sidebar and Pause routing stay in view when a long page is scrolled (bug 13)', async () => {
    const page = await openUi(browser, sb, 'connect');
    await page.setViewportSize({ width: 1280, height: 800 });
    for (const id of ['connect', 'overview', 'settings']) {
      await page.evaluate((h) => (window.location.hash = `#/${h}`), id);
      await page.getByTestId(`page-${id}`).waitFor();
      await page.waitForTimeout(300);
      const tall = await page.evaluate(() => document.documentElement.scrollHeight - window.innerHeight);
      expect(tall, `${id} is longer than the window`).toBeGreaterThan(200);
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      await page.waitForTimeout(100);
      const box = await page.getByTestId('pause-routing').boundingBox();
      expect(box, `${id}: Pause routing`).not.toBeNull();
      expect(box!.y).toBeGreaterThanOrEqual(0);
      expect(box!.y + box!.height).toBeLessThanOrEqual(800);
      const nav = await page.getByTestId('nav-overview').boundingBox();
      expect(nav!.y).toBeGreaterThanOrEqual(0);
    }
    await page.close();
  });
});

async function expectAttr(page: Page, selector: string, name: string, value: string): Promise<void> {
  await page
    .waitForFunction(
      ([s, n, v]) => document.querySelector(s!)?.getAttribute(n!) === v,
      [selector, name, value] as const,
      { timeout: 5000 },
    )
    .catch(async () => {
      throw new Error(`${selector} ${name}: ${await page.locator(selector).getAttribute(name)} (expected ${value})`);
    });
}
