// Config problems next to the page's fields, in words (issue 15): the shared schema's real problems, mapped by path.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../shared/config.ts';
import { type FieldRule, fieldErrors, problemInWords } from './field-errors.ts';

const providers = [
  { name: 'alpha', base_url: 'http://127.0.0.1:1/v1' },
  { name: 'beta', base_url: 'http://127.0.0.1:2/v1' },
];
const problemsOf = (input: unknown) => {
  const r = parseConfig(input);
  if (r.ok) throw new Error('expected problems');
  return r.problems;
};
const providerForm = (i: number): FieldRule[] =>
  (['name', 'base_url'] as const).map((f) => ({
    path: new RegExp(`^providers\\[${i}\\]\\.${f}$`),
    key: () => `provider-${f}`,
    label: f === 'name' ? 'Name' : 'Base URL',
  }));

describe('fieldErrors', () => {
  it('puts a duplicate provider name next to the form\'s Name, in words, not "providers[2].name" or zod\'s text', () => {
    const problems = problemsOf({ providers: [...providers, { name: 'alpha', base_url: 'localhost:8080' }] });
    const { fields, rest } = fieldErrors(problems, providerForm(2));
    expect(fields).toEqual({
      'provider-name': 'Name is already used by another provider.',
      'provider-base_url':
        'Base URL must be a full http:// or https:// address, e.g. "https://api.openai.com/v1" or "http://127.0.0.1:8080/v1".',
    });
    expect(rest).toEqual([]);
    expect(Object.values(fields).join(' ')).not.toContain('providers[');
  });

  it("keeps the problems no field of the page shows for the page's list", () => {
    const problems = problemsOf({
      providers,
      listen_port: 70000,
      routing: { rules: [{ pattern: '', provider: 'x' }] },
    });
    const rules: FieldRule[] = [
      { path: /^routing\.rules\[(\d+)\]\.pattern$/, key: (m) => `rule-${m[1]}-pattern`, label: 'Pattern' },
      { path: /^routing\.rules\[(\d+)\]\.provider$/, key: (m) => `rule-${m[1]}-provider`, label: 'Provider' },
    ];
    const { fields, rest } = fieldErrors(problems, rules);
    expect(fields['rule-0-pattern']).toBe('Pattern must not be empty (use "*" to match every model).');
    expect(fields['rule-0-provider']).toBe('No provider is named "x": pick one of alpha, beta.');
    expect(rest.map((p) => p.path)).toEqual(['listen_port']);
  });

  it('says a second rule for the same app in words, naming the first', () => {
    const problems = problemsOf({
      providers,
      app_rules: [
        { app: 'cursor', default_provider: 'alpha' },
        { app: 'Cursor', default_provider: 'beta' },
      ],
    });
    const { fields } = fieldErrors(problems, [
      { path: /^app_rules\[(\d+)\]\.app$/, key: (m) => `app-${m[1]}-app`, label: 'App' },
    ]);
    expect(fields).toEqual({
      'app-1-app': '"Cursor" is the same app as the rule for "cursor" (app names ignore case): edit that rule instead.',
    });
  });

  it('words a port that is not a number or out of range', () => {
    const port: FieldRule[] = [{ path: /^listen_port$/, key: () => 'port', label: 'The port' }];
    expect(fieldErrors(problemsOf({ listen_port: 'abc' }), port).fields.port).toBe('The port must be a number.');
    expect(fieldErrors(problemsOf({ listen_port: 70000 }), port).fields.port).toBe(
      'The port must be between 1 and 65535.',
    );
  });

  it("falls back to the label and the schema's words for a message it has no words of its own for", () => {
    expect(problemInWords('Name', { path: 'providers[0].name', value: 'a b', message: 'may use letters only' })).toBe(
      'Name may use letters only.',
    );
  });
});
