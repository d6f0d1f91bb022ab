// Key pools through `switchboard serve` (issue 37): a provider with three keys (one read from the environment), Claude
// Code-shaped sessions (X-Claude-Code-Session-Id) through the official Anthropic SDK. Each session stays on its key
// across 20 requests; a key revoked mid-way is benched after its first 401 and its sessions move; every request
// succeeds. The admin API's config read masks every key of the pool.
import fs from 'node:fs/promises';
import Anthropic from '@anthropic-ai/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RequestLogEntry } from '../../shared/admin.ts';
import { defaultBehaviorBeforeEach, shutDownAfterAll } from '../../test/support/lifecycle.ts';
import { type MockAnthropic, startMockAnthropic } from '../../test/support/mock-anthropic.ts';
import { type ServeProcess, startServe } from '../../test/support/serve-process.ts';

const KEYS = ['sk-ant-pool-first-key-1111', 'sk-ant-pool-second-key-2222', 'sk-ant-pool-third-key-3333'];
let mock: MockAnthropic;
let sb: ServeProcess;

beforeAll(async () => {
  mock = await startMockAnthropic({ name: 'pool-anthropic' });
  sb = await startServe({
    env: { ...process.env, SB_POOL_THIRD_KEY: KEYS[2] },
    config: {
      listen_port: 11434,
      log_requests: true,
      providers: [
        {
          name: 'anthropic',
          type: 'anthropic',
          base_url: mock.baseUrl,
          api_keys: [KEYS[0], KEYS[1], 'env:SB_POOL_THIRD_KEY'],
        },
      ],
      routing: { default_provider: 'anthropic', rules: [] },
      health_check: { interval_ms: 0, timeout_ms: 2000 },
    },
  });
});
shutDownAfterAll(() => [sb, mock]);
defaultBehaviorBeforeEach(() => [mock]);

const claude = () => new Anthropic({ baseURL: sb.url, apiKey: 'any', maxRetries: 0 });

/** One Claude Code-shaped turn of a session; the key the mock received for it. */
async function turn(session: string): Promise<string> {
  const before = mock.requests.length;
  const msg = await claude().messages.create(
    { model: 'claude-pool-test', max_tokens: 64, messages: [{ role: 'user', content: `hello from ${session}` }] },
    { headers: { 'X-Claude-Code-Session-Id': session } },
  );
  expect(msg.type).toBe('message');
  expect(msg.content[0]).toMatchObject({ type: 'text' });
  const sent = mock.requests.slice(before).filter((r) => r.url.startsWith('/v1/messages'));
  return sent.at(-1)!.apiKey!;
}

describe('a pool of three keys', () => {
  it('pins each session to a key, benches a revoked key and moves its sessions; every request succeeds', async () => {
    const sessions = Array.from({ length: 6 }, (_, i) => `5f0c1d2e-0000-4000-8000-00000000000${i}`);
    // First turns: new sessions are spread over the keys (round-robin: nothing is known of their quotas).
    const pinned = new Map<string, string>();
    for (const s of sessions) pinned.set(s, await turn(s));
    expect(new Set(pinned.values())).toEqual(new Set(KEYS));

    // The second key is revoked upstream.
    mock.setBehavior({ rejectKeys: [KEYS[1]!] });
    const revokedAt = mock.requests.length;
    const movedTo = new Map<string, string>();
    for (let n = 0; n < 20; n++)
      for (const s of sessions) {
        const key = await turn(s); // throws (failing the test) if a request does not succeed
        if (pinned.get(s) !== KEYS[1])
          expect(key).toBe(pinned.get(s)); // stays on its key, all 20 requests
        else {
          expect(key).not.toBe(KEYS[1]); // moved to a key that works…
          if (n === 0) movedTo.set(s, key);
          else expect(key).toBe(movedTo.get(s)); // …and stays there
        }
      }
    expect(movedTo.size).toBe(2);
    // The revoked key was tried once, then benched: no later request carried it.
    const withRevoked = mock.requests.slice(revokedAt).filter((r) => r.apiKey === KEYS[1]);
    expect(withRevoked).toHaveLength(1);

    // The request log says what happened on the request that met the revoked key.
    const logs = ((await (await sb.admin('/logs?limit=200')).json()) as { data: RequestLogEntry[] }).data;
    const moved = logs.filter((e) => e.attempts.length === 2);
    expect(moved).toHaveLength(1);
    expect(moved[0]!.status).toBe(200);
    expect(moved[0]!.attempts[0]).toMatchObject({ provider: 'anthropic', status: 401 });
    expect(moved[0]!.attempts[0]!.error).toMatch(/^key 2 of 3: HTTP 401.*; benched until \d{4}-/);
  });

  it('the admin config read masks every key of the pool, and a masked pool sent back keeps the keys', async () => {
    const read = (await (await sb.admin('/config')).json()) as { config: { providers: { api_keys: string[] }[] } };
    const shown = read.config.providers[0]!.api_keys;
    expect(shown).toHaveLength(3);
    expect(JSON.stringify(read)).not.toContain('pool-first');
    expect(JSON.stringify(read)).not.toContain('pool-second');
    expect(shown[2]).toBe('env:SB_POOL_THIRD_KEY');
    const put = await sb.admin('/config', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(read.config),
    });
    expect(put.status).toBe(200);
    const onDisk = JSON.parse(await fs.readFile(sb.configPath, 'utf8')) as { providers: { api_keys: string[] }[] };
    expect(onDisk.providers[0]!.api_keys).toEqual([KEYS[0], KEYS[1], 'env:SB_POOL_THIRD_KEY']);
  });

  it('refuses a provider with both api_key and api_keys', async () => {
    const read = (await (await sb.admin('/config')).json()) as { config: { providers: object[] } };
    const res = await sb.admin('/config', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        ...read.config,
        providers: [{ ...read.config.providers[0], api_key: 'sk-ant-one-more-key-4444' }],
      }),
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toMatch(/api_keys.*both set/);
  });
});
