// Every module the build loads lazily has a feature test that runs it through the compiled `serve` (issue 31: the
// code-cached CLI bundle broke every import() while every test of the sources passed). The build writes the list
// (dist/main/dynamic-imports.json: each import() of a bundled module or external package, and each external package
// it requires); FEATURE_TESTS below names, for each, the as-shipped test that takes that path (a file of the tier in
// vitest.config.ts, run on Node 20, 22 and 24). A new lazy import without an entry, an entry whose test is gone, or an
// entry for a module the build no longer loads lazily fails here, saying which and what to do.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import micromatch from 'micromatch';
import { beforeAll, describe, expect, it } from 'vitest';
import { SHIPPED } from '../vitest.config.ts';
// @ts-expect-error a plain ES module script without types
import { build } from './build.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');

type LazyModule = { module: string; kind: string; from: string[] };

const COMPILED = 'test/compiled-serve.serve.test.ts';
const LAZY = 'test/shipped/lazy-paths.serve.test.ts';
const MCP_STDIO = `${LAZY} > an agent uses a tool of @modelcontextprotocol/server-everything over stdio`;
const STRUCTURED = `${LAZY} > checks a structured answer against a draft-07 schema (ajv) and a 2020-12 one (ajv/dist/2020.js)`;
const CONNECT_API = 'main/server/connect.serve.test.ts';
const AGENTS_TEAM = 'test/agents-team.serve.test.ts';
const TEAM_RUN = `${AGENTS_TEAM} > an agent created through the balancer is read, renamed and run through every instance`;
const TEAM_KEYS = `${AGENTS_TEAM} > an agent key made on one instance works on all; revoked through another, it ends on all`;

/** Each lazily loaded module → the as-shipped tests (`file > title`) that run it through the compiled build. */
export const FEATURE_TESTS: Record<string, string[]> = {
  'main/app.ts': [`${COMPILED} > answers a chat request through the router`],
  'main/server/http-app.ts': [
    `${COMPILED} > answers chat completions without loading the Hono app, fetch, http2, https or tls; loads it on demand`,
  ],
  'main/gateway/realtime.ts': [
    'main/gateway/realtime.serve.test.ts > fails over a refused handshake, maps the key and subprotocols, and relays text and binary both ways',
  ],
  ws: [
    'main/gateway/realtime.serve.test.ts > fails over a refused handshake, maps the key and subprotocols, and relays text and binary both ways',
  ],
  'main/gateway/cli.ts': [
    'main/server/gateway.serve.test.ts > missing, unknown, expired and revoked keys are 401; a valid key is served and never forwarded',
  ],
  'main/connect/cli.ts': ['main/connect/cli.test.ts > connects a tool, and --undo removes the file it created'],
  'main/connect/connect.ts': [
    `${CONNECT_API} > answers every tool in order, with base URLs on the port the server listens on`,
    // Loaded by main/app.ts too, after a port move, when Connect has pointed a tool here (issue 34).
    'main/server/connect-follow.serve.test.ts > a port change rewrites connected tools to the new port, with the same Undo; one pointed elsewhere is left',
  ],
  'jsonc-parser': [
    `${CONNECT_API} > Claude Code: the Anthropic SDK with the settings written is named "claude-code"; undo removes the file`,
  ],
  'smol-toml': [
    `${CONNECT_API} > Codex: the Responses API with the provider written to config.toml is named "codex"; undo restores the bytes`,
  ],
  yaml: ['main/connect/cli.test.ts > --all connects the installed tools that wait for it and says which it skipped'],
  'main/orchestrator/mcp/cli.ts': [
    'main/orchestrator/mcp/cli.test.ts > imports from Cursor, never overwrites on a second import, and lists what config.json has',
  ],
  'main/store/fail-open.ts': [
    'main/gateway/store.serve.test.ts > status: embedded by default; Redis from SWITCHBOARD_REDIS_URL, its URL shown',
  ],
  ioredis: ['main/gateway/store.serve.test.ts > releases the slot in Redis on every exit path'],
  'main/store/team-log.ts': [
    "test/team-gateway.serve.test.ts > the UI's usage and log endpoints of instance B show the requests served through instance A",
  ],
  // Store "redis": the team's usage rollups and budgets' spend in Redis (issue 36).
  'main/usage/team-redis.ts': [
    "test/team-gateway.serve.test.ts > the UI's usage and log endpoints of instance B show the requests served through instance A",
    'test/team-gateway.serve.test.ts > a budget naming a key is enforced across the instances: 402 from every one once the team has spent it',
  ],
  // Store "redis": the orchestrator's state and the agent keys of the team (issue 35).
  'main/orchestrator/store/redis.ts': [TEAM_RUN],
  'main/store/redis-connection.ts': [TEAM_RUN],
  'main/orchestrator/keys-shared.ts': [TEAM_KEYS],
  'main/orchestrator/keys-team.ts': [TEAM_KEYS],
  '@modelcontextprotocol/sdk/client/index.js': [MCP_STDIO],
  '@modelcontextprotocol/sdk/client/stdio.js': [MCP_STDIO],
  '@modelcontextprotocol/sdk/types.js': [MCP_STDIO],
  '@modelcontextprotocol/sdk/client/streamableHttp.js': [
    'main/orchestrator/mcp.serve.test.ts > speaks streamable HTTP (server-everything in its streamableHttp mode)',
  ],
  '@modelcontextprotocol/sdk/client/sse.js': [
    `${LAZY} > an agent uses a tool of an MCP server that speaks only the legacy SSE transport`,
  ],
  '@node-rs/crc32': [MCP_STDIO],
  jose: [`${LAZY} > a valid HS256 JWT is accepted and a wrong one refused with the JWT reason`],
  undici: [
    `${LAZY} > http_get fetches a page from a loopback host that orchestrator.http_get.allow_hosts allows`,
    'main/server/port-check.serve.test.ts > says a port held by Ollama is taken, who holds it, and the fix',
  ],
  ajv: [STRUCTURED],
  'ajv/dist/2020.js': [STRUCTURED],
  '@pydantic/genai-prices': [
    'main/server/usage.serve.test.ts > records what the OpenAI, Anthropic and Gemini clients used, with the price table’s cost',
  ],
  'pino-pretty': [`${LAZY} > logs in colour through pino-pretty when stderr is a terminal`],
  koffi: [`${LAZY} > loads glibc's malloc_trim (koffi) once a burst's connections are gone`],
};

