// The provider/model quirks table: matching (host, provider, type, model and its last segment), precedence of
// config.json's entries over the built-in ones, and what applying it does to a request body.
import { describe, expect, it } from 'vitest';
import { parseConfig, type ProviderType, type QuirkEntry } from '../../shared/config.ts';
import { ApiError } from '../errors.ts';
import { type AttemptPlan, chatPlan } from './forward/plan.ts';
import { openaiFormat } from './formats/openai/index.ts';
import { providerKind } from './providers/index.ts';
import { applyQuirks, QuirkTable, quirkTableFor } from './quirks.ts';

const target = (baseUrl: string, name = 'p', type?: ProviderType) => ({
  name,
  baseUrl: new URL(baseUrl),
  kind: providerKind({ base_url: baseUrl, ...(type ? { type } : {}) }),
});
const OPENAI = target('https://api.openai.com/v1', 'openai');
const AZURE = target('https://acme.openai.azure.com/openai/v1', 'azure');
const LOCAL = target('http://127.0.0.1:8080/v1', 'local');
const OPENROUTER = target('https://openrouter.ai/api/v1', 'openrouter');
const ANTHROPIC = target('https://api.anthropic.com', 'claude');

const table = new QuirkTable();
const translated = { translated: true, format: 'openai' } as const;
const passthrough = { translated: false, format: 'openai' } as const;

describe('prompt-cache markers (cache_control)', () => {
  it('are read by OpenRouter and DashScope (every model), not by OpenAI or an unknown server', () => {
    expect(table.resolve(OPENROUTER, 'anthropic/claude-sonnet-4.5')!.cacheControl).toBe(true);
    expect(
      table.resolve(target('https://dashscope-intl.aliyuncs.com/compatible-mode/v1'), 'qwen3-coder-plus')!.cacheControl,
    ).toBe(true);
    expect(table.resolve(OPENAI, 'gpt-4o')?.cacheControl).toBeUndefined();
    expect(table.resolve(LOCAL, 'claude-sonnet-4-5')?.cacheControl).toBeUndefined();
  });

  it('go on to a provider that reads them and are taken out, and said, for every other', () => {
    const hub = {
      model: 'claude-sonnet-4-5',
      messages: [
        {
          role: 'system' as const,
          content: [{ type: 'text' as const, text: 'Rules.', cache_control: { type: 'ephemeral' } }],
        },
        { role: 'user' as const, content: 'Hi' },
      ],
    };
    const plan = (t: ReturnType<typeof target>, q = table) =>
      chatPlan(t, null, Buffer.from(''), hub, openaiFormat, { model: hub.model }, false, q);
    const kept = plan(OPENROUTER);
    expect(JSON.parse(kept.body.toString()).messages[0].content[0].cache_control).toEqual({ type: 'ephemeral' });
    expect(kept.dropped).toBeUndefined();
    const taken = plan(LOCAL);
    expect(taken.body.toString()).not.toContain('cache_control');
    expect(taken.dropped).toEqual([
      'cache_control: provider "local" is not known to read prompt-cache markers (a quirks entry with "cache_control": true says it does)',
    ]);
    // A config entry says a server of one's own reads them.
    const mine = new QuirkTable([{ match: { provider: 'local' }, cache_control: true }]);
    expect(plan(LOCAL, mine).body.toString()).toContain('cache_control');
    expect(hub.messages[0]!.content[0]).toHaveProperty('cache_control'); // the hub request itself is left as it was
  });
});

