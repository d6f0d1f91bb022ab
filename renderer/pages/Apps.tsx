// Apps: the app_rules editor (rules editable in place, saved together), and apps seen in recent traffic with one
// click to start a rule. A rule may set a provider, a model override, or both; unsaved edits are marked; errors and
// warnings (a disabled provider) sit beside the rule.
import { useEffect, useMemo, useState } from 'react';
import { bareAppName } from '../../shared/app-name.ts';
import type { AppRule, ConfigInput, ProviderConfig } from '../../shared/config.ts';
import { disabledFix } from './provider-text.ts';
import { Form, Select, Table } from '../components/controls.tsx';
import type { FieldRule } from '../components/field-errors.ts';
import { FieldError, invalidProps, RuleWarnings, SavedLine, UnsavedMark } from '../components/fields.tsx';
import { Problems } from '../components/Problems.tsx';
import { useApp, useAppStore } from '../store/react.ts';
import { checkConfig, useConfig, useConfigSave, useUnsaved } from './config-hooks.ts';

const FIELDS: FieldRule[] = [
  { path: /^app_rules\[(\d+)\]\.app$/, key: (m) => `app-${m[1]}-app`, label: 'App' },
  { path: /^app_rules\[(\d+)\]\.default_provider$/, key: (m) => `app-${m[1]}-provider`, label: 'Provider' },
  { path: /^app_rules\[(\d+)\]\.model_override$/, key: (m) => `app-${m[1]}-override`, label: 'Model override' },
];

type Draft = { app: string; provider: string; override: string };
const EMPTY: Draft = { app: '', provider: '', override: '' };

/** A rule as config.json holds it: a field left empty is left out. */
const toRule = (d: Draft): AppRule => ({
  app: d.app.trim(),
  ...(d.provider ? { default_provider: d.provider } : {}),
  ...(d.override.trim() ? { model_override: d.override.trim() } : {}),
});

