// The attribution of a request's input tokens in each client format: parts found where each format keeps them, tool
// results matched to their call's tool, MCP servers from tool names, and the split scaled to the provider's count.
import { describe, expect, it } from 'vitest';
import { estimateTokens as limitsEstimate } from '../proxy/limits.ts';
import { attribute, estimateTokens, formatOfPath, mcpServerOf, sumSplits } from './attribution.ts';

const TOOL = (name: string) => ({ name, description: 'x'.repeat(400), input_schema: { type: 'object' } });

describe('attribution', () => {
  it('estimates as limits estimate a request', () => {
    for (const n of [0, 1, 3, 4, 5, 1000, 106_497]) expect(estimateTokens(n)).toBe(limitsEstimate(n));
  });

  it('names the MCP server of mcp__<server>__<tool> names, and the format of each door', () => {
    expect(mcpServerOf('mcp__github__create_issue')).toBe('github');
    expect(mcpServerOf('mcp__my_server__x')).toBe('my_server');
    expect(mcpServerOf('Read')).toBeNull();
    expect(formatOfPath('/v1/messages?beta=true')).toBe('anthropic');
    expect(formatOfPath('/v1/chat/completions')).toBe('openai');
    expect(formatOfPath('/v1/responses')).toBe('responses');
    expect(formatOfPath('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse')).toBe('gemini');
    expect(formatOfPath('/v1/embeddings')).toBeNull();
  });

  it('Anthropic: system, tools per tool and server, results per tool, conversation; scaled to the exact count', () => {
    const body = JSON.stringify({
      model: 'claude',
      system: [{ type: 'text', text: 's'.repeat(4000) }],
      tools: [TOOL('Read'), TOOL('mcp__github__create_issue'), TOOL('mcp__github__list_prs')],
      messages: [
        { role: 'user', content: 'read it' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'tu_1', name: 'Read', input: { path: 'a' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu_1', content: 'r'.repeat(2000) }] },
      ],
    });
    const est = attribute('/v1/messages', body, null)!;
    expect(est.exact).toBe(false);
    expect(est.input_tokens).toBe(Math.ceil(Buffer.byteLength(body) / 4));
    expect(est.system).toBeGreaterThan(est.tool_results);
    expect(Object.keys(est.tools)).toEqual(['Read', 'mcp__github__create_issue', 'mcp__github__list_prs']);
    expect(est.mcp_servers.github).toBe(est.tools.mcp__github__create_issue! + est.tools.mcp__github__list_prs!);
    expect(Object.keys(est.results)).toEqual(['Read']);
    const exact = attribute('/v1/messages', body, 10_000)!;
    const sum = exact.system + exact.tool_definitions + exact.tool_results + exact.conversation + exact.other;
    expect(exact.exact).toBe(true);
    expect(Math.abs(sum - 10_000)).toBeLessThanOrEqual(2);
    // Each part's share is the same in both.
    expect(Math.abs(exact.system / 10_000 - est.system / est.input_tokens)).toBeLessThan(0.005);
  });

  it('OpenAI chat, Responses and Gemini: the same parts where each keeps them', () => {
    const chat = attribute(
      '/v1/chat/completions',
      JSON.stringify({
        model: 'gpt',
        tools: [{ type: 'function', function: { name: 'mcp__fs__read', parameters: {} } }],
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'c1', function: { name: 'mcp__fs__read' } }] },
          { role: 'tool', tool_call_id: 'c1', content: 'file text' },
        ],
      }),
      null,
    )!;
    expect(chat.system).toBeGreaterThan(0);
    expect(chat.mcp_servers).toEqual({ fs: chat.tools.mcp__fs__read });
    expect(Object.keys(chat.results)).toEqual(['mcp__fs__read']);
    const responses = attribute(
      '/v1/responses',
      JSON.stringify({
        instructions: 'be brief',
        tools: [{ type: 'function', name: 'shell', parameters: {} }],
        input: [
          { type: 'function_call', call_id: 'k', name: 'shell', arguments: '{}' },
          { type: 'function_call_output', call_id: 'k', output: 'done' },
        ],
      }),
      null,
    )!;
    expect(Object.keys(responses.results)).toEqual(['shell']);
    expect(responses.system).toBeGreaterThan(0);
    const gemini = attribute(
      '/v1beta/models/g:generateContent',
      JSON.stringify({
        systemInstruction: { parts: [{ text: 'be brief' }] },
        tools: [{ functionDeclarations: [{ name: 'weather', parameters: {} }] }],
        contents: [{ role: 'user', parts: [{ functionResponse: { name: 'weather', response: { t: 18 } } }] }],
      }),
      null,
    )!;
    expect(Object.keys(gemini.tools)).toEqual(['weather']);
    expect(Object.keys(gemini.results)).toEqual(['weather']);
    expect(attribute('/v1/messages', 'not json', null)).toBeNull();
  });

  it('sums splits by part and by name', () => {
    const a = attribute('/v1/messages', JSON.stringify({ tools: [TOOL('mcp__a__x')], messages: [] }), 100)!;
    const total = sumSplits([a, a]);
    expect(total.input_tokens).toBe(200);
    expect(total.mcp_servers.a).toBe(2 * a.mcp_servers.a!);
    expect(total.exact).toBe(true);
    expect(sumSplits([]).exact).toBe(false);
  });
});
