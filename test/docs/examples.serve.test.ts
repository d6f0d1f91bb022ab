// The docs' runnable examples run as their text says (issue 39), against the compiled `switchboard serve` with mock
// providers (real HTTP servers): `gpt-*` to a mock OpenAI provider, `claude-*` to a mock Anthropic one, no default
// provider, and the MCP servers agents.md's examples name (fs, github), disabled. Every ```sh runnable block's curls answer the statuses of its `# → <status>` lines; every ```js runnable
// block runs with the official SDK and exits 0. A doctored example (a model no rule routes) shows each check fails.
import { beforeAll, describe, expect, it } from 'vitest';
import { shutDownAfterAll } from '../support/lifecycle.ts';
import { type MockAnthropic, startMockAnthropic } from '../support/mock-anthropic.ts';
import { type MockProvider, startMockProvider } from '../support/mock-provider.ts';
import { configFor, type ServeProcess, startServe } from '../support/serve-process.ts';
import { testNode } from '../support/test-node.ts';
import { type Block, fencedBlocks } from './checks.ts';
import { markdownPages, repoFiles } from './pages.ts';
import { type ExampleWorld, expectedStatuses, jsExampleProblems, shExampleProblems } from './run-examples.ts';

const BLOCKS = markdownPages(repoFiles()).flatMap(fencedBlocks);
const runnable = (lang: string): Block[] => BLOCKS.filter((b) => b.lang === lang && b.tags.includes('runnable'));
const SH = runnable('sh');
const JS = runnable('js');

let sb: ServeProcess;
let openai: MockProvider;
let anthropic: MockAnthropic;
let world: ExampleWorld;

beforeAll(async () => {
  openai = await startMockProvider({ name: 'docs-openai' });
  anthropic = await startMockAnthropic({ name: 'docs-anthropic' });
  const config = configFor(
    { openai: openai.baseUrl, anthropic: anthropic.baseUrl },
    {
      default_provider: '',
      rules: [
        { pattern: 'gpt-*', provider: 'openai' },
        { pattern: 'claude-*', provider: 'anthropic' },
      ],
      // The servers docs/agents.md's examples name, disabled: an agent may list their tools, nothing is started.
      mcp_servers: {
        fs: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'], enabled: false },
        github: { url: 'https://api.githubcopilot.com/mcp/', enabled: false },
      },
    },
  ) as { providers: { name: string; type?: string }[] };
  config.providers.find((p) => p.name === 'anthropic')!.type = 'anthropic';
  sb = await startServe({ config });
  const made = await sb.admin('/agent-keys', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ label: 'docs' }),
  });
  const { key } = (await made.json()) as { key: string };
  world = { url: sb.url, node: testNode(), env: { ADMIN_TOKEN: sb.adminToken, KEY: key } };
});
shutDownAfterAll(() => [sb, openai, anthropic]);

describe('the runnable examples of the docs', () => {
  it('there are some of each kind: curl through several front doors and APIs, and the official SDKs', () => {
    expect(SH.length).toBeGreaterThanOrEqual(6);
    expect(JS.length).toBeGreaterThanOrEqual(2);
    expect(JS.some((b) => b.body.includes("from 'openai'"))).toBe(true);
    expect(JS.some((b) => b.body.includes("from '@anthropic-ai/sdk'"))).toBe(true);
  });

  for (const block of SH)
    it(`${block.page}:${block.line} (sh) answers ${expectedStatuses(block.body).join(', ')}`, async () => {
      expect(await shExampleProblems(block, world)).toEqual([]);
    });

  for (const block of JS)
    it(`${block.page}:${block.line} (js) runs with the official SDK`, async () => {
      expect(await jsExampleProblems(block, world)).toEqual([]);
    });
});

describe('a runnable example that no longer works fails', () => {
  const quickStart = (lang: string): Block => runnable(lang).find((b) => b.page === 'README.md')!;

  it('a curl whose status is no longer the one its text says', async () => {
    const block = quickStart('sh');
    const doctored = { ...block, body: block.body.replace('"gpt-4o-mini"', '"no-such-model"') };
    expect(doctored.body).not.toBe(block.body);
    expect(await shExampleProblems(doctored, world)).toEqual([
      expect.stringContaining('the text says 200, the example answered 404'),
    ]);
  });

  it('a curl example that says no status', async () => {
    const block = quickStart('sh');
    expect(await shExampleProblems({ ...block, body: block.body.replace(/^# → .*$/m, '') }, world)).toEqual([
      expect.stringContaining('says no status'),
    ]);
  });

  it('an SDK snippet that throws', async () => {
    const block = quickStart('js');
    const doctored = { ...block, body: block.body.replace("'gpt-4o-mini'", "'no-such-model'") };
    expect(doctored.body).not.toBe(block.body);
    expect(await jsExampleProblems(doctored, world)).toEqual([expect.stringMatching(/exited 1: .*404/s)]);
  });
});
