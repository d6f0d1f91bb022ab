// Local inference services running on this machine (issue 34's presets): Ollama (answers /api/version), LM Studio,
// llama.cpp's server and vLLM (answer /v1/models), each looked for on its usual port on 127.0.0.1, Ollama also where
// OLLAMA_HOST puts it and on 11435 (where docs/troubleshooting.md, "Port 11434 and Ollama" suggests moving it). Never on the port
// Switchboard listens on, and an answer carrying Switchboard's own header is not a service: Switchboard never takes a
// service's port, it adds the service as a provider at the port the service is on. Each probe waits 600 ms at most.
import http from 'node:http';
import type { DetectedService, DetectResult } from '../../shared/presets.ts';
import { PROVIDER_PRESETS } from '../../shared/presets.ts';

const PROBE_MS = 600;
const MAX_MODELS = 50;

type Answer = { status: number; headers: http.IncomingHttpHeaders; json: unknown };

/** GET http://127.0.0.1:<port><path> as JSON, or null (nothing there, not JSON, too slow). */
function getJson(port: number, path: string): Promise<Answer | null> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path, timeout: PROBE_MS, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > 2_000_000) req.destroy();
        else chunks.push(c);
      });
      res.on('end', () => {
        try {
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            json: JSON.parse(Buffer.concat(chunks).toString()),
          });
        } catch {
          resolve(null);
        }
      });
      res.on('error', () => resolve(null));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(null));
  });
}

const isSwitchboard = (a: Answer) => a.headers['x-switchboard-version'] !== undefined;
const names = (list: unknown, field: string): string[] =>
  (Array.isArray(list) ? list : [])
    .map((m) => (m && typeof m === 'object' ? (m as Record<string, unknown>)[field] : undefined))
    .filter((v): v is string => typeof v === 'string')
    .slice(0, MAX_MODELS);

/** The port in OLLAMA_HOST ("127.0.0.1:11435", "0.0.0.0:11500", "http://localhost:11436"), if it names one. */
export function ollamaHostPort(value: string | undefined): number | null {
  const m = /:(\d{2,5})\/?$/.exec((value ?? '').trim());
  const port = m ? Number(m[1]) : NaN;
  return Number.isInteger(port) && port > 0 && port < 65536 ? port : null;
}

/** The provider of `providers` whose base URL is this loopback port, if any. */
function providerAt(providers: { name: string; base_url: string }[], port: number): string | null {
  for (const p of providers) {
    try {
      const u = new URL(p.base_url);
      const local = ['127.0.0.1', 'localhost', '[::1]', '::1'].includes(u.hostname);
      const at = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
      if (local && at === port) return p.name;
    } catch {
      // not a URL: not this one
    }
  }
  return null;
}

export async function detectLocalServices(opts: {
  listenPort: number;
  providers: { name: string; base_url: string }[];
  env: NodeJS.ProcessEnv;
}): Promise<DetectResult> {
  const probes: { preset: string; port: number; probe: 'ollama' | 'openai' }[] = [];
  for (const p of PROVIDER_PRESETS) {
    if (!p.local) continue;
    const ports =
      p.local.probe === 'ollama'
        ? [p.local.port, ollamaHostPort(opts.env.OLLAMA_HOST), 11435].filter((x): x is number => x !== null)
        : [p.local.port];
    for (const port of new Set(ports))
      if (port !== opts.listenPort) probes.push({ preset: p.id, port, probe: p.local.probe });
  }
  const found = await Promise.all(
    probes.map(async ({ preset, port, probe }): Promise<DetectedService | null> => {
      if (probe === 'ollama') {
        const v = await getJson(port, '/api/version');
        const version = (v?.json as { version?: unknown } | undefined)?.version;
        if (!v || v.status !== 200 || isSwitchboard(v) || typeof version !== 'string') return null;
        const tags = await getJson(port, '/api/tags');
        return {
          preset,
          base_url: `http://127.0.0.1:${port}`,
          label: `Ollama ${version}`,
          models: names((tags?.json as { models?: unknown } | undefined)?.models, 'name'),
          provider: providerAt(opts.providers, port),
        };
      }
      const m = await getJson(port, '/v1/models');
      const data = (m?.json as { data?: unknown } | undefined)?.data;
      if (!m || m.status !== 200 || isSwitchboard(m) || !Array.isArray(data)) return null;
      return {
        preset,
        base_url: `http://127.0.0.1:${port}/v1`,
        label: 'an OpenAI-compatible server',
        models: names(data, 'id'),
        provider: providerAt(opts.providers, port),
      };
    }),
  );
  // One service answers on one port: a port probed for two presets (none today) keeps the first.
  const data: DetectedService[] = [];
  for (const f of found) if (f && !data.some((d) => d.base_url === f.base_url)) data.push(f);
  const label = (id: string) => PROVIDER_PRESETS.find((p) => p.id === id)?.name ?? id;
  return { data, looked: probes.map((p) => `127.0.0.1:${p.port} (${label(p.preset)})`) };
}
