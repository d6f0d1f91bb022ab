import { describe, expect, it } from 'vitest';
import { costliestServerText, curlOf, percent, wordDiff } from './insight-text.ts';

describe('insight texts', () => {
  it('wordDiff: same, removed and added runs that rebuild both texts', () => {
    const d = wordDiff('the cat sat on the mat', 'the dog sat on a mat');
    const a = d
      .filter((p) => p.kind !== 'added')
      .map((p) => p.text)
      .join('');
    const b = d
      .filter((p) => p.kind !== 'removed')
      .map((p) => p.text)
      .join('');
    expect(a).toBe('the cat sat on the mat');
    expect(b).toBe('the dog sat on a mat');
    expect(d.filter((p) => p.kind === 'removed').map((p) => p.text.trim())).toEqual(['cat', 'the']);
    expect(wordDiff('same', 'same')).toEqual([{ kind: 'same', text: 'same' }]);
  });

  it('curlOf: path, headers and body quoted for a shell, no credential', () => {
    const text = curlOf(
      {
        method: 'POST',
        path: '/v1/messages',
        request: { headers: { 'content-type': 'application/json', host: 'x' }, body: `{"a":"it's"}`, truncated: false },
      } as never,
      'http://127.0.0.1:11434',
    );
    expect(text).toContain(`curl 'http://127.0.0.1:11434/v1/messages'`);
    expect(text).toContain(`-H 'content-type: application/json'`);
    expect(text).not.toContain('host:');
    expect(text).toContain(`--data-binary '{"a":"it'\\''s"}'`);
  });

  it('the costliest MCP server in a sentence', () => {
    expect(percent(18, 100)).toBe('18%');
    const s = costliestServerText(
      { input_tokens: 1000, mcp_servers: { github: 180, fs: 20 } } as never,
      'this session',
    );
    expect(s).toBe("The github MCP server's tool definitions are 18% of this session's input.");
  });
});
