// Session-aware attribution (issue 32, item 9): the session id a coding tool sends (Claude Code's
// X-Claude-Code-Session-Id, Codex's session_id) is kept on the request log's entry and on the usage record, and
// GET /admin/v1/usage groups the range's usage by session (per app). Requests: Claude Code's and Codex's captured ones
// (test/fixtures/real/, each naming its source), with the session headers each tool sends (main/proxy/session-id.ts
// names where each comes from).
import fs from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RequestLogEntry } from '../../shared/admin.ts';
import { type UsageRequests, type UsageSummary, UsageSummarySchema } from '../../shared/usage.ts';
import { shutDownAfterAll } from '../../test/support/lifecycle.ts';
import { type MockAnthropic, startMockAnthropic } from '../../test/support/mock-anthropic.ts';
import { type MockProvider, startMockProvider } from '../../test/support/mock-provider.ts';
import { type ServeProcess, startServe } from '../../test/support/serve-process.ts';

type Json = Record<string, any>;
const fixture = (name: string): Json =>
  JSON.parse(fs.readFileSync(new URL(`../../test/fixtures/real/${name}`, import.meta.url), 'utf8')) as Json;
const claudeCode = fixture('claude-code/request-2-sixteen-tools.json');
/** Codex's captured first turn, as it POSTs it over HTTP (without the WebSocket envelope's `type` and id). */
const {
  type: _ws,
  previous_response_id: _prev,
  ...codexTurn
} = fixture('codex/first-turn-gpt-5.4.json').request as Json;

const CC_SESSION = '5b6f8e2a-3c4d-4e1f-9a7b-2c8d0e6f1a3b';
const CC_OTHER = '0c1d2e3f-4a5b-4c6d-8e7f-901234567890';
const CODEX_SESSION = '0199a7c4-6b1e-7f32-9d4a-2e5c8b1f0a77';

let anthropic: MockAnthropic;
let openai: MockProvider;
let sb: ServeProcess;

beforeAll(async () => {
  anthropic = await startMockAnthropic({ behavior: { usage: { input_tokens: 100, output_tokens: 20 } } });
  openai = await startMockProvider({
    name: 'openai',
    behavior: { usage: { prompt_tokens: 50, completion_tokens: 5 } },
  });
  sb = await startServe({
    config: {
      log_requests: false,
      providers: [
        {
          name: 'anthropic',
          type: 'anthropic',
          base_url: anthropic.baseUrl,
          api_key: 'sk-ant-test-123456',
          enabled: true,
        },
        { name: 'openai', base_url: openai.baseUrl, api_key: 'sk-openai-test-123456', enabled: true },
      ],
      routing: {
        default_provider: '',
        rules: [
          { pattern: 'claude-*', provider: 'anthropic' },
          { pattern: 'gpt-*', provider: 'openai' },
        ],
      },
      // Priced as the vendors they stand in for (all traffic stays on loopback).
      quirks: { provider_hosts: { anthropic: 'api.anthropic.com', openai: 'api.openai.com' }, entries: [] },
    },
  });
});
shutDownAfterAll(() => [sb, anthropic, openai]);

/** Claude Code's captured request, as Claude Code connected by Switchboard sends it (its session header on). */
const claudeTurn = (session: string | null, extra: Record<string, string> = {}) =>
  fetch(`${sb.url}/v1/messages`, {
    method: 'POST',
    headers: {
      ...claudeCode.headers,
      authorization: 'Bearer app:claude-code',
      ...(session ? { 'x-claude-code-session-id': session } : {}),
      ...extra,
    },
    body: JSON.stringify({ ...claudeCode.body, stream: false }),
  });

const codexTurnRequest = (session: string) =>
  fetch(`${sb.baseUrl}/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-switchboard-app': 'codex', session_id: session },
    body: JSON.stringify({ ...codexTurn, tools: codexTurn.tools.filter((t: Json) => t.type !== 'web_search') }),
  });

describe('the coding session of each request', () => {
  it('is on the request log entry, from Claude Code’s and Codex’s own headers (null when none is sent)', async () => {
    expect((await claudeTurn(CC_SESSION)).status).toBe(200);
    expect((await claudeTurn(CC_SESSION)).status).toBe(200);
    expect((await claudeTurn(CC_OTHER)).status).toBe(200);
    const codex = await codexTurnRequest(CODEX_SESSION);
    expect(codex.status).toBe(200);
    await codex.text();
    expect((await claudeTurn(null)).status).toBe(200);
    const logs = (await (await sb.admin('/logs?limit=5')).json()) as { data: RequestLogEntry[] };
    expect(logs.data.map((e) => [e.app, e.session])).toEqual([
      ['claude-code', CC_SESSION],
      ['claude-code', CC_SESSION],
      ['claude-code', CC_OTHER],
      ['codex', CODEX_SESSION],
      ['claude-code', null],
    ]);
  });

  it('is on the usage record, and GET /admin/v1/usage adds up each session (per app), most expensive first', async () => {
    const records = (await (await sb.admin('/usage/requests?limit=5')).json()) as UsageRequests;
    expect(records.data.map((r) => r.session)).toEqual([null, CODEX_SESSION, CC_OTHER, CC_SESSION, CC_SESSION]);
    const summary = UsageSummarySchema.parse(await (await sb.admin('/usage?range=today')).json()) as UsageSummary;
    const rows = summary.by_session.map((r) => ({ key: r.key, app: r.app, requests: r.requests }));
    expect(rows).toEqual([
      { key: CC_SESSION, app: 'claude-code', requests: 2 },
      expect.objectContaining({ key: expect.any(String) }),
      expect.objectContaining({ key: expect.any(String) }),
    ]);
    expect(rows.slice(1)).toEqual(
      expect.arrayContaining([
        { key: CC_OTHER, app: 'claude-code', requests: 1 },
        { key: CODEX_SESSION, app: 'codex', requests: 1 },
      ]),
    );
    const session = summary.by_session[0]!;
    expect(session.cost_usd).toBeGreaterThan(0);
    expect(session.prompt_tokens).toBe(200);
    // The request without a session is in the totals, not in any session's row.
    expect(summary.totals.requests).toBe(5);
  });

  it('keeps at most 128 characters of an id', async () => {
    expect((await claudeTurn('s'.repeat(300))).status).toBe(200);
    const [entry] = ((await (await sb.admin('/logs?limit=1')).json()) as { data: RequestLogEntry[] }).data;
    expect(entry!.session).toBe('s'.repeat(128));
  });
});