describe('matching the built-in table', () => {
  it("gives o3 and gpt-5 on OpenAI's own API and on Azure the newer max name, temperature 1 only and no top_p", () => {
    for (const t of [OPENAI, AZURE]) {
      for (const model of ['o3', 'o3-2025-04-16', 'o4-mini', 'gpt-5', 'gpt-5-mini']) {
        const q = table.resolve(t, model)!;
        expect(q.rename).toEqual({ max_tokens: 'max_completion_tokens' });
        expect(q.fixed).toEqual({ temperature: 1 });
        expect(q.drop).toEqual(expect.arrayContaining(['top_p', 'presence_penalty', 'frequency_penalty', 'logprobs']));
        expect(q.reasoningEffort).toBe(true);
      }
    }
    expect(table.resolve(OPENAI, 'o3')!.drop).toEqual(expect.arrayContaining(['stop', 'parallel_tool_calls']));
    expect(table.resolve(OPENAI, 'o3-mini')!.drop).not.toContain('stop');
    expect(table.resolve(OPENAI, 'o1-mini')!.reasoningEffort).toBe(false);
  });

  it('tells gpt-5-chat (a chat model) and gpt-5.1 (sampling only without reasoning) from gpt-5', () => {
    const chat = table.resolve(OPENAI, 'gpt-5-chat-latest')!;
    expect(chat).toMatchObject({ rename: { max_tokens: 'max_completion_tokens' }, fixed: {}, drop: [] });
    expect(chat.reasoningEffort).toBe(false);
    expect(chat.capabilities).not.toContain('thinking');
    const five1 = table.resolve(OPENAI, 'gpt-5.1')!;
    expect(five1.fixed).toEqual({});
    expect(five1.dropWhenReasoning).toEqual(['temperature', 'top_p', 'logprobs', 'top_logprobs']);
  });

  it('leaves a request to the same model names on another host alone, but still knows what the model can do', () => {
    for (const t of [LOCAL, OPENROUTER]) {
      const q = table.resolve(t, 'o3')!;
      expect(q).toMatchObject({ rename: {}, fixed: {}, drop: [], reasoningEffort: true });
      expect(q.capabilities).toEqual(['completion', 'tools', 'vision', 'thinking']);
    }
  });

  it('matches the last path segment of a model ("openai/o3") and ignores case', () => {
    expect(table.resolve(OPENROUTER, 'openai/gpt-4o')).toMatchObject({
      capabilities: ['completion', 'tools', 'vision'],
    });
    expect(table.resolve(OPENAI, 'O3')!.rename).toEqual({ max_tokens: 'max_completion_tokens' });
  });

  it('describes well-known families: vision, thinking, embeddings, fill-in-the-middle, context lengths', () => {
    const caps = (model: string, t = LOCAL) => table.resolve(t, model)?.capabilities;
    const ctx = (model: string, t = LOCAL) => table.resolve(t, model)?.contextLength;
    expect(caps('gpt-4o-mini')).toContain('vision');
    expect(ctx('gpt-4.1')).toBe(1_047_576);
    expect(caps('claude-3-7-sonnet-20250219', ANTHROPIC)).toEqual(['completion', 'tools', 'vision', 'thinking']);
    expect(caps('claude-sonnet-4-5', ANTHROPIC)).toContain('thinking');
    expect(caps('claude-3-5-haiku-20241022', ANTHROPIC)).not.toContain('thinking');
    expect(caps('gemini-2.5-pro')).toContain('thinking');
    expect(caps('gemini-2.0-flash')).toEqual(['completion', 'tools', 'vision']);
    expect(caps('llava:13b')).toEqual(['completion', 'vision']);
    expect(caps('qwen2.5vl:7b')).toContain('vision');
    expect(caps('qwen3:8b')).toContain('thinking');
    expect(caps('deepseek-r1:14b')).toContain('thinking');
    expect(caps('qwen2.5-coder:7b')).toContain('insert');
    expect(caps('text-embedding-3-small')).toEqual(['embedding']);
    expect(caps('nomic-embed-text')).toEqual(['embedding']);
    expect(caps('gemini-embedding-001')).toEqual(['embedding']);
    expect(ctx('gemini-embedding-001')).toBeUndefined(); // the embedding entry states no length: none is borrowed
    expect(table.resolve(LOCAL, 'my-own-model')).toBeNull();
  });

  it('says which models do not reason: Claude 3.5 on its own API, GPT-4 on OpenAI; and which do: gemini 2.5', () => {
    expect(table.resolve(ANTHROPIC, 'claude-3-5-sonnet-latest')!.reasoningEffort).toBe(false);
    expect(table.resolve(ANTHROPIC, 'claude-3-7-sonnet-latest')!.reasoningEffort).toBeUndefined();
    expect(table.resolve(OPENAI, 'gpt-4o')!.reasoningEffort).toBe(false);
    expect(table.resolve(LOCAL, 'gpt-4o')!.reasoningEffort).toBeUndefined();
    expect(table.resolve(LOCAL, 'gemini-2.5-flash')!.reasoningEffort).toBe(true);
  });
});

