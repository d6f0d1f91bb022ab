// The usage and connect slices with a scripted transport: live refresh throttled to one a second (first at once, last
// never lost), only while a page watches; the chart's range; notices capped; Connect asks before replacing a tool that
// points elsewhere (and forces only after a yes), a 409 found on the way asks too; Undo; Try it's errors in words.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ConnectOverview, ConnectResult, ToolStatus } from '../../shared/connect.ts';
import type { ApiResult, SwitchboardApi } from '../../shared/ipc.ts';
import type { Notification, UsageRange, UsageRecord, UsageSummary } from '../../shared/usage.ts';
import { replaceQuestion } from './connect.ts';
import { createAppStore } from './index.ts';
import { NOTICE_CAP, throttle } from './usage.ts';

const ok = <T>(data: T): Promise<ApiResult<T>> => Promise.resolve({ ok: true, data });
const fail = (status: number, code: string, message: string, action?: string) =>
  Promise.resolve({ ok: false as const, failure: { status, error: { code, message, ...(action ? { action } : {}) } } });

function fakeApi(over: Partial<SwitchboardApi>): SwitchboardApi {
  return { subscribe: () => () => {}, ...over } as SwitchboardApi;
}

const totals = (requests: number) => ({
  requests,
  errors: 0,
  prompt_tokens: 10 * requests,
  completion_tokens: 5 * requests,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  cache_write_5m_tokens: 0,
  cache_write_1h_tokens: 0,
  reasoning_tokens: 0,
  cost_usd: 0.001 * requests,
  unpriced: 0,
  latency_ms_sum: 20 * requests,
  failed_attempts: 0,
});
const summary = (range: UsageRange, requests: number): UsageSummary => ({
  range,
  from: '2025-01-02T00:00:00.000Z',
  to: '2025-01-02T12:00:00.000Z',
  bucket_ms: 3_600_000,
  totals: totals(requests),
  by_app: [],
  by_provider: [],
  by_model: [],
  by_session: [],
  series: [],
  budgets: [],
});

const record: UsageRecord = {
  id: '0b6f2c1e-7a5d-4f7e-9a51-3c1b2d4e5f60',
  time: '2025-01-02T11:59:00.000Z',
  app: 'notes',
  provider: 'openai',
  model: 'gpt-4o-mini',
  requested_model: 'gpt-4o-mini',
  path: '/v1/chat/completions',
  status: 200,
  stream: false,
  latency_ms: 120,
  prompt_tokens: 10,
  completion_tokens: 5,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  reasoning_tokens: 0,
  cost_usd: 0.000005,
  cost_source: 'price_table',
};

afterEach(() => {
  vi.useRealTimers();
});

