import { describe, expect, it } from 'vitest';
import { configDiff } from './config-diff.ts';

describe('what changed between two configs', () => {
  const before = {
    listen_port: 11434,
    providers: [
      { name: 'openai', base_url: 'https://api.openai.com/v1', api_key: 'sk-****abcd', enabled: false },
      { name: 'local', base_url: 'http://127.0.0.1:11435', api_key: '' },
    ],
    routing: { default_provider: 'openai', rules: [{ pattern: 'gpt-*', provider: 'openai' }] },
  };
  it('names each field that differs, providers by name and rules by place, never a key', () => {
    const after = structuredClone(before) as typeof before & { budgets?: unknown[] };
    after.listen_port = 11500;
    after.providers[0]!.enabled = true;
    after.providers[0]!.api_key = 'sk-****wxyz';
    after.providers.splice(1, 1);
    after.routing.rules.unshift({ pattern: 'claude-*', provider: 'anthropic' });
    expect(configDiff(before, after)).toEqual([
      { field: 'listen_port', before: '11434', after: '11500' },
      { field: 'providers "openai".api_key', before: '(a key)', after: '(another key)' },
      { field: 'providers "openai".enabled', before: 'false', after: 'true' },
      { field: 'providers "local".name', before: '"local"', after: '(not set)' },
      { field: 'providers "local".base_url', before: '"http://127.0.0.1:11435"', after: '(not set)' },
      { field: 'providers "local".api_key', before: '(a key)', after: '(not set)' },
      { field: 'routing.rules 1.pattern', before: '"gpt-*"', after: '"claude-*"' },
      { field: 'routing.rules 1.provider', before: '"openai"', after: '"anthropic"' },
      { field: 'routing.rules 2.pattern', before: '(not set)', after: '"gpt-*"' },
      { field: 'routing.rules 2.provider', before: '(not set)', after: '"openai"' },
    ]);
    expect(JSON.stringify(configDiff(before, after))).not.toMatch(/abcd|wxyz/);
    expect(configDiff(before, structuredClone(before))).toEqual([]);
  });
});
