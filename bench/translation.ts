// What translating a stream costs: a 500-chunk reply from an OpenAI-format provider, read by an Anthropic client
// (decoded to the hub and re-encoded as Anthropic events) against the same reply passed through to an OpenAI client.
// Run: node --import tsx bench/translation.ts   (or npm run bench)
import http from 'node:http';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { makeTempDir } from '../test/support/temp.ts';
import { type BenchChild, startChild } from './processes.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

type Side = { name: string; path: string; body: string; headers: Record<string, string>; done: string };
type Row = { name: string; medianMs: number; cpuUsPerRequest: number | null; bytes: number };

function stream(port: number, side: Side, agent: http.Agent): Promise<{ ms: number; bytes: number; text: string }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: side.path,
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(side.body),
          ...side.headers,
        },
      },
      (res) => {
        let bytes = 0;
        let last = '';
        res.on('data', (c: Buffer) => {
          bytes += c.length;
          last = (last + c.toString()).slice(-200);
        });
        res.on('end', () =>
          res.statusCode === 200
            ? resolve({ ms: performance.now() - t0, bytes, text: last })
            : reject(new Error(`status ${res.statusCode}: ${last}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(side.body);
  });
}

export async function main(
  opts: { requests?: number; chunks?: number } = {},
): Promise<{ name: string; rows: Row[]; cpuRatio: number | null; timeRatio: number; table: string }> {
  const n = opts.requests ?? 300;
  const chunks = opts.chunks ?? 500;
  const temp = await makeTempDir('switchboard-bench-translation');
  const children: BenchChild[] = [];
  try {
    const tokens = Array.from({ length: chunks }, (_, i) => ` tok${i}`);
    const mock = await startChild(
      'mock provider',
      ['--import', 'tsx', 'bench/mock-server.ts', '--port', '0', '--behavior', JSON.stringify({ tokens })],
      { cwd: ROOT },
    );
    children.push(mock);
    const dir = path.join(temp.dir, 'sb');
    await mkdir(dir, { recursive: true });
    const file = path.join(dir, 'config.json');
    await writeFile(
      file,
      JSON.stringify({
        listen_port: 11434,
        log_requests: false,
        providers: [
          {
            name: 'mock',
            type: 'openai',
            base_url: `http://127.0.0.1:${mock.port}/v1`,
            api_key: 'sk-bench',
            enabled: true,
          },
        ],
        routing: { default_provider: 'mock', rules: [] },
        app_rules: [],
        health_check: { interval_ms: 0, timeout_ms: 1000 },
        limits: { enabled: false },
      }),
    );
    const sb = await startChild(
      'Switchboard',
      ['--import', 'tsx', 'main/cli.ts', 'serve', '--config', file, '--port', '0'],
      { cwd: ROOT, timeoutMs: 30_000 },
    );
    children.push(sb);

    const messages = [{ role: 'user', content: 'Write a long story.' }];
    const sides: Side[] = [
      {
        name: 'OpenAI client → OpenAI provider (passthrough)',
        path: '/v1/chat/completions',
        body: JSON.stringify({ model: 'm', messages, stream: true }),
        headers: {},
        done: '[DONE]',
      },
      {
        name: 'Anthropic client → OpenAI provider (translated)',
        path: '/v1/messages',
        body: JSON.stringify({ model: 'm', max_tokens: 1024, messages, stream: true }),
        headers: { 'anthropic-version': '2023-06-01' },
        done: 'message_stop',
      },
    ];
    const rows: Row[] = [];
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    for (const side of sides) {
      for (let i = 0; i < 5; i++) await stream(sb.port, side, agent);
      const check = await stream(sb.port, side, agent);
      if (!check.text.includes(side.done))
        throw new Error(`${side.name}: the stream did not end with ${side.done}: ${check.text}`);
      const cpu0 = sb.cpuMicros();
      const times: number[] = [];
      let bytes = 0;
      for (let i = 0; i < n; i++) {
        const r = await stream(sb.port, side, agent);
        times.push(r.ms);
        bytes = r.bytes;
      }
      const cpu1 = sb.cpuMicros();
      times.sort((a, b) => a - b);
      rows.push({
        name: side.name,
        medianMs: times[Math.floor(times.length / 2)]!,
        cpuUsPerRequest: cpu0 !== null && cpu1 !== null ? (cpu1 - cpu0) / n : null,
        bytes,
      });
    }
    agent.destroy();
    const [pass, tr] = rows as [Row, Row];
    const cpuRatio = pass.cpuUsPerRequest && tr.cpuUsPerRequest ? tr.cpuUsPerRequest / pass.cpuUsPerRequest : null;
    const timeRatio = tr.medianMs / pass.medianMs;
    const table = [
      '## Translation overhead: a streamed 500-chunk reply',
      '',
      `${n} sequential streamed requests per row after 5 warm-up; the provider is an OpenAI-format mock in its own process sending ${chunks} content chunks at once.`,
      '',
      '| path | median time per stream ms | Switchboard CPU µs per stream | bytes to the client | time ratio | CPU ratio |',
      '| --- | --: | --: | --: | --: | --: |',
      `| ${pass.name} | ${pass.medianMs.toFixed(2)} | ${pass.cpuUsPerRequest?.toFixed(0) ?? '—'} | ${pass.bytes} | 1.00× | 1.00× |`,
      `| ${tr.name} | ${tr.medianMs.toFixed(2)} | ${tr.cpuUsPerRequest?.toFixed(0) ?? '—'} | ${tr.bytes} | ${timeRatio.toFixed(2)}× | ${cpuRatio === null ? '—' : `${cpuRatio.toFixed(2)}×`} |`,
      '',
    ].join('\n');
    return { name: 'translation', rows, cpuRatio, timeRatio, table };
  } finally {
    await Promise.all(children.map((c) => c.stop()));
    await temp.cleanup();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log((await main()).table);
}
