// The docs stay true (issue 39): every field of config.json's schema is in docs/config.md with its default (and no
// other), every error code of the catalogue in docs/errors.md, every route the server serves on a page of docs/,
// every relative link and #anchor of the Markdown resolves, and every ```json config example is a valid config.json.
// Each check is also run on a doctored copy (one field, code, route, link or example removed or broken) to show it
// fails, naming what is missing. The runnable shell and JS examples run in examples.serve.test.ts.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigSchema } from '../../shared/config.ts';
import { ERROR_CODES } from '../../shared/errors.ts';
import { serverRoutes } from '../support/server-routes.ts';
import {
  configExampleProblems,
  configProblems,
  configRows,
  errorCodeProblems,
  fencedBlocks,
  linkProblems,
  linksOf,
  type Page,
  sectionOf,
  routeProblems,
  staleRouteProblems,
} from './checks.ts';
import { configFields } from './config-fields.ts';
import { markdownPages, read, repoFiles } from './pages.ts';

const FILES = repoFiles();
const MARKDOWN = markdownPages(FILES);
const DOCS: Page[] = MARKDOWN.filter((p) => p.path.startsWith('docs/') || p.path === 'README.md');
const page = (p: string): Page => DOCS.find((d) => d.path === p)!;

describe('docs/config.md documents every field of config.json', () => {
  const fields = configFields();
  const text = read('docs/config.md');

  it('walks the whole schema: nested objects, arrays, records and the store union', () => {
    const paths = fields.map((f) => f.path);
    for (const p of ['listen_port', 'providers[].timeouts.idle_ms', 'mcp_servers.<name>.command', 'store.url'])
      expect(paths).toContain(p);
    expect(paths).toContain('quirks.entries[].match.host');
    expect(fields.find((f) => f.path === 'orchestrator.http_get.max_bytes')?.default).toBe(1_000_000);
  });

  it('every field with its default, and no field the schema lacks', () => {
    expect(configProblems(text, fields)).toEqual([]);
  });

  it('fails, naming the field, when one field is undocumented', () => {
    const doctored = text.replace(/^\| `orchestrator\.lease_ms` \|.*\n/m, '');
    expect(doctored).not.toBe(text);
    expect(configProblems(doctored, fields)).toEqual([
      expect.stringContaining("the schema's field `orchestrator.lease_ms` is not documented"),
    ]);
  });

  it('fails when a field the docs name is not in the schema (a field added to the schema, or removed from it)', () => {
    const schema = z.strictObject({ ...ConfigSchema.shape, brand_new: z.number().default(7) });
    expect(configProblems(text, configFields(schema))).toEqual([
      expect.stringContaining("the schema's field `brand_new` is not documented; add the row | `brand_new` | `7` |"),
    ]);
    const { listen_host: _gone, ...rest } = ConfigSchema.shape;
    expect(configProblems(text, configFields(z.strictObject(rest)))).toEqual([
      expect.stringContaining("documents `listen_host`, which shared/config.ts's schema does not have"),
    ]);
  });

  it('fails when a default differs', () => {
    const doctored = text.replaceAll('| `listen_port` | `11434` |', '| `listen_port` | `8080` |');
    expect(configProblems(doctored, fields)).toEqual([
      "docs/config.md: `listen_port`'s default is `11434` in the schema, but the table says `8080`",
    ]);
    expect(configRows(text).get('listen_port')).toBe('`11434`');
  });
});

describe('docs/errors.md documents every error code', () => {
  const codes = Object.keys(ERROR_CODES);
  const text = read('docs/errors.md');

  it('every code of the catalogue (shared/errors.ts, main/errors.ts)', () => {
    expect(errorCodeProblems(text, codes)).toEqual([]);
  });

  it('fails, naming the code, when one is removed', () => {
    const doctored = text.replace(/^\| `thread_busy` \|.*\n/m, '');
    expect(errorCodeProblems(doctored, codes)).toEqual([expect.stringContaining('`thread_busy`')]);
  });
});

describe('the docs mention every route the server serves', () => {
  const routes = serverRoutes();

  it('lists every route of the server', () => {
    expect(routes.length).toBeGreaterThan(100);
    expect(routeProblems(DOCS, routes)).toEqual([]);
  });

  it('fails, naming the route, when a page no longer mentions it', () => {
    const doctored = DOCS.map((p) => ({
      ...p,
      text: p.text.replaceAll('/admin/v1/port-check', '/admin/v1/elsewhere'),
    }));
    expect(routeProblems(doctored, routes)).toEqual([
      expect.stringContaining('the server serves GET /admin/v1/port-check, which no page of docs/ mentions'),
    ]);
  });

  it('fails when the server serves a route the docs never heard of', () => {
    expect(routeProblems(DOCS, [...routes, { method: 'POST', path: '/admin/v1/brand-new/:id' }])).toEqual([
      expect.stringContaining('POST /admin/v1/brand-new/:id'),
    ]);
  });

  it('names only routes the server serves (a route renamed or removed leaves no mention behind)', () => {
    expect(staleRouteProblems(DOCS, routes)).toEqual([]);
  });

  it('fails, naming the page and line, when a page mentions a route the server does not serve', () => {
    const admin = page('docs/admin.md');
    const doctored = [{ ...admin, text: `${admin.text}\n| \`POST /admin/v1/reboot\` | restarts |\n` }];
    expect(staleRouteProblems(doctored, routes)).toEqual([
      expect.stringMatching(/^docs\/admin\.md:\d+: mentions POST \/admin\/v1\/reboot, which the server does not serve/),
    ]);
    expect(
      staleRouteProblems(
        DOCS,
        routes.filter((r) => r.path !== '/admin/v1/port-check'),
      ),
    ).toContainEqual(expect.stringContaining('mentions GET /admin/v1/port-check, which the server does not serve'));
  });

  it("reads an agent table's relative paths under its page's base (<!-- routes-base: /api/v1 -->)", () => {
    const without = DOCS.map((p) =>
      p.path === 'docs/agents.md' ? { ...p, text: p.text.replace(/<!--\s*routes-base:[^>]*-->/, '') } : p,
    );
    expect(routeProblems(without, routes).length).toBeGreaterThan(0);
  });
});

