import { describe, expect, it } from 'vitest';
import { policyFor } from './approval-policy.ts';

describe('approval policy', () => {
  it('defaults: reads run, writes and the network ask, read-only MCP tools run', () => {
    for (const t of ['current_time', 'calculator', 'read_file', 'list_files'])
      expect(policyFor(t, undefined, undefined, false).policy).toBe('auto');
    expect(policyFor('write_file', undefined, undefined, false)).toEqual({
      policy: 'ask',
      source: 'the default (it writes or reaches the network)',
    });
    expect(policyFor('http_get', {}, {}, false).policy).toBe('ask');
    expect(policyFor('github.create_issue', {}, {}, false).policy).toBe('ask');
    expect(policyFor('fs.read_text_file', {}, {}, true).policy).toBe('auto');
  });

  it("the agent's approvals come before config.json's, and an exact name before the longest matching glob", () => {
    const agent = { write_file: 'auto', 'github.*': 'ask', 'github.create_*': 'deny' } as const;
    const global = { '*': 'deny', calculator: 'ask' } as const;
    expect(policyFor('write_file', agent, global, false)).toEqual({
      policy: 'auto',
      source: `the agent's approvals "write_file"`,
    });
    expect(policyFor('github.create_issue', agent, global, false).policy).toBe('deny');
    expect(policyFor('github.list_issues', agent, global, false).policy).toBe('ask');
    expect(policyFor('calculator', agent, global, false)).toEqual({
      policy: 'ask',
      source: 'orchestrator.approvals "calculator" in config.json',
    });
    expect(policyFor('read_file', agent, global, true).policy).toBe('deny');
  });
});
