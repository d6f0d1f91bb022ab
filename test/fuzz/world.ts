// The fuzz suite's world: a real `switchboard serve` (child process, real sockets) whose config routes models to
// real mock providers of every type (a realtime one included), an agent API key, an agent, a workflow, a swarm and an
// MCP server the cases can name, and the server's vital signs (alive, /api/v1/health, resident memory, error-level log
// lines). The server's HOME and working folder are temporary folders of its own: Connect and MCP import read and write
// the tools' files there, never this machine's.
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { createKey, keysFile } from '../../main/orchestrator/keys.ts';
import { type MockAnthropic, startMockAnthropic } from '../support/mock-anthropic.ts';
import { type MockGemini, startMockGemini } from '../support/mock-gemini.ts';
import { type MockMedia, startMockMedia } from '../support/mock-media.ts';
import { type MockOllama, startMockOllama } from '../support/mock-ollama.ts';
import { type MockProvider, startMockProvider } from '../support/mock-provider.ts';
import { type MockRealtime, startMockRealtime } from '../support/mock-realtime.ts';
import { type ServeProcess, startServe } from '../support/serve-process.ts';
import { makeTempDir, type TempDir } from '../support/temp.ts';

/** The body limit the fuzz server runs with: small, so "just over the limit" bodies stay cheap to send. */
export const MAX_BODY_MB = 1;
export const MAX_BODY_BYTES = MAX_BODY_MB * 1024 * 1024;

/**
 * Model names that route to each provider type (`via-<type>-…`) and to the media provider (`media-…`: images, audio,
 * video tasks); any other model goes to the default, the OpenAI-type chat provider.
 */
export const MODELS = ['via-openai-m', 'via-anthropic-m', 'via-gemini-m', 'via-ollama-m', 'media-model'] as const;

export type World = {
  serve: ServeProcess;
  port: number;
  adminToken: string;
  agentKey: string;
  /** What the agent API's cases can name. */
  agentId: string;
  workflow: string;
  swarm: string;
  /** config.json as the fuzz started it: restored after a case that changed it (PUT /config, a restore). */
  config: Record<string, unknown>;
  /** Puts config.json back as the fuzz started it and resumes routing (after a case that changed either). */
  reset(): Promise<void>;
  /** Forgets what the mocks recorded (they keep every request; a long run would grow the test process). */
  forgetRecorded(): void;
  close(): Promise<void>;
};

function provider(name: string, type: string, base_url: string) {
  return { name, type, base_url, api_key: `sk-fuzz-${name}-0123456789abcdef`, enabled: true };
}

export function fuzzConfig(urls: Record<'openai' | 'anthropic' | 'gemini' | 'ollama' | 'media' | 'realtime', string>) {
  return {
    listen_port: 11434,
    log_requests: false,
    providers: [
      provider('p-openai', 'openai', urls.openai),
      provider('p-anthropic', 'anthropic', urls.anthropic),
      provider('p-gemini', 'gemini', urls.gemini),
      provider('p-ollama', 'ollama', urls.ollama),
      provider('p-media', 'openai', urls.media),
      provider('p-realtime', 'openai', urls.realtime),
    ],
    routing: {
      default_provider: 'p-openai',
      rules: [
        ...(['openai', 'anthropic', 'gemini', 'ollama'] as const).map((k) => ({
          pattern: `via-${k}-*`,
          provider: `p-${k}`,
        })),
        { pattern: 'media-*', provider: 'p-media' },
        { pattern: 'realtime-*', provider: 'p-realtime' },
      ],
    },
    app_rules: [],
    health_check: { interval_ms: 0, timeout_ms: 2000 },
    max_body_mb: MAX_BODY_MB,
    // One worker: agent runs the cases start stay few at a time on this 2-core machine.
    orchestrator: { workers: 1, run_window_ms: 0 },
    // A server whose command does not exist: a refresh fails at once (the MCP routes' cases name it).
    mcp_servers: { 'fuzz-mcp': { command: 'switchboard-fuzz-no-such-mcp-server', call_timeout_s: 5 } },
  };
}