describe('usage slice', () => {
  it('refreshes today and the chart range when watched; traffic refreshes at most once a second', async () => {
    vi.useFakeTimers();
    const calls: UsageRange[] = [];
    let served = 0;
    const s = createAppStore(
      fakeApi({
        getUsage: ({ range }) => {
          calls.push(range);
          return ok(summary(range, ++served));
        },
        usageRequests: (req) => {
          expect(req).toEqual({ limit: 20 });
          return ok({ data: [record], has_more: false });
        },
      }),
    );
    // Nothing watches: traffic costs nothing.
    s.getState().noteTraffic();
    await vi.advanceTimersByTimeAsync(2000);
    expect(calls).toEqual([]);

    const unwatch = s.getState().watchUsage();
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toEqual(['today', '24h']);
    expect(s.getState().usageToday?.range).toBe('today');
    expect(s.getState().usageChart?.range).toBe('24h');
    expect(s.getState().usageRecent).toEqual([record]);

    // 30 requests over 3 s: the first refreshes at once, then one a second, and the last is shown.
    calls.length = 0;
    for (let i = 0; i < 30; i++) {
      s.getState().noteTraffic();
      await vi.advanceTimersByTimeAsync(100);
    }
    await vi.advanceTimersByTimeAsync(1500);
    const rounds = calls.length / 2;
    expect(rounds).toBeGreaterThanOrEqual(3);
    expect(rounds).toBeLessThanOrEqual(4);
    expect(s.getState().usageToday!.totals.requests).toBe(served - 1); // the last round's 'today'

    // Unwatched: traffic refreshes nothing again.
    unwatch();
    calls.length = 0;
    s.getState().noteTraffic();
    await vi.advanceTimersByTimeAsync(2000);
    expect(calls).toEqual([]);
  });

  it('changes the chart range and keeps the answer of the range asked last', async () => {
    const s = createAppStore(
      fakeApi({
        getUsage: ({ range }) => ok(summary(range, 1)),
        usageRequests: () => ok({ data: [], has_more: false }),
      }),
    );
    await s.getState().setChartRange('7d');
    expect(s.getState().chartRange).toBe('7d');
    expect(s.getState().usageChart?.range).toBe('7d');
    await s.getState().refreshUsage();
    expect(s.getState().usageChart?.range).toBe('7d');
  });

  it("says the server's error in words and keeps what it had", async () => {
    let broken = false;
    const s = createAppStore(
      fakeApi({
        getUsage: ({ range }) =>
          broken
            ? fail(503, 'usage_unavailable', 'The usage store is off.', 'Turn it on in Settings.')
            : ok(summary(range, 2)),
        usageRequests: () => ok({ data: [record], has_more: false }),
      }),
    );
    await s.getState().refreshUsage();
    broken = true;
    await s.getState().refreshUsage();
    expect(s.getState().usageError).toBe('The usage store is off. Turn it on in Settings.');
    expect(s.getState().usageToday?.totals.requests).toBe(2);
  });

  it('keeps the newest notices first, capped', () => {
    const s = createAppStore(fakeApi({}));
    const n = (i: number): Notification => ({
      kind: 'failover',
      time: new Date(1_700_000_000_000 + i).toISOString(),
      title: `t${i}`,
      message: 'm',
      provider: 'a',
      app: null,
    });
    for (let i = 0; i < NOTICE_CAP + 5; i++) s.getState().addNotice(n(i));
    expect(s.getState().notices).toHaveLength(NOTICE_CAP);
    expect(s.getState().notices[0]!.title).toBe(`t${NOTICE_CAP + 4}`);
  });

  it('throttle: a run in flight is never overlapped; calls during it make one more run', async () => {
    vi.useFakeTimers();
    let active = 0;
    let most = 0;
    let runs = 0;
    const t = throttle(async () => {
      runs++;
      active++;
      most = Math.max(most, active);
      await new Promise((r) => setTimeout(r, 1500));
      active--;
    }, 1000);
    t.poke();
    t.poke();
    t.poke();
    await vi.advanceTimersByTimeAsync(5000);
    expect(runs).toBe(2);
    expect(most).toBe(1);
    t.stop();
  });
});

const tool = (over: Partial<ToolStatus> = {}): ToolStatus => ({
  id: 'claude-code',
  name: 'Claude Code',
  kind: 'file',
  installed: true,
  state: 'not_connected',
  app: 'claude-code',
  format: 'anthropic',
  files: [{ path: '/home/u/.claude/settings.json', exists: true, role: "Claude Code's user settings" }],
  current: null,
  detail: 'ANTHROPIC_BASE_URL is not set',
  can_undo: false,
  values: [{ label: 'ANTHROPIC_BASE_URL', value: 'http://127.0.0.1:11434' }],
  steps: [],
  routes: [],
  ...over,
});
const overview = (t: ToolStatus): ConnectOverview => ({
  base_urls: {
    openai: 'http://127.0.0.1:11434/v1',
    anthropic: 'http://127.0.0.1:11434',
    gemini: 'http://127.0.0.1:11434/v1beta',
    ollama: 'http://127.0.0.1:11434',
  },
  tools: [t],
});
const result = (t: ToolStatus, message: string): ConnectResult => ({ tool: t, changed: [], message });

