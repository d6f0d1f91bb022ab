import { describe, expect, it } from 'vitest';
import { parseConfig, problemToText } from './config.ts';

const problems = (input: unknown) => {
  const r = parseConfig(input);
  return r.ok ? [] : r.problems.map(problemToText);
};

describe('config.json mcp_servers and approvals', () => {
  it('takes stdio and streamable HTTP servers, with the defaults filled in', () => {
    const r = parseConfig({
      mcp_servers: {
        fs: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'], env: { A: '1' } },
        github_api: { url: 'https://api.githubcopilot.com/mcp/', headers: { Authorization: 'Bearer ${GITHUB_TOKEN}' } },
        api: { url: '${API_BASE:-http://127.0.0.1:3001}/mcp', enabled: false, call_timeout_s: 5, read_only: true },
      },
      orchestrator: { approvals: { write_file: 'auto', 'github_api.*': 'ask' }, approval_timeout_s: 30 },
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.config.mcp_servers.fs).toMatchObject({
      enabled: true,
      idle_timeout_s: 300,
      call_timeout_s: 60,
      read_only: false,
    });
    expect(r.config.orchestrator.approval_timeout_s).toBe(30);
    expect(parseConfig({}).ok && (parseConfig({}) as { config: { mcp_servers: unknown } }).config.mcp_servers).toEqual(
      {},
    );
  });

  it('names each problem: both or neither of command and url, fields of the other kind, names, policies', () => {
    expect(
      problems({
        mcp_servers: {
          both: { command: 'x', url: 'http://127.0.0.1/mcp' },
          neither: { args: [] },
          web: { url: 'http://127.0.0.1/mcp', args: ['a'] },
          cmd: { command: 'x', headers: { a: 'b' } },
          'a.b': { command: 'x' },
          bad_url: { url: 'localhost:3001' },
        },
        orchestrator: { approvals: { write_file: 'sometimes' } },
      }),
    ).toEqual([
      'orchestrator.approvals.write_file (found "sometimes") must be one of "auto", "ask", "deny"',
      'mcp_servers.both.command (found "x") a server needs either "command" (a program started over stdio) or "url" (streamable HTTP), not both',
      'mcp_servers.neither.command a server needs either "command" (a program started over stdio) or "url" (streamable HTTP), not both',
      'mcp_servers.web.args (found ["a"]) applies to a "command" server only, not a "url" one',
      'mcp_servers.cmd.headers (found {"a":"b"}) applies to a "url" server only, not a "command" one',
      'mcp_servers.bad_url.url (found "localhost:3001") must be a full http:// or https:// address, e.g. "http://127.0.0.1:3001/mcp" (${VAR} references are allowed)',
      'mcp_servers.a.b (found {"command":"x"}) is not a usable server name: at most 32 letters, digits, "-" and single "_" (it prefixes its tools\' names)',
    ]);
  });
});
