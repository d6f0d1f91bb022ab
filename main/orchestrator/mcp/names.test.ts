import { describe, expect, it } from 'vitest';
import { expandVars, refMatches, serversOf, splitToolRef, wireName } from './names.ts';

const VALID = /^[a-zA-Z0-9_-]{1,64}$/; // OpenAI's (and Anthropic's) function names

describe('wire names of MCP tools', () => {
  it('sends <server>.<tool> as <server>__<tool>, a name every provider takes', () => {
    expect(wireName('fs', 'read_file')).toBe('fs__read_file');
    expect(wireName('everything', 'get-sum')).toBe('everything__get-sum');
  });

  it('gives a tool name with other characters, or a long one, a valid name of its own that is the same every time', () => {
    const dotted = wireName('gh', 'repos.list');
    const long = wireName('server', 'x'.repeat(80));
    for (const n of [dotted, long]) expect(n).toMatch(VALID);
    expect(dotted).toMatch(/^gh__repos_list_[0-9a-f]{8}$/);
    expect(wireName('gh', 'repos.list')).toBe(dotted);
    // Two tools whose characters map alike stay apart.
    expect(wireName('gh', 'repos/list')).not.toBe(dotted);
  });
});

describe('allow-list entries', () => {
  it('splits at the first dot; a name without one is a built-in tool', () => {
    expect(splitToolRef('fs.read_file')).toEqual({ server: 'fs', tool: 'read_file' });
    expect(splitToolRef('gh.repos.list')).toEqual({ server: 'gh', tool: 'repos.list' });
    expect(splitToolRef('calculator')).toBeNull();
    expect(splitToolRef('.x')).toBeNull();
    expect(splitToolRef('x.')).toBeNull();
  });

  it('matches names and globs (micromatch), and finds the servers an entry names', () => {
    expect(refMatches('github.*', 'github.create_issue')).toBe(true);
    expect(refMatches('fs.read_*', 'fs.read_text_file')).toBe(true);
    expect(refMatches('fs.read_*', 'fs.write_file')).toBe(false);
    expect(refMatches('*', 'write_file')).toBe(true);
    expect(serversOf('github.*', ['github', 'fs'])).toEqual(['github']);
    expect(serversOf('*.search', ['github', 'fs'])).toEqual(['github', 'fs']);
    expect(serversOf('nope.x', ['github'])).toEqual([]);
  });
});

describe("${VAR} in a server's settings", () => {
  it('expands ${VAR}, ${VAR:-default} (Claude Code) and ${env:VAR} (Cursor), and reports unset ones', () => {
    const missing = new Set<string>();
    const env = { TOKEN: 't0k3n', EMPTY: '' };
    expect(expandVars('Bearer ${TOKEN}', env, missing)).toBe('Bearer t0k3n');
    expect(expandVars('Bearer ${env:TOKEN}', env, missing)).toBe('Bearer t0k3n');
    expect(expandVars('${BASE:-https://api.example.com}/mcp', env, missing)).toBe('https://api.example.com/mcp');
    expect(expandVars('${EMPTY:-x}', env, missing)).toBe('x');
    expect(missing.size).toBe(0);
    expect(expandVars('a${NOPE}b', env, missing)).toBe('ab');
    expect([...missing]).toEqual(['NOPE']);
  });
});