describe('relative links resolve', () => {
  it('every relative link of the Markdown names a file that is there, and every #anchor a heading of it', () => {
    expect(MARKDOWN.length).toBeGreaterThan(20);
    expect(linkProblems(MARKDOWN, FILES)).toEqual([]);
  });

  it('fails on a link to a page that is not there, and on an anchor its page lacks', () => {
    const index = page('docs/README.md');
    const doctored = [
      { ...index, text: `${index.text}\n[moved](routing-old.md) and [gone](errors.md#no-such-heading)\n` },
    ];
    const problems = linkProblems(doctored, FILES);
    expect(problems).toEqual([
      expect.stringContaining('names docs/routing-old.md, which is not in the repository'),
      expect.stringContaining('names the anchor #no-such-heading, which docs/errors.md has no heading for'),
    ]);
  });

  it('compares names exactly, as a case-sensitive file system does', () => {
    const doctored = [{ path: 'docs/x.md', text: '[the threats](security.md)' }];
    expect(linkProblems(doctored, FILES)).toEqual([expect.stringContaining('names docs/security.md')]);
  });

  it('fails when the page a link names is deleted', () => {
    const files = new Map(FILES);
    files.delete('docs/troubleshooting.md');
    expect(linkProblems([page('docs/README.md')], files)).toContainEqual(
      expect.stringContaining('names docs/troubleshooting.md, which is not in the repository'),
    );
  });
});

describe("a newcomer's questions are one click from docs/README.md", () => {
  const index = page('docs/README.md');
  /** The section a link of the index leads to, found by words of the link's text. */
  const oneClick = (words: string): string | null => {
    const link = linksOf(index.text).find((l) => l.text.includes(words));
    if (!link) return null;
    const [file, anchor] = link.target.split('#') as [string, string | undefined];
    const target = DOCS.find((p) => p.path === `docs/${file}`);
    return target ? sectionOf(target.text, anchor) : null;
  };

  for (const [question, answer] of [
    ['connect Codex', /Codex CLI \| `\$CODEX_HOME\/config\.toml`/],
    ['x-switchboard-dropped', /header names\s+every field the provider did not get/],
    ['404 no_route', /no `routing\.rules` pattern matched it/],
  ] as const)
    it(`"${question}": a link whose section answers it`, () => {
      expect(oneClick(question)).toMatch(answer);
    });

  it('fails when the link goes to a section without the answer', () => {
    const section = sectionOf(page('docs/formats.md').text, 'staying-compatible-and-the-translation-decisions');
    expect(section).not.toBeNull();
    expect(section).not.toMatch(/header names\s+every field the provider did not get/);
    expect(sectionOf(page('docs/formats.md').text, 'no-such-section')).toBeNull();
  });
});

describe('```json config examples are valid config.json files', () => {
  const examples = MARKDOWN.flatMap(fencedBlocks).filter((b) => b.lang === 'json' && b.tags.includes('config'));
  const problemsOf = (body: string): string[] => configExampleProblems(body, ConfigSchema);

  it('there are some, and each validates with the schema', () => {
    expect(examples.length).toBeGreaterThanOrEqual(5);
    for (const b of examples) expect(problemsOf(b.body), `${b.page}:${b.line}`).toEqual([]);
  });

  it('fails on an example the schema refuses (a misspelt field, a rule naming no provider)', () => {
    const readme = examples.find((b) => b.page === 'README.md')!;
    expect(problemsOf(readme.body.replace('"default_provider"', '"default_provder"'))).not.toEqual([]);
    expect(problemsOf(readme.body.replace('["local", "openai"]', '["local", "nowhere"]'))).toEqual([
      expect.stringContaining('names no provider'),
    ]);
    const budgets = examples.find((b) => b.body.trimStart().startsWith('"budgets"'))!;
    expect(problemsOf(budgets.body)).toEqual([]);
    expect(problemsOf(budgets.body.replace('"period": "month"', '"period": "week"'))).toEqual([
      expect.stringMatching(/^budgets\.0\.period: /),
    ]);
  });
});
