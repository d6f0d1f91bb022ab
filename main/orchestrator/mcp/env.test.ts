// What of Switchboard's environment an MCP server may have (issue 33, item 1): only the variables its env_passthrough
// lists, never a provider key's.
import { describe, expect, it } from 'vitest';
import { refusedText, serverEnvironment } from './env.ts';

const ENV = {
  OPENAI_API_KEY: 'sk-proj-0123456789abcdef',
  GITHUB_TOKEN: 'ghp_0123456789abcdef',
  MY_PROVIDER: 'sk-mine-0123456789abcdef',
  COPY_OF_KEY: 'sk-mine-0123456789abcdef',
  SWITCHBOARD_REDIS_URL: 'redis://:pw@host',
};
const PROTECTED = { names: ['MY_PROVIDER'], values: ['sk-mine-0123456789abcdef'] };

describe('serverEnvironment', () => {
  it('expands only listed variables; an unlisted one becomes "" and is refused, saying how to list it', () => {
    const se = serverEnvironment({ env_passthrough: ['GITHUB_TOKEN'] }, ENV, PROTECTED);
    expect(se.expand('Bearer ${GITHUB_TOKEN}')).toBe(`Bearer ${ENV.GITHUB_TOKEN}`);
    expect(se.expand('${env:GITHUB_TOKEN}')).toBe(ENV.GITHUB_TOKEN);
    expect(se.expand('x=${HOME:-/tmp}')).toBe('x=');
    expect(se.passed).toEqual({ GITHUB_TOKEN: ENV.GITHUB_TOKEN });
    expect(refusedText('gh', se.refused)).toBe(
      'it refers to variables of Switchboard\'s environment it may not have: ${HOME} (not in its env_passthrough): add "env_passthrough": ["HOME"] to mcp_servers.gh to pass it from Switchboard\'s environment',
    );
  });

  it("refuses a provider key's variable, one config.json's env: values name, SWITCHBOARD_*, and a configured secret's value, even listed", () => {
    const listed = ['OPENAI_API_KEY', 'MY_PROVIDER', 'COPY_OF_KEY', 'SWITCHBOARD_REDIS_URL'];
    const se = serverEnvironment({ env_passthrough: listed }, ENV, PROTECTED);
    for (const name of listed) expect(se.expand(`\${${name}}`)).toBe('');
    expect(se.passed).toEqual({});
    expect([...se.refused]).toEqual([
      ['OPENAI_API_KEY', "a provider key's variable"],
      ['MY_PROVIDER', "a variable config.json's env: values name"],
      ['COPY_OF_KEY', 'its value is one of the configured secrets'],
      ['SWITCHBOARD_REDIS_URL', "a provider key's variable"],
    ]);
    expect(refusedText('x', se.refused)).toMatch(/Switchboard never gives its provider keys to MCP servers/);
  });

  it('a listed variable that is not set keeps its default, or becomes "" and is reported missing', () => {
    const se = serverEnvironment({ env_passthrough: ['UNSET_ONE'] }, ENV, PROTECTED);
    expect(se.expand('${UNSET_ONE:-fallback}')).toBe('fallback');
    expect(se.expand('${UNSET_ONE}')).toBe('');
    expect([...se.missing]).toEqual(['UNSET_ONE']);
    expect(se.refused.size).toBe(0);
  });
});