describe('connect slice', () => {
  it('connects a tool and shows its new state', async () => {
    const connectTool = vi.fn(() => ok(result(tool({ state: 'connected', can_undo: true }), 'Claude Code connected.')));
    const s = createAppStore(fakeApi({ getConnect: () => ok(overview(tool())), connectTool }));
    await s.getState().loadConnect();
    const confirm = vi.fn(() => true);
    expect(await s.getState().connectTool('claude-code', confirm)).toEqual({
      kind: 'done',
      message: 'Claude Code connected.',
    });
    expect(confirm).not.toHaveBeenCalled();
    expect(connectTool).toHaveBeenCalledWith({ tool: 'claude-code' });
    expect(s.getState().connect!.tools[0]!.state).toBe('connected');
    expect(s.getState().connectOutcomes['claude-code']).toEqual({ kind: 'done', message: 'Claude Code connected.' });
  });

  it('asks before replacing a tool that points elsewhere; No writes nothing, Yes forces', async () => {
    const elsewhere = tool({
      state: 'elsewhere',
      current: 'https://proxy.example.com',
      detail: 'ANTHROPIC_BASE_URL is https://proxy.example.com',
    });
    const connectTool = vi.fn(() => ok(result(tool({ state: 'connected' }), 'Replaced.')));
    const s = createAppStore(fakeApi({ getConnect: () => ok(overview(elsewhere)), connectTool }));
    await s.getState().loadConnect();
    const questions: string[] = [];
    const no = await s.getState().connectTool('claude-code', (q) => (questions.push(q), false));
    expect(no).toEqual({ kind: 'kept', message: 'Claude Code was left as it was.' });
    expect(connectTool).not.toHaveBeenCalled();
    expect(questions[0]).toBe(
      [
        'Claude Code points elsewhere at https://proxy.example.com.',
        'ANTHROPIC_BASE_URL is https://proxy.example.com',
        'Connect will replace that in /home/u/.claude/settings.json with ANTHROPIC_BASE_URL = http://127.0.0.1:11434.',
        'The file as it is now is kept as a backup: Undo puts it back byte for byte.',
      ].join('\n'),
    );
    expect(await s.getState().connectTool('claude-code', () => true)).toEqual({ kind: 'done', message: 'Replaced.' });
    expect(connectTool).toHaveBeenCalledWith({ tool: 'claude-code', force: true });
  });

  it('a 409 found on the way (the file changed since the page loaded) reloads, asks, and forces only after a yes', async () => {
    let state: ToolStatus = tool();
    const connectTool = vi.fn((r: { tool: string; force?: boolean }) =>
      r.force
        ? ok(result(tool({ state: 'connected' }), 'Replaced.'))
        : fail(409, 'connect_conflict', 'ANTHROPIC_BASE_URL is https://other.example.com.', 'Connect with force.'),
    );
    const s = createAppStore(fakeApi({ getConnect: () => ok(overview(state)), connectTool }));
    await s.getState().loadConnect();
    state = tool({ state: 'elsewhere', current: 'https://other.example.com', detail: 'changed by hand' });
    const asked: string[] = [];
    expect(await s.getState().connectTool('claude-code', (q) => (asked.push(q), true))).toEqual({
      kind: 'done',
      message: 'Replaced.',
    });
    expect(connectTool.mock.calls.map((c) => c[0])).toEqual([
      { tool: 'claude-code' },
      { tool: 'claude-code', force: true },
    ]);
    expect(asked[0]).toContain('points elsewhere at https://other.example.com');
    expect(asked[0]).toContain('ANTHROPIC_BASE_URL is https://other.example.com.');
  });

  it('a broken file and a failed Undo are said in words', async () => {
    const s = createAppStore(
      fakeApi({
        getConnect: () => ok(overview(tool())),
        connectTool: () =>
          fail(400, 'connect_broken', '/home/u/.claude/settings.json line 3: unexpected "}"', 'Fix the file first.'),
        undoConnect: () => fail(404, 'not_found', 'Nothing to undo for Claude Code.'),
      }),
    );
    await s.getState().loadConnect();
    expect(await s.getState().connectTool('claude-code', () => true)).toEqual({
      kind: 'error',
      message: '/home/u/.claude/settings.json line 3: unexpected "}" Fix the file first.',
    });
    expect(await s.getState().undoConnect('claude-code')).toEqual({
      kind: 'error',
      message: 'Nothing to undo for Claude Code.',
    });
  });

  it('Undo shows the restored state', async () => {
    const s = createAppStore(
      fakeApi({
        getConnect: () => ok(overview(tool({ state: 'connected', can_undo: true }))),
        undoConnect: () => ok(result(tool(), 'Restored the file as it was.')),
      }),
    );
    await s.getState().loadConnect();
    expect(await s.getState().undoConnect('claude-code')).toEqual({
      kind: 'done',
      message: 'Restored the file as it was.',
    });
    expect(s.getState().connect!.tools[0]!.state).toBe('not_connected');
  });

  it('Try it: the result, or the error in words', async () => {
    const tried = {
      ok: true,
      status: 200,
      answer: 'Hello',
      provider: 'alpha',
      model: 'gpt-4o-mini',
      why: ['rule gpt-* → alpha'],
      latency_ms: 12,
      prompt_tokens: 10,
      completion_tokens: 2,
      cost_usd: 0.00001,
    };
    let broken = false;
    const s = createAppStore(
      fakeApi({
        tryMessage: () => (broken ? fail(400, 'invalid_request', 'model must name a model.') : ok(tried)),
      }),
    );
    expect(await s.getState().tryMessage({ model: 'gpt-4o-mini', message: 'hi' })).toEqual({ ok: true, result: tried });
    broken = true;
    expect(await s.getState().tryMessage({ model: '', message: 'hi' })).toEqual({
      ok: false,
      message: 'model must name a model.',
    });
  });

  it('the question names no file or value when the tool gave none', () => {
    expect(replaceQuestion(tool({ files: [], values: [], current: null, detail: '' }))).toBe(
      'Claude Code points elsewhere.\nConnect will replace that.\nThe file as it is now is kept as a backup: Undo puts it back byte for byte.',
    );
  });
});
