// Folding a hub stream into one response, with the tool-call assembler.
import { describe, expect, it } from 'vitest';
import { foldChunks, hubChunk } from './chunks.ts';
import { ToolCallAssembler } from './tool-calls.ts';

const head = { id: 'c1', created: 5, model: 'm' };

describe('tool-call assembler and foldChunks', () => {
  it('puts calls together from deltas by index (id once, name and arguments in pieces), in index order', () => {
    const a = new ToolCallAssembler<{ block?: number }>();
    a.add({ index: 1, id: 'call_b', function: { name: 'get_', arguments: '{"ci' } });
    const first = a.add({ index: 0, id: 'call_a', function: { name: 'f', arguments: '{}' } });
    first.block = 3;
    a.add({ index: 1, function: { name: 'weather', arguments: 'ty":"Rome"}' } });
    a.add({ index: 1, id: 'ignored' });
    expect(a.list().map((c) => [c.index, c.id, c.name, c.arguments, c.block])).toEqual([
      [0, 'call_a', 'f', '{}', 3],
      [1, 'call_b', 'get_weather', '{"city":"Rome"}', undefined],
    ]);
    expect(a.has(1) && !a.has(2)).toBe(true);
  });

  it('folds text, reasoning, tool calls, finish and usage', () => {
    const res = foldChunks([
      hubChunk(head, { role: 'assistant', content: '' }),
      hubChunk(head, { reasoning_content: 'hm' }),
      hubChunk(head, { content: 'Hi' }),
      hubChunk(head, { tool_calls: [{ index: 0, id: 'call_1', function: { name: 'f', arguments: '{"a"' } }] }),
      hubChunk(head, { tool_calls: [{ index: 0, function: { arguments: ':1}' } }] }),
      hubChunk(head, {}, 'tool_calls', { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 }),
    ]);
    expect(res).toEqual({
      id: 'c1',
      object: 'chat.completion',
      created: 5,
      model: 'm',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Hi',
            reasoning_content: 'hm',
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
    });
  });
});