describe("config.json's entries", () => {
  it('come first, field by field: an empty drop list cancels the built-in drops, the renames stay', () => {
    const user: QuirkEntry[] = [{ match: { model: 'o3' }, drop: [], fixed: {} }];
    const q = new QuirkTable(user).resolve(OPENAI, 'o3')!;
    expect(q.drop).toEqual([]);
    expect(q.fixed).toEqual({});
    expect(q.rename).toEqual({ max_tokens: 'max_completion_tokens' });
    expect(q.reasoningEffort).toBe(true);
  });

  it("state a model's description as one: capabilities with context length (a missing one is the default)", () => {
    const t = new QuirkTable([
      { match: { model: 'my-vlm' }, capabilities: ['completion', 'vision'], context_length: 32_000 },
      { match: { model: 'gpt-4o' }, context_length: 64_000 },
    ]);
    expect(t.resolve(LOCAL, 'my-vlm')).toMatchObject({ capabilities: ['completion', 'vision'], contextLength: 32_000 });
    const gpt = t.resolve(LOCAL, 'gpt-4o')!;
    expect(gpt.contextLength).toBe(64_000);
    expect(gpt.capabilities).toBeUndefined();
  });

  it('narrow by provider name, type and host; quirks.provider_hosts makes a provider match as another host', () => {
    const user: QuirkEntry[] = [
      { match: { provider: 'loc*', model: '*' }, reasoning_effort: true },
      { match: { type: 'anthropic', model: 'claude-x' }, drop: ['top_p'] },
      { match: { host: '127.0.0.1', model: 'only-here' }, drop: ['seed'] },
    ];
    const t = new QuirkTable(user, { gateway: 'api.openai.com' });
    expect(t.resolve(LOCAL, 'anything')!.reasoningEffort).toBe(true);
    // OpenRouter's own built-in word (it reads prompt-cache markers) and nothing else.
    expect(t.resolve(OPENROUTER, 'anything')).toEqual({
      rename: {},
      drop: [],
      fixed: {},
      dropWhenReasoning: [],
      cacheControl: true,
    });
    expect(t.resolve(ANTHROPIC, 'claude-x')!.drop).toEqual(['top_p']);
    expect(t.resolve(LOCAL, 'claude-x')!.drop).toEqual([]);
    expect(t.resolve(LOCAL, 'only-here')!.drop).toEqual(['seed']);
    const gateway = target('http://127.0.0.1:9000/v1', 'gateway');
    expect(t.hostOf(gateway)).toBe('api.openai.com');
    expect(t.resolve(gateway, 'o3')!.rename).toEqual({ max_tokens: 'max_completion_tokens' });
  });

  it('are checked by the config schema: unknown fields and capabilities, and provider_hosts naming no provider', () => {
    const base = { providers: [{ name: 'openai', base_url: 'http://127.0.0.1:1/v1' }] };
    const ok = parseConfig({
      ...base,
      quirks: { provider_hosts: { openai: 'api.openai.com' }, entries: [{ match: { model: 'x' }, drop: ['seed'] }] },
    });
    expect(ok.ok).toBe(true);
    const bad = parseConfig({
      ...base,
      quirks: {
        provider_hosts: { nobody: 'api.openai.com' },
        entries: [{ match: { modle: 'x' }, capabilities: ['telepathy'] }],
      },
    });
    expect(bad.ok).toBe(false);
    const paths = bad.ok ? [] : bad.problems.map((p) => p.path);
    expect(paths).toEqual(
      expect.arrayContaining(['quirks.entries[0].match.modle', 'quirks.entries[0].capabilities[0]']),
    );
    const defaults = parseConfig(base);
    expect(defaults.ok && defaults.config.quirks).toEqual({ provider_hosts: {}, entries: [] });
    const unknownProvider = parseConfig({ ...base, quirks: { provider_hosts: { nobody: 'api.openai.com' } } });
    expect(unknownProvider.ok ? [] : unknownProvider.problems.map((p) => p.path)).toEqual([
      'quirks.provider_hosts.nobody',
    ]);
  });

  it('build one table per config object (a reload builds a new one)', () => {
    const a = parseConfig({});
    const b = parseConfig({});
    if (!a.ok || !b.ok) throw new Error('config');
    expect(quirkTableFor(a.config)).toBe(quirkTableFor(a.config));
    expect(quirkTableFor(a.config)).not.toBe(quirkTableFor(b.config));
  });
});

