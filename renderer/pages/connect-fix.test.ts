// The fix Connect offers for a model that would not reach its provider: enable it when it has a key (or is local),
// set it up from its preset when it has none, send the pattern to an enabled provider of that service, or add it.
import { describe, expect, it } from 'vitest';
import { type ConfigInput, parseConfig } from '../../shared/config.ts';
import type { RouteProblem } from '../../shared/connect.ts';
import { applyFix, fixFor } from './connect-fix.ts';

const disabled: RouteProblem = {
  kind: 'disabled',
  message: '…',
  provider: 'anthropic',
  preset: 'anthropic',
  pattern: 'claude-*',
};
const cfg = (anthropic: object): ConfigInput => ({
  providers: [
    { name: 'openai', base_url: 'https://api.openai.com/v1', api_key: 'sk-****abcd' },
    { name: 'anthropic', type: 'anthropic', base_url: 'https://api.anthropic.com/v1', enabled: false, ...anthropic },
  ],
  routing: { default_provider: 'openai', rules: [{ pattern: 'claude-*', provider: 'anthropic' }] },
});

describe("Connect's fix for a tool's model", () => {
  it('a disabled provider with a key: enable it (one save)', () => {
    const c = cfg({ api_key: 'sk-****wxyz' });
    const f = fixFor(disabled, c);
    expect(f).toEqual({ kind: 'enable', provider: 'anthropic', label: 'Enable "anthropic"' });
    applyFix(c, f);
    expect(c.providers![1]!.enabled).toBe(true);
  });
  it('a disabled provider without a key: set it up from its preset', () => {
    expect(fixFor(disabled, cfg({ api_key: '' }))).toEqual({
      kind: 'preset',
      preset: 'anthropic',
      label: 'Set up Anthropic (add its key)…',
    });
  });
  it("a model going to the wrong vendor, with Anthropic's API enabled under another name: route the pattern there", () => {
    const c = cfg({ name: 'claude-api', api_key: 'k', enabled: true });
    c.routing!.rules = [];
    const f = fixFor(
      { kind: 'wrong_vendor', message: '…', provider: 'openai', preset: 'anthropic', pattern: 'claude-*' },
      c,
    );
    expect(f).toEqual({
      kind: 'route',
      provider: 'claude-api',
      pattern: 'claude-*',
      label: 'Send claude-* to "claude-api"',
    });
    applyFix(c, f);
    expect(c.routing!.rules).toEqual([{ pattern: 'claude-*', provider: 'claude-api' }]);
    expect(parseConfig(c).ok).toBe(true);
  });
  it('no provider of that service: add it from its preset; nothing known: the Routing page', () => {
    const c: ConfigInput = { providers: [], routing: { default_provider: '', rules: [] } };
    expect(fixFor({ ...disabled, kind: 'no_route', provider: null }, c).kind).toBe('preset');
    expect(fixFor({ ...disabled, kind: 'no_route', provider: null, preset: null, pattern: null }, c)).toEqual({
      kind: 'routing',
      label: 'Open Routing',
    });
  });
});
