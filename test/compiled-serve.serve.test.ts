// `npm run serve` as a user runs it on a fresh clone (issue 17): bin/switchboard.mjs runs the compiled build
// (dist/, which `npm ci` makes through the prepare step; rebuilt first when the sources are newer), answers through
// the router and serves the UI at the /ui link it prints.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockProvider, type MockProvider } from './support/mock-provider.ts';
import { configFor, startServe, type ServeProcess } from './support/serve-process.ts';

describe('npm run serve (compiled)', () => {
  let mock: MockProvider;
  let sb: ServeProcess;
  beforeAll(async () => {
    mock = await startMockProvider({ behavior: { tokens: ['Hello', ' there'] } });
    sb = await startServe({ entry: 'bin', config: configFor({ mock: mock.baseUrl }, { log_requests: false }) });
  }, 120_000);
  afterAll(async () => {
    await sb?.stop();
    await mock?.close();
  });

  it('runs the compiled build and says so', () => {
    expect(sb.stdout()).toContain('runtime: compiled (dist/)');
  });

  it('answers a chat request through the router', async () => {
    const res = await fetch(`${sb.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { choices: { message: { content: string } }[] };
    expect(body.choices[0]!.message.content).toBe('Hello there');
  });

  it('serves the UI at the link it prints, with its scripts', async () => {
    const link = /UI: (http:\/\/\S+)/.exec(sb.stdout())?.[1];
    expect(link).toBeDefined();
    const page = await fetch(link!);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    const script = /src="\.?\/?(assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const js = await fetch(`${sb.url}/ui/${script}`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toContain('javascript');
  });
});