describe('applying the table to a body', () => {
  const o3 = table.resolve(OPENAI, 'o3');
  const msgs = [{ role: 'user', content: 'hi' }];

  it('renames max_tokens, drops a temperature other than 1 and top_p, and says why; the input is untouched', () => {
    const body = { model: 'o3', messages: msgs, max_tokens: 512, temperature: 0.2, top_p: 0.9, stream: true };
    const a = applyQuirks(body, o3, translated)!;
    expect(a.body).toEqual({ model: 'o3', messages: msgs, max_completion_tokens: 512, stream: true });
    expect(a.renamed).toEqual(['max_tokens → max_completion_tokens']);
    expect(a.dropped).toEqual(['temperature=0.2: this model takes only 1', 'top_p=0.9: this model does not take it']);
    expect(body.max_tokens).toBe(512);
  });

  it('keeps temperature 1, and keeps max_completion_tokens when both names are given', () => {
    const a = applyQuirks({ model: 'o3', temperature: 1, max_tokens: 10, max_completion_tokens: 20 }, o3, passthrough)!;
    expect(a.body).toEqual({ model: 'o3', temperature: 1, max_completion_tokens: 20 });
    expect(a.dropped).toEqual(['max_tokens=10: max_completion_tokens is also given and is the one this model takes']);
  });

  it('returns null when nothing changes, or when no entry matches and nothing is to drop', () => {
    expect(applyQuirks({ model: 'o3', max_completion_tokens: 5 }, o3, translated)).toBeNull();
    expect(applyQuirks({ model: 'x', temperature: 0.3 }, null, translated)).toBeNull();
  });

  it('sends reasoning_effort on a translated request only to models said to take it; passthrough keeps the unknown', () => {
    const body = { model: 'my-model', reasoning_effort: 'high', reasoning_budget: 24_576 };
    expect(applyQuirks(body, null, translated)!.body).toEqual({ model: 'my-model', reasoning_budget: 24_576 });
    expect(applyQuirks(body, null, passthrough)).toBeNull();
    expect(applyQuirks(body, null, { translated: true, format: 'anthropic' })).toBeNull();
    expect(applyQuirks({ model: 'o3', reasoning_effort: 'high' }, o3, translated)).toBeNull();
    const gpt4o = table.resolve(OPENAI, 'gpt-4o');
    expect(applyQuirks({ model: 'gpt-4o', reasoning_effort: 'low' }, gpt4o, passthrough)!.dropped).toEqual([
      'reasoning_effort="low": this model does not reason',
    ]);
    const claude35 = table.resolve(ANTHROPIC, 'claude-3-5-sonnet-latest');
    expect(applyQuirks(body, claude35, { translated: true, format: 'anthropic' })!.body).toEqual({ model: 'my-model' });
  });

  it('drops gpt-5.1 sampling fields only while it reasons', () => {
    const q = table.resolve(OPENAI, 'gpt-5.1');
    const body = { model: 'gpt-5.1', temperature: 0.3, top_p: 0.5 };
    expect(applyQuirks(body, q, passthrough)).toBeNull();
    expect(applyQuirks({ ...body, reasoning_effort: 'none' }, q, passthrough)).toBeNull();
    expect(applyQuirks({ ...body, reasoning_effort: 'medium' }, q, passthrough)!.body).toEqual({
      model: 'gpt-5.1',
      reasoning_effort: 'medium',
    });
  });
});

describe('chatPlan with the table', () => {
  const quirks = new QuirkTable();
  const ctx = { model: 'o3' };
  const planned = (p: AttemptPlan | ApiError): AttemptPlan => {
    if (p instanceof ApiError) throw p;
    return p;
  };

  it('rewrites an OpenAI chat passthrough only when an entry changes it, else sends the same bytes', () => {
    const raw = Buffer.from('{ "model": "o3", "messages": [], "max_tokens": 64 }');
    const hub = JSON.parse(raw.toString());
    const plan = planned(chatPlan(OPENAI, '/chat/completions', raw, hub, openaiFormat, ctx, false, quirks));
    expect(JSON.parse(plan.body.toString())).toEqual({ model: 'o3', messages: [], max_completion_tokens: 64 });
    expect(plan.translate).toBeUndefined();
    const untouched = Buffer.from('{ "model": "gpt-4o", "messages": [], "max_tokens": 64 }');
    const same = planned(
      chatPlan(
        OPENAI,
        '/chat/completions',
        untouched,
        JSON.parse(untouched.toString()),
        openaiFormat,
        ctx,
        false,
        quirks,
      ),
    );
    expect(same.body).toBe(untouched);
    const local = planned(chatPlan(LOCAL, '/chat/completions', raw, hub, openaiFormat, ctx, false, quirks));
    expect(local.body).toBe(raw);
  });

  it('applies the table before translating, and lists what it dropped on the plan', () => {
    const hub = { model: 'o3', messages: [{ role: 'user' as const, content: 'x' }], temperature: 0.5, max_tokens: 9 };
    const plan = planned(chatPlan(OPENAI, null, Buffer.alloc(0), hub, openaiFormat, ctx, true, quirks));
    expect(JSON.parse(plan.body.toString())).toEqual({ model: 'o3', messages: hub.messages, max_completion_tokens: 9 });
    expect(plan.dropped).toEqual(['temperature=0.5: this model takes only 1']);
  });
});
