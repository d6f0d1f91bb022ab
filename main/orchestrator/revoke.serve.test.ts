// Revoking an agent key ends its open event streams (issue 13, item 6): through `switchboard serve` over real sockets,
// revoked by the real CLI (another process editing agent-keys.json) and by the admin API (as the Settings page does).
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { httpTransport } from '../../shared/http-client.ts';
import type { AgentEvent } from '../../shared/orchestrator.ts';
import { call, cli, type EventStream, openEvents } from '../../test/support/agent-api.ts';
import { type AgentServeProcess, useAgentServe } from '../../test/support/agent-serve.ts';

// Two keys of tenant acme (one to revoke, one that stays) and one of tenant globex.
const world = useAgentServe('sb-revoke-', ['acme', 'acme', 'globex'], {
  orchestrator: { workers: 2, sse_heartbeat_ms: 200 },
});
let sb: AgentServeProcess;
let api = '';

beforeAll(async () => {
  sb = await world().serve();
  ({ api } = sb);
}, 30_000);

/** The id of a key in agent-keys.json, found by its hash (as the server does). */
async function idOf(key: string): Promise<string> {
  const sha256 = createHash('sha256').update(key).digest('hex');
  const file = JSON.parse(await fs.readFile(path.join(sb.dir, 'agent-keys.json'), 'utf8')) as {
    keys: { id: string; sha256: string }[];
  };
  return file.keys.find((k) => k.sha256 === sha256)!.id;
}

/** Creates an agent with `key` and runs it once; resolves with the task id once it is accepted. */
async function runOnce(key: string, name: string): Promise<string> {
  const agent = await call(`${api}/agents`, key, 'POST', { name, model: 'mock-model' });
  expect(agent.status).toBe(201);
  const run = await call(`${api}/agents/${agent.body.id}/run`, key, 'POST', { message: 'hi' });
  expect(run.status).toBe(200);
  return run.body.task_id as string;
}

const completed = (stream: EventStream, taskId: string) =>
  stream.waitFor((e) => e.some((x) => x.type === 'completed' && x.task_id === taskId));

/** Resolves with how long the stream took to end, or rejects after `ms`. */
async function endsWithin(stream: EventStream, ms: number): Promise<number> {
  const t0 = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the stream was still open ${ms} ms after its key was revoked`)), ms);
  });
  try {
    await Promise.race([stream.ended, late]);
  } finally {
    clearTimeout(timer);
  }
  return Date.now() - t0;
}

/** The final frame of a stream closed by a revocation: an `error` event naming the key, in the agent API's body. */
function expectRevokedFrame(stream: EventStream, id: string): void {
  expect(stream.named).toHaveLength(1);
  expect(stream.named[0]!.event).toBe('error');
  expect(stream.named[0]!.data.error).toMatchObject({ code: 'unauthorized', type: 'authentication_error' });
  expect(stream.named[0]!.data.error.message).toContain(`${id} was revoked`);
  expect(stream.comments.some((c) => c.includes(`${id} was revoked`))).toBe(true);
}

describe('revoking an agent key', () => {
  it('by the CLI: its event stream ends at once with an error frame and carries nothing after; other keys stream on', async () => {
    const [doomed, sibling, globex] = world().keys;
    const a = await openEvents(`${api}/events`, doomed);
    const b = await openEvents(`${api}/events`, sibling);
    const g = await openEvents(`${api}/events`, globex);
    expect([a.status, b.status, g.status]).toEqual([200, 200, 200]);

    // Before: the doomed key's stream sees its tenant's activity, like the sibling's.
    const before = await runOnce(sibling, 'before');
    await completed(a, before);
    await completed(b, before);
    const seen = a.events.length;

    const id = await idOf(doomed);
    await cli(['keys', 'revoke', id, '--config', sb.configPath]);
    expect(await endsWithin(a, 2000)).toBeLessThan(2000);
    expectRevokedFrame(a, id);

    // After: activity in the same tenant reaches the sibling's stream and not the revoked one.
    const after = await runOnce(sibling, 'after');
    await completed(b, after);
    expect(a.events).toHaveLength(seen);
    expect(a.events.some((e) => e.task_id === after)).toBe(false);

    // Another tenant's stream is untouched: still open, still served.
    const other = await runOnce(globex, 'other');
    await completed(g, other);
    expect(b.isEnded()).toBe(false);
    expect(g.isEnded()).toBe(false);
    expect(b.named).toEqual([]);
    expect(g.named).toEqual([]);

    // And the key itself is refused from now on, streams included.
    expect((await call(`${api}/agents`, doomed)).status).toBe(401);
    expect((await openEvents(`${api}/events`, doomed)).status).toBe(401);
    b.close();
    g.close();
  });

  it('by the admin API (the Settings page): every open stream of that key ends, and only those', async () => {
    const made = await sb.admin('/agent-keys', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tenant: 'acme' }),
    });
    expect(made.status).toBe(201);
    const { key, id } = (await made.json()) as { key: string; id: string };
    const first = await openEvents(`${api}/events`, key);
    const second = await openEvents(`${api}/events?last_event_id=0`, key);
    const sibling = await openEvents(`${api}/events`, world().keys[1]);
    expect([first.status, second.status]).toEqual([200, 200]);

    const revoked = await sb.admin(`/agent-keys/${id}`, { method: 'DELETE' });
    expect(revoked.status).toBe(200);
    await endsWithin(first, 2000);
    await endsWithin(second, 2000);
    expectRevokedFrame(first, id);
    expectRevokedFrame(second, id);

    const after = await runOnce(world().keys[1], 'after-admin');
    await completed(sibling, after);
    expect(first.events.some((e) => e.task_id === after)).toBe(false);
    expect(second.events.some((e) => e.task_id === after)).toBe(false);
    expect(sibling.isEnded()).toBe(false);
    sibling.close();
  });

  it("the UI's event subscription (shared/http-client.ts) takes the error frame for no event and comes back with a new key", async () => {
    let stored: string | null = null;
    const client = httpTransport({
      base: sb.url,
      token: sb.adminToken,
      keyStore: { get: () => stored, set: (k) => void (stored = k || null) },
    });
    const got: AgentEvent[] = [];
    const off = client.subscribe('agentEvent', (e) => got.push(e));
    try {
      // The UI made its own key through the admin API on connecting.
      for (let i = 0; i < 100 && !stored; i++) await new Promise((r) => setTimeout(r, 50));
      const first = stored!;
      expect(first).toMatch(/^sk-agent-/);
      await new Promise((r) => setTimeout(r, 300)); // the stream is open
      // The user revokes the UI's key in Settings.
      const id = await idOf(first);
      expect((await sb.admin(`/agent-keys/${id}`, { method: 'DELETE' })).status).toBe(200);
      // The client reconnects with a new key of its own and sees its tenant's activity again.
      for (let i = 0; i < 100 && (stored === null || stored === first); i++)
        await new Promise((r) => setTimeout(r, 50));
      expect(stored).toMatch(/^sk-agent-/);
      expect(stored).not.toBe(first);
      await new Promise((r) => setTimeout(r, 300)); // reconnected
      const task = await runOnce(stored!, 'ui-after');
      for (let i = 0; i < 200 && !got.some((e) => e.type === 'completed' && e.task_id === task); i++)
        await new Promise((r) => setTimeout(r, 50));
      expect(got.some((e) => e.type === 'completed' && e.task_id === task)).toBe(true);
      // Nothing but events reached the listener (no error body taken for an event).
      expect(got.every((e) => typeof e.type === 'string' && typeof e.id === 'number')).toBe(true);
    } finally {
      off();
    }
  });
});