/** The title as a string literal in its file: quoted as Prettier quotes it ('…', "…" when it holds a ', `…`). */
function declares(source: string, title: string): boolean {
  return [`'${title.replace(/'/g, "\\'")}'`, `"${title}"`, `\`${title}\``].some((lit) => source.includes(lit));
}

/** What is wrong with the map against the build's list: one line each, naming the module and the fix. */
export function coverageProblems(
  lazy: LazyModule[],
  map: Record<string, string[]>,
  read: (file: string) => string | null,
): string[] {
  const problems: string[] = [];
  const listed = new Set(lazy.map((m) => m.module));
  for (const m of lazy) {
    const tests = map[m.module] ?? [];
    const where = `${m.kind}${m.from.length > 0 ? ` in ${m.from.join(', ')}` : ''}`;
    if (tests.length === 0) {
      problems.push(
        `${m.module} (${where}) is loaded lazily by the build and no test runs it there: add a test that takes that ` +
          'path through the compiled serve (test/shipped/ or a *.serve.test.ts) and name it in FEATURE_TESTS ' +
          '(scripts/dynamic-imports.test.ts)',
      );
      continue;
    }
    for (const t of tests) {
      const [file, title] = t.split(' > ', 2) as [string, string];
      if (!micromatch.isMatch(file, SHIPPED)) {
        problems.push(`${m.module}: its feature test's file ${file} is not in the as-shipped tier (vitest.config.ts)`);
        continue;
      }
      const source = read(file);
      if (source === null) problems.push(`${m.module}: its feature test's file ${file} does not exist`);
      else if (!declares(source, title))
        problems.push(
          `${m.module} (${where}): its feature test "${title}" is not in ${file} any more: restore it, or name the ` +
            'test that now runs it through the compiled serve in FEATURE_TESTS (scripts/dynamic-imports.test.ts)',
        );
    }
  }
  for (const module of Object.keys(map))
    if (!listed.has(module))
      problems.push(`${module} is in FEATURE_TESTS but the build no longer loads it lazily: take it out`);
  return problems;
}

const readSource = (file: string): string | null => {
  try {
    return readFileSync(path.join(ROOT, file), 'utf8');
  } catch {
    return null;
  }
};

describe("the build's lazily loaded modules", () => {
  let lazy: LazyModule[] = [];
  beforeAll(async () => {
    await (build as (o: object) => Promise<string[]>)({ ifStale: true, runtimeOnly: true });
    lazy = JSON.parse(readFileSync(path.join(ROOT, 'dist/main/dynamic-imports.json'), 'utf8')) as LazyModule[];
  }, 120_000);

  it('are listed by the build, the ones that broke in issue 31 among them', () => {
    const names = lazy.map((m) => m.module);
    for (const m of ['jose', 'undici', '@modelcontextprotocol/sdk/client/stdio.js', 'main/server/http-app.ts'])
      expect(names).toContain(m);
    expect(lazy.find((m) => m.module === 'jose')).toMatchObject({
      kind: 'external import()',
      from: ['main/gateway/jwt.ts'],
    });
  });

  it('each has a feature test that runs it through the compiled serve', () => {
    expect(coverageProblems(lazy, FEATURE_TESTS, readSource)).toEqual([]);
  });

  it('a deleted feature test fails this check, naming the import', () => {
    const [file, title] = FEATURE_TESTS.jose![0]!.split(' > ', 2) as [string, string];
    const withoutIt = (f: string) => {
      const source = readSource(f);
      return f === file && source ? source.replace(`'${title}'`, "'something else'") : source;
    };
    const problems = coverageProblems(lazy, FEATURE_TESTS, withoutIt);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      /^jose \(external import\(\) in main\/gateway\/jwt\.ts\): its feature test ".*" is not in/,
    );
    const unmapped = coverageProblems(lazy, { ...FEATURE_TESTS, jose: [] }, readSource);
    expect(unmapped).toEqual([expect.stringMatching(/^jose \(.*\) is loaded lazily by the build and no test runs it/)]);
  });
});
