// Provider status from active health checks, and a model list that survives a provider being down.
import { beforeAll, describe, expect, it } from 'vitest';
import { shutDownAfterAll } from '../../test/support/lifecycle.ts';
import { type MockProvider, startMockProvider } from '../../test/support/mock-provider.ts';
import { freePort } from '../../test/support/ports.ts';
import { eventually, type ServeProcess, startServe } from '../../test/support/serve-process.ts';

let up: MockProvider;
let sb: ServeProcess;
let deadPort: number;

beforeAll(async () => {
  up = await startMockProvider({ name: 'up', behavior: { models: ['alive-model'] } });
  deadPort = await freePort();
  sb = await startServe({
    config: {
      providers: [
        { name: 'up', base_url: up.baseUrl, api_key: 'k' },
        { name: 'down', base_url: `http://127.0.0.1:${deadPort}/v1`, api_key: 'k' },
        { name: 'off', base_url: `http://127.0.0.1:${deadPort}/v1`, api_key: 'k', enabled: false },
      ],
      routing: { default_provider: 'up', rules: [] },
      health_check: { interval_ms: 200, timeout_ms: 500 },
      timeouts: { connect_ms: 300, first_byte_ms: 1000, idle_ms: 1000 },
    },
  });
});
shutDownAfterAll(() => [sb, up]);

type Status = {
  providers: {
    name: string;
    state: string;
    last_error: string | null;
    last_latency_ms: number | null;
    last_checked_at: string | null;
  }[];
};

describe('active health checks', () => {
  it('mark each enabled provider ok or failed, with the last error, latency and time; disabled stays disabled', async () => {
    const status = await eventually(async () => {
      const s = (await (await sb.admin('/status')).json()) as Status;
      expect(s.providers.find((p) => p.name === 'up')!.state).toBe('ok');
      expect(s.providers.find((p) => p.name === 'down')!.state).toBe('failed');
      return s;
    });
    const upStatus = status.providers.find((p) => p.name === 'up')!;
    expect(upStatus.last_latency_ms).toBeGreaterThanOrEqual(0);
    expect(Date.parse(upStatus.last_checked_at!)).toBeGreaterThan(Date.now() - 10_000);
    expect(status.providers.find((p) => p.name === 'down')!.last_error).toMatch(/health check/);
    expect(status.providers.find((p) => p.name === 'off')!.state).toBe('disabled');
    expect(
      up.requests.some((r) => r.method === 'GET' && r.url === '/v1/models' && r.headers.authorization === 'Bearer k'),
    ).toBe(true);
  });

  it('a provider that comes back is marked ok again', async () => {
    up.setBehavior({ status: 503, models: ['alive-model'] });
    await eventually(async () => {
      const s = (await (await sb.admin('/status')).json()) as Status;
      expect(s.providers.find((p) => p.name === 'up')!.state).toBe('failed');
    });
    up.setBehavior({ models: ['alive-model'] });
    await eventually(async () => {
      const s = (await (await sb.admin('/status')).json()) as Status;
      expect(s.providers.find((p) => p.name === 'up')!.state).toBe('ok');
    });
  });
});

describe('GET /v1/models with a provider down', () => {
  it("still answers 200 with the others' models and names the missing provider", async () => {
    const res = await fetch(`${sb.baseUrl}/models`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: { id: string; owned_by: string }[] };
    expect(body.data).toEqual([expect.objectContaining({ id: 'alive-model', owned_by: 'up' })]);
    expect(res.headers.get('x-switchboard-unavailable')).toBe('down');
  });
});
