// Mid-stream continuation through `switchboard serve` (issue 37, routing.rules[].continue_on_cut): a stream cut after
// 30 tokens on the primary is completed on the backup, and the client's official SDK sees one well-formed stream whose
// text is the primary's 30 tokens followed by the backup's continuation. The OpenAI client against OpenAI-style mocks
// (the backup gets the answer so far and a continuation instruction), the Anthropic client against Anthropic mocks
// (the backup gets it as a prefill). A cut inside a tool call is not continued, nor is a cut on a rule without it.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RequestLogEntry } from '../../shared/admin.ts';
import { CONTINUE_INSTRUCTION } from '../../main/proxy/forward/continuation.ts';
import { defaultBehaviorBeforeEach, shutDownAfterAll } from '../../test/support/lifecycle.ts';
import { type MockAnthropic, startMockAnthropic } from '../../test/support/mock-anthropic.ts';
import { type MockProvider, startMockProvider } from '../../test/support/mock-provider.ts';
import { type ServeProcess, startServe } from '../../test/support/serve-process.ts';

let primary: MockProvider;
let backup: MockProvider;
let claudePrimary: MockAnthropic;
let claudeBackup: MockAnthropic;
let sb: ServeProcess;

/** 60 tokens; the primary is cut after 30 of them. */
const TOKENS = Array.from({ length: 60 }, (_, i) => `w${i} `);
const FIRST_30 = TOKENS.slice(0, 30).join('');
const CONTINUATION = ['and', ' the', ' rest', '.'];

beforeAll(async () => {
  primary = await startMockProvider({ name: 'primary' });
  backup = await startMockProvider({ name: 'backup' });
  claudePrimary = await startMockAnthropic({ name: 'claude-primary' });
  claudeBackup = await startMockAnthropic({ name: 'claude-backup' });
  sb = await startServe({
    config: {
      listen_port: 11434,
      log_requests: true,
      providers: [
        { name: 'primary', base_url: primary.baseUrl, api_key: 'sk-primary-0000' },
        { name: 'backup', base_url: backup.baseUrl, api_key: 'sk-backup-0000' },
        { name: 'claude-primary', type: 'anthropic', base_url: claudePrimary.baseUrl, api_key: 'sk-ant-p-0000' },
        { name: 'claude-backup', type: 'anthropic', base_url: claudeBackup.baseUrl, api_key: 'sk-ant-b-0000' },
      ],
      routing: {
        default_provider: '',
        rules: [
          { pattern: 'cont-*', providers: ['primary', 'backup'], continue_on_cut: true },
          { pattern: 'claude-*', providers: ['claude-primary', 'claude-backup'], continue_on_cut: true },
          { pattern: 'plain-*', providers: ['primary', 'backup'] },
        ],
      },
      health_check: { interval_ms: 0, timeout_ms: 2000 },
    },
  });
});
shutDownAfterAll(() => [sb, primary, backup, claudePrimary, claudeBackup]);
defaultBehaviorBeforeEach(() => [primary, backup, claudePrimary, claudeBackup]);

const openai = () => new OpenAI({ baseURL: sb.baseUrl, apiKey: 'x', maxRetries: 0 });
const claude = () => new Anthropic({ baseURL: sb.url, apiKey: 'x', maxRetries: 0 });
const logs = async () => ((await (await sb.admin('/logs?limit=50')).json()) as { data: RequestLogEntry[] }).data;

describe('continue_on_cut', () => {
  it('OpenAI client: the primary cut after 30 tokens, the backup continues; one stream, one answer', async () => {
    primary.setBehavior({ tokens: TOKENS, failAfterChunks: 31 }); // the role chunk, then 30 tokens, then a reset
    backup.setBehavior({ tokens: CONTINUATION });
    const stream = await openai().chat.completions.create({
      model: 'cont-model',
      stream: true,
      messages: [{ role: 'user', content: 'Count for me.' }],
    });
    let text = '';
    const ids = new Set<string>();
    const finishes: (string | null)[] = [];
    for await (const chunk of stream) {
      ids.add(chunk.id);
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.choices[0]?.finish_reason) finishes.push(chunk.choices[0].finish_reason);
    }
    expect(text).toBe(FIRST_30 + CONTINUATION.join(''));
    expect(finishes).toEqual(['stop']); // one end, the backup's
    // The backup was asked to continue: the conversation, the answer so far, the instruction.
    const sent = backup.requests.at(-1)!.body as { messages: { role: string; content: string }[] };
    expect(sent.messages.slice(-2)).toEqual([
      { role: 'assistant', content: FIRST_30 },
      { role: 'user', content: CONTINUE_INSTRUCTION },
    ]);
    // The log records the seam.
    const entry = (await logs()).find((e) => e.requested_model === 'cont-model')!;
    expect(entry.status).toBe(200);
    expect(entry.provider).toBe('backup');
    expect(entry.attempts.map((a) => [a.provider, a.status])).toEqual([
      ['primary', 200],
      ['backup', 200],
    ]);
    expect(entry.attempts[0]!.error).toMatch(
      new RegExp(`^cut mid-stream: .*; continued after ${FIRST_30.length} characters of text \\(seam 1`),
    );
  });

  it('Anthropic client: the backup gets the answer so far as a prefill; the SDK sees one message', async () => {
    // message_start, content_block_start, ping, then 30 text deltas: cut.
    claudePrimary.setBehavior({ tokens: TOKENS, failAfterChunks: 33 });
    claudeBackup.setBehavior({ tokens: CONTINUATION });
    const events: string[] = [];
    const stream = claude().messages.stream({
      model: 'claude-cont',
      max_tokens: 512,
      messages: [{ role: 'user', content: 'Count for me.' }],
    });
    stream.on('streamEvent', (e) => events.push(e.type));
    const final = await stream.finalMessage();
    expect(final.content).toHaveLength(1);
    expect(final.content[0]).toMatchObject({ type: 'text', text: FIRST_30 + CONTINUATION.join('') });
    expect(final.stop_reason).toBe('end_turn');
    expect(events.filter((t) => t === 'message_start')).toHaveLength(1);
    expect(events.filter((t) => t === 'message_stop')).toHaveLength(1);
    const sent = claudeBackup.requests.at(-1)!.body as { messages: { role: string; content: unknown }[] };
    const last = sent.messages.at(-1)!;
    expect(last.role).toBe('assistant');
    expect(JSON.stringify(last.content)).toContain(FIRST_30.trimEnd());
  });

  it('a cut inside a tool call is not continued: the stream ends in an error, the backup is not called', async () => {
    primary.setBehavior({
      toolCall: { name: 'read', arguments: { path: '/a/long/path/to/a/file.ts' } },
      failAfterChunks: 3,
    });
    const before = backup.chatCount();
    const stream = await openai().chat.completions.create({
      model: 'cont-model',
      stream: true,
      messages: [{ role: 'user', content: 'Read it.' }],
    });
    await expect(
      (async () => {
        for await (const _ of stream);
      })(),
    ).rejects.toThrow();
    expect(backup.chatCount()).toBe(before);
  });

  it('without continue_on_cut, a cut ends the stream in an error as before', async () => {
    primary.setBehavior({ tokens: TOKENS, failAfterChunks: 31 });
    const before = backup.chatCount();
    const stream = await openai().chat.completions.create({
      model: 'plain-model',
      stream: true,
      messages: [{ role: 'user', content: 'Count for me.' }],
    });
    let text = '';
    await expect(
      (async () => {
        for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      })(),
    ).rejects.toThrow();
    expect(text).toBe(FIRST_30);
    expect(backup.chatCount()).toBe(before);
  });
});