export function AppsPage() {
  const store = useAppStore();
  const { doc, cfg, providerNames } = useConfig();
  const logs = useApp((s) => s.logs);
  const savedRules = cfg.app_rules ?? [];
  const [rules, setRules] = useState<AppRule[]>([]);
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [addErrors, setAddErrors] = useState<Record<string, string>>({});
  const [saved, setSaved] = useState(false);
  const { problems, fieldErrors, revalidate, saved: savedAs, save: saveConfig } = useConfigSave(FIELDS, 'App rules');

  /** The stored document the draft was last reset to (edits are compared with it only once it is). */
  const [draftOf, setDraftOf] = useState<typeof doc>(null);
  useEffect(() => {
    setRules(savedRules);
    setDraftOf(doc);
  }, [doc]); // eslint-disable-line react-hooks/exhaustive-deps
  const apply = (next: ConfigInput) => {
    next.app_rules = rules;
  };
  const dirty = doc !== null && draftOf === doc && JSON.stringify(rules) !== JSON.stringify(savedRules);
  useUnsaved('apps', dirty);
  useEffect(() => revalidate(apply), [rules]); // eslint-disable-line react-hooks/exhaustive-deps
  const warnings = useMemo(() => {
    const next = store.getState().currentConfig();
    apply(next);
    return checkConfig(next).warnings;
  }, [rules, doc]); // eslint-disable-line react-hooks/exhaustive-deps

  const seen = useMemo(() => {
    const ruled = new Set(rules.map((r) => bareAppName(r.app)));
    const counts = new Map<string, number>();
    for (const e of logs) if (e.app && !ruled.has(bareAppName(e.app))) counts.set(e.app, (counts.get(e.app) ?? 0) + 1);
    return [...counts.entries()].sort((a, b) => b[1] - a[1]);
  }, [logs, rules]);

  const edit = (next: AppRule[]) => {
    setRules(next);
    setSaved(false);
  };
  /** Edits rule `i` in place; a provider or override emptied is left out of the rule (as typed, not trimmed). */
  const change = (i: number, patch: Partial<Draft>) =>
    edit(
      rules.map((r, k) => {
        if (k !== i) return r;
        const provider = patch.provider ?? r.default_provider ?? '';
        const override = patch.override ?? r.model_override ?? '';
        return {
          app: patch.app ?? r.app,
          ...(provider ? { default_provider: provider } : {}),
          ...(override ? { model_override: override } : {}),
        };
      }),
    );

  const add = () => {
    const errors: Record<string, string> = {};
    const app = draft.app.trim();
    const same = rules.find((r) => bareAppName(r.app) === bareAppName(app));
    if (app === '') errors['new-app'] = "Type the app's name, e.g. cursor (or pick one seen in traffic below).";
    else if (same)
      errors['new-app'] =
        `There is already a rule for "${same.app}" (app names ignore case): edit it in the list above.`;
    if (!draft.provider && !draft.override.trim())
      errors['new-provider'] = 'Pick a provider or type a model override: a rule with neither would do nothing.';
    setAddErrors(errors);
    if (Object.keys(errors).length) return;
    edit([...rules, toRule(draft)]);
    setDraft(EMPTY);
  };

  const save = async () => setSaved(await saveConfig(apply));

  return (
    <section data-testid="page-apps" aria-labelledby="apps-heading">
      <h2 id="apps-heading">
        Apps <UnsavedMark dirty={dirty} />
      </h2>
      <p className="hint">
        A rule for an app applies to its requests only: its model override rewrites the model before the routing rules;
        its provider is used when no routing rule matches (left empty, the routing rules and the default provider
        decide). App names ignore case, paths and .exe/.app.
      </p>
      <Table head={['app', 'provider', 'model override', <span className="sr-only">actions</span>]}>
        {rules.map((r, i) => (
          <tr key={i} data-testid={`app-rule-${i}`}>
            <td>
              <input
                aria-label={`App of rule ${i + 1}`}
                value={r.app}
                onChange={(e) => change(i, { app: e.target.value })}
                data-testid={`app-rule-app-${i}`}
                {...invalidProps(`app-${i}-app`, fieldErrors)}
              />
              <FieldError field={`app-${i}-app`} errors={fieldErrors} />
            </td>
            <td>
              <Select
                aria-label={`Provider of the rule for ${r.app || `rule ${i + 1}`}`}
                value={r.default_provider ?? ''}
                onChange={(e) => change(i, { provider: e.target.value })}
                blank="(rules decide)"
                options={
                  !r.default_provider || providerNames.includes(r.default_provider)
                    ? providerNames
                    : [...providerNames, r.default_provider]
                }
                data-testid={`app-rule-provider-${i}`}
                {...invalidProps(`app-${i}-provider`, fieldErrors)}
              />
              <FieldError field={`app-${i}-provider`} errors={fieldErrors} />
              <RuleWarnings
                warnings={warnings.filter((w) => w.path === `app_rules[${i}].default_provider`)}
                testId={`app-rule-warning-${i}`}
                fix={(name) => disabledFix(name, (cfg.providers ?? []) as ProviderConfig[])}
              />
            </td>
            <td>
              <input
                aria-label={`Model override of the rule for ${r.app || `rule ${i + 1}`}`}
                className="mono"
                placeholder="(none)"
                value={r.model_override ?? ''}
                onChange={(e) => change(i, { override: e.target.value })}
                data-testid={`app-rule-override-${i}`}
                {...invalidProps(`app-${i}-override`, fieldErrors)}
              />
              <FieldError field={`app-${i}-override`} errors={fieldErrors} />
            </td>
            <td>
              <button
                className="danger"
                aria-label={`Remove the rule for ${r.app || `rule ${i + 1}`}`}
                onClick={() => edit(rules.filter((_, k) => k !== i))}
              >
                Remove
              </button>
            </td>
          </tr>
        ))}
      </Table>
      {rules.length === 0 && <p className="hint">No app rules yet.</p>}
      <Form className="row" onSubmit={add} aria-label="New app rule">
        <label>
          App
          <input
            placeholder="e.g. cursor"
            value={draft.app}
            onChange={(e) => setDraft({ ...draft, app: e.target.value })}
            data-testid="app-rule-app"
            {...invalidProps('new-app', addErrors)}
          />
        </label>
        <label>
          Provider
          <Select
            value={draft.provider}
            onChange={(e) => setDraft({ ...draft, provider: e.target.value })}
            blank="(rules decide)"
            options={providerNames}
            data-testid="app-rule-provider"
            {...invalidProps('new-provider', addErrors)}
          />
        </label>
        <label>
          Model override
          <input
            placeholder="optional"
            value={draft.override}
            onChange={(e) => setDraft({ ...draft, override: e.target.value })}
            data-testid="app-rule-override"
          />
        </label>
        <button type="submit" data-testid="add-app-rule">
          Add app rule
        </button>
      </Form>
      <FieldError field="new-app" errors={addErrors} />
      <FieldError field="new-provider" errors={addErrors} />
      <Problems messages={problems} announced />
      <div className="row">
        <button onClick={() => void save()} disabled={!dirty} data-testid="save-apps">
          Save app rules
        </button>
        {dirty && (
          <button onClick={() => setRules(savedRules)} data-testid="discard-apps">
            Discard changes
          </button>
        )}
        {saved && !dirty && <SavedLine saved={savedAs} testId="apps-saved" />}
      </div>
      <h3>Seen in recent traffic</h3>
      {seen.length === 0 && <p className="hint">No apps without a rule in the recent log.</p>}
      <ul>
        {seen.map(([app, n]) => (
          <li key={app} data-testid="seen-app">
            {app} ({n} {n === 1 ? 'request' : 'requests'}){' '}
            <button
              aria-label={`Add rule for ${app}`}
              onClick={() => {
                // "(rules decide)": the app's requests keep going where they go now until a provider is picked
                // (issue 34, bug 5: it pre-filled the first provider, even a disabled one). Focus goes to the pick.
                setDraft({ app, provider: '', override: '' });
                setAddErrors({});
                requestAnimationFrame(() =>
                  document.querySelector<HTMLElement>('[data-testid=app-rule-provider]')?.focus(),
                );
              }}
            >
              Add rule
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