async function json(url: string, init: RequestInit): Promise<any> {
  const res = await fetch(url, init);
  const text = await res.text();
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${text}`);
  return JSON.parse(text);
}

export async function startWorld(): Promise<World> {
  const started: { close(): Promise<unknown> }[] = [];
  let temp: TempDir | undefined;
  let serve: ServeProcess | undefined;
  try {
    const openai: MockProvider = await startMockProvider({ name: 'oai', record: false });
    started.push(openai);
    const anthropic: MockAnthropic = await startMockAnthropic({ name: 'ant' });
    started.push(anthropic);
    const gemini: MockGemini = await startMockGemini({ name: 'gem', record: false });
    started.push(gemini);
    const ollama: MockOllama = await startMockOllama({ name: 'oll' });
    started.push(ollama);
    const media: MockMedia = await startMockMedia('media');
    started.push(media);
    const realtime: MockRealtime = await startMockRealtime('realtime');
    started.push(realtime);
    temp = await makeTempDir('sb-fuzz-');
    const home = path.join(temp.dir, 'home');
    await mkdir(home);
    const config = fuzzConfig({
      openai: openai.baseUrl,
      anthropic: anthropic.baseUrl,
      gemini: gemini.baseUrl,
      ollama: ollama.baseUrl,
      media: media.baseUrl,
      realtime: realtime.baseUrl,
    });
    const { key: agentKey } = await createKey(keysFile(temp.dir), 'fuzz');
    const isolated = {
      HOME: home,
      USERPROFILE: home,
      XDG_CONFIG_HOME: path.join(home, '.config'),
      APPDATA: path.join(home, 'AppData'),
      CLAUDE_CONFIG_DIR: '',
      CODEX_HOME: '',
      CONTINUE_GLOBAL_DIR: '',
    };
    serve = await startServe({ dir: temp.dir, config, cwd: home, env: isolated });
    const api = `${serve.url}/api/v1`;
    const headers = { 'x-api-key': agentKey, 'content-type': 'application/json' };
    const AGENTS = [
      { name: 'fuzz-agent', model: 'via-openai-m', system_prompt: 'Be brief.' },
      { name: 'fuzz-member', model: 'via-anthropic-m' },
    ];
    const agent = await json(`${api}/agents`, { method: 'POST', headers, body: JSON.stringify(AGENTS[0]) });
    await json(`${api}/agents`, { method: 'POST', headers, body: JSON.stringify(AGENTS[1]) });
    const FLOW = { name: 'fuzz-flow', steps: [{ name: 'one', agent: 'fuzz-agent', prompt: 'Say {{input.topic}}' }] };
    const SWARM = { name: 'fuzz-swarm', coordinator: 'fuzz-agent', agents: ['fuzz-member'] };
    /** The workflow and the swarm as the world made them (again after a case deleted or replaced one). */
    const restoreCatalog = async () => {
      // The agents they name first (a case may have deleted one: it comes back under a new id, the same name).
      const names = new Set<string>();
      for (let offset = 0, total = 1; offset < total; offset += 100) {
        const page = await json(`${api}/agents?limit=100&offset=${offset}`, { headers });
        total = page.total as number;
        for (const a of page.data as { name: string }[]) names.add(a.name);
      }
      for (const a of AGENTS)
        if (!names.has(a.name)) await json(`${api}/agents`, { method: 'POST', headers, body: JSON.stringify(a) });
      for (const [kind, def] of [
        ['workflows', FLOW],
        ['swarms', SWARM],
      ] as const) {
        const { name, ...rest } = def;
        const got = await fetch(`${api}/${kind}/${name}`, { headers });
        await got.arrayBuffer();
        if (got.status === 404) await json(`${api}/${kind}`, { method: 'POST', headers, body: JSON.stringify(def) });
        else
          await (
            await fetch(`${api}/${kind}/${name}`, { method: 'PUT', headers, body: JSON.stringify(rest) })
          ).arrayBuffer();
      }
    };
    await restoreCatalog();
    const s = serve;
    const t = temp;
    return {
      serve: s,
      port: s.port,
      adminToken: s.adminToken,
      agentKey,
      agentId: agent.id as string,
      workflow: 'fuzz-flow',
      swarm: 'fuzz-swarm',
      config,
      async reset() {
        const put = await s.admin('/config', {
          method: 'PUT',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(config),
        });
        if (!put.ok) throw new Error(`could not restore config.json: ${put.status} ${await put.text()}`);
        const pause = await s.admin('/pause', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ paused: false }),
        });
        if (!pause.ok) throw new Error(`could not resume routing: ${pause.status} ${await pause.text()}`);
        await restoreCatalog();
      },
      forgetRecorded() {
        anthropic.requests.length = 0;
        ollama.requests.length = 0;
        media.requests.length = 0;
      },
      async close() {
        await s.stop();
        for (const m of started) await m.close();
        await t.cleanup();
      },
    };
  } catch (err) {
    await serve?.stop();
    for (const m of started) await m.close();
    await temp?.cleanup();
    throw err;
  }
}

/** The child's resident set size in bytes, from the kernel (Linux /proc; `ps` elsewhere). */
export async function residentBytes(pid: number): Promise<number> {
  try {
    const status = await readFile(path.join('/proc', String(pid), 'status'), 'utf8');
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    if (m) return Number(m[1]) * 1024;
  } catch {
    // not Linux
  }
  const { execFileSync } = await import('node:child_process');
  return (
    Number(
      execFileSync('ps', ['-o', 'rss=', '-p', String(pid)])
        .toString()
        .trim(),
    ) * 1024
  );
}

/** Error-level (pino level ≥ 50) lines of the server's log (JSON lines on stderr). */
export function errorLines(stderr: string): { msg: string; line: string }[] {
  const out: { msg: string; line: string }[] = [];
  for (const line of stderr.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const rec = JSON.parse(line) as { level?: unknown; msg?: unknown };
      if (typeof rec.level === 'number' && rec.level >= 50) out.push({ msg: String(rec.msg), line });
    } catch {
      // not a log record
    }
  }
  return out;
}
