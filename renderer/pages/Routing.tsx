// Routing: ordered rules, editable in place (reorder, add, remove), the default provider, and a tester that explains
// the route of the rules on screen, saved or not, and the offline fallback (routing.offline: OfflineFallback.tsx), saved
// with them. Unsaved edits are marked; errors and warnings sit beside the rule or field.
import { useEffect, useMemo, useState } from 'react';
import type { RouteExplanation } from '../../shared/admin.ts';
import { type ConfigInput, type ProviderConfig, type RoutingRule, ruleProviders } from '../../shared/config.ts';
import { disabledFix } from './provider-text.ts';
import { ProviderChain } from '../components/ProviderChain.tsx';
import { ErrorLine, Select } from '../components/controls.tsx';
import type { FieldRule } from '../components/field-errors.ts';
import { FieldError, invalidProps, RuleWarnings, SavedLine, UnsavedMark } from '../components/fields.tsx';
import { Problems } from '../components/Problems.tsx';
import { failureText } from '../store/config.ts';
import { useApi, useAppStore } from '../store/react.ts';
import { checkConfig, useConfig, useConfigSave, useUnsaved } from './config-hooks.ts';
import { OfflineFallback } from './OfflineFallback.tsx';
import { offlineConfig, offlineDraft, offlineFields, type OfflineDraft, rowErrors } from './offline-draft.ts';

const FIELDS: FieldRule[] = [
  { path: /^routing\.rules\[(\d+)\]\.pattern$/, key: (m) => `rule-${m[1]}-pattern`, label: 'Pattern' },
  {
    path: /^routing\.rules\[(\d+)\]\.providers?(?:\[(\d+)\])?$/,
    key: (m) => `rule-${m[1]}-provider-${m[2] ?? 0}`,
    label: 'Provider',
  },
  { path: /^routing\.default_provider$/, key: () => 'default-provider', label: 'Default provider' },
];

/**
 * A rule as the page edits it: its pattern and its providers in order (primary first), and its other fields
 * (`strategy`, `continue_on_cut`: docs/routing.md "Routing strategies", "Mid-stream continuation") kept as they are.
 */
type RuleExtra = Omit<RoutingRule, 'pattern' | 'provider' | 'providers'>;
type DraftRule = { pattern: string; chain: string[]; extra?: RuleExtra };
const toDraft = (r: RoutingRule): DraftRule => {
  const { pattern, provider: _one, providers: _list, ...extra } = r;
  return Object.keys(extra).length > 0
    ? { pattern, chain: ruleProviders(r), extra }
    : { pattern, chain: ruleProviders(r) };
};
/** As config.json holds it: `provider` for one, `providers` for several (an empty pick stays, for the schema to say). */
const fromDraft = (r: DraftRule): RoutingRule => ({
  ...(r.chain.length === 1
    ? { pattern: r.pattern, provider: r.chain[0]! }
    : { pattern: r.pattern, providers: r.chain }),
  ...r.extra,
});
/** The strategy select's choices: none (as listed), or one of the strategies. */
const STRATEGY_CHOICES = [
  ['', 'as listed'],
  ['ordered', 'ordered, skip spent quotas'],
  ['cheapest', 'cheapest'],
  ['fastest', 'fastest'],
  ['balanced', 'balanced'],
] as const;
/** A rule's extra fields with `strategy` set (or removed for ''). */
const withStrategy = (extra: RuleExtra | undefined, v: string): RuleExtra | undefined => {
  const { strategy: _old, ...rest } = extra ?? {};
  const next: RuleExtra = v === '' ? rest : { ...rest, strategy: v as NonNullable<RuleExtra['strategy']> };
  return Object.keys(next).length > 0 ? next : undefined;
};
/** A rule's extra fields with `continue_on_cut` on (or removed). */
const withContinue = (extra: RuleExtra | undefined, on: boolean): RuleExtra | undefined => {
  const { continue_on_cut: _old, ...rest } = extra ?? {};
  const next: RuleExtra = on ? { ...rest, continue_on_cut: true } : rest;
  return Object.keys(next).length > 0 ? next : undefined;
};

export function RoutingPage() {
  const api = useApi();
  const store = useAppStore();
  const { doc, cfg, providerNames } = useConfig();
  const savedRules = useMemo(() => (cfg.routing?.rules ?? []).map(toDraft), [doc]); // eslint-disable-line react-hooks/exhaustive-deps
  const savedDefault = cfg.routing?.default_provider ?? '';
  const savedOffline = useMemo(() => offlineDraft(cfg.routing?.offline), [doc]); // eslint-disable-line react-hooks/exhaustive-deps
  const [rules, setRules] = useState<DraftRule[]>([]);
  const [defaultProvider, setDefaultProvider] = useState('');
  const [offline, setOffline] = useState<OfflineDraft>(savedOffline);
  /** The model map's rows that config.json cannot hold (a glob twice, none), found on Save. */
  const [offlineRows, setOfflineRows] = useState<Record<string, string>>({});
  const {
    problems,
    fieldErrors,
    revalidate,
    saved: savedAs,
    save: saveConfig,
  } = useConfigSave([...FIELDS, ...offlineFields(offline)], 'Routing');
  const [saved, setSaved] = useState(false);
  const [newRule, setNewRule] = useState({ pattern: '', provider: '' });
  const [addErrors, setAddErrors] = useState<Record<string, string>>({});
  const [testModel, setTestModel] = useState('');
  const [testApp, setTestApp] = useState('');
  /** The last explanation, and the rules it explained (to say whether they are saved: issue 34, bug 8). */
  const [explained, setExplained] = useState<(RouteExplanation & { rulesShown: string }) | null>(null);
  const [testError, setTestError] = useState<string | null>(null);

  /** The stored document the draft was last reset to (edits are compared with it only once it is). */
  const [draftOf, setDraftOf] = useState<typeof doc>(null);
  useEffect(() => {
    setRules(savedRules);
    setDefaultProvider(savedDefault);
    setOffline(savedOffline);
    setOfflineRows({});
    setDraftOf(doc);
    // Reset the draft whenever the stored config changes.
  }, [doc]); // eslint-disable-line react-hooks/exhaustive-deps

  const apply = (next: ConfigInput) => {
    // Any other routing field is kept as it is; routing.offline is left out when it was and nothing is set.
    const { offline: before, ...rest } = next.routing ?? {};
    const off = offlineConfig(offline, before);
    next.routing = {
      ...rest,
      default_provider: defaultProvider,
      rules: rules.map(fromDraft),
      ...(off !== undefined ? { offline: off } : {}),
    };
  };
  const drafts = { rules, defaultProvider, offline };
  const savedDrafts = { rules: savedRules, defaultProvider: savedDefault, offline: savedOffline };
  const dirty = doc !== null && draftOf === doc && JSON.stringify(drafts) !== JSON.stringify(savedDrafts);
  useUnsaved('routing', dirty);
  // An error goes as soon as its value is fixed; the warnings are those of the rules on screen.
  useEffect(() => revalidate(apply), [rules, defaultProvider, offline]); // eslint-disable-line react-hooks/exhaustive-deps
  useEffect(() => {
    if (Object.keys(offlineRows).length > 0) setOfflineRows(rowErrors(offline));
  }, [offline]); // eslint-disable-line react-hooks/exhaustive-deps
  const warnings = useMemo(() => {
    const next = store.getState().currentConfig();
    apply(next);
    return checkConfig(next).warnings;
  }, [rules, defaultProvider, offline, doc]); // eslint-disable-line react-hooks/exhaustive-deps
  const warningsAt = (path: string) => warnings.filter((w) => w.path === path);
  const warningsOfRule = (i: number) => warnings.filter((w) => w.path.startsWith(`routing.rules[${i}].`));
  const fixOf = (name: string) => disabledFix(name, (cfg.providers ?? []) as ProviderConfig[]);

  const edit = (next: DraftRule[]) => {
    setRules(next);
    setSaved(false);
  };
  const move = (i: number, by: -1 | 1) => {
    const next = [...rules];
    const j = i + by;
    if (j < 0 || j >= next.length) return;
    [next[i], next[j]] = [next[j]!, next[i]!];
    edit(next);
  };
  const change = (i: number, patch: Partial<DraftRule>) =>
    edit(rules.map((r, k) => (k === i ? { ...r, ...patch } : r)));

  const add = () => {
    const errors: Record<string, string> = {};
    if (newRule.pattern.trim() === '')
      errors['new-pattern'] = 'Type a model pattern, e.g. gpt-* (or * for every model).';
    if (newRule.provider === '') errors['new-provider'] = 'Pick the provider this rule sends to.';
    setAddErrors(errors);
    if (Object.keys(errors).length) return;
    edit([...rules, { pattern: newRule.pattern.trim(), chain: [newRule.provider] }]);
    setNewRule({ pattern: '', provider: '' });
  };

  const save = async () => {
    const rowsWrong = rowErrors(offline);
    setOfflineRows(rowsWrong);
    if (Object.keys(rowsWrong).length > 0) {
      setSaved(false);
      store.getState().announce('Not saved. Fix the fields marked in red.');
      return;
    }
    setSaved(await saveConfig(apply));
  };

  const explain = async () => {
    if (testModel.trim() === '') return setTestError('Type a model name to explain, e.g. gpt-4o.');
    const config = store.getState().currentConfig();
    apply(config);
    const r = await api.explainRoute({ model: testModel.trim(), app: testApp.trim() || null, config });
    if (r.ok) {
      setExplained({ ...r.data, rulesShown: JSON.stringify(drafts) });
      setTestError(null);
      const chain = r.data.candidates.map((c) => c.provider).join(', then ');
      store
        .getState()
        .announce(chain ? `Route for ${r.data.model}: ${chain}.` : `No provider can serve ${r.data.model}.`);
    } else {
      setExplained(null);
      const text = `The rules on screen cannot be explained: ${failureText(r.failure).join(' ')}`;
      setTestError(text);
      store.getState().announce(text);
    }
  };

  return (
    <section data-testid="page-routing" aria-labelledby="routing-heading">
      <h2 id="routing-heading">
        Routing <UnsavedMark dirty={dirty} />
      </h2>
      <p className="hint">
        Each rule sends the models its pattern matches to its providers in order: the first is the primary, the others
        are its backups, tried in turn when it fails (reorder them with ↑ and ↓, or drag them by ⋮⋮). When several rules
        match, the first rule&apos;s providers come first. Patterns are globs (<span className="mono">*</span> matches
        anything) and ignore case.
      </p>
      <ol className="rules" aria-label="Routing rules">
        {rules.map((r, i) => (
          <li key={i} data-testid={`rule-${i}`}>
            <div className="rule-line">
              <input
                aria-label={`Pattern of rule ${i + 1}`}
                className="mono"
                value={r.pattern}
                onChange={(e) => change(i, { pattern: e.target.value })}
                data-testid={`rule-pattern-${i}`}
                {...invalidProps(`rule-${i}-pattern`, fieldErrors)}
              />
              <span aria-hidden="true">→</span>
              <ProviderChain
                rule={i}
                chain={r.chain}
                providerNames={providerNames}
                errors={fieldErrors}
                onChange={(chain) => change(i, { chain })}
              />
              <select
                aria-label={`How rule ${i + 1} chooses among its providers`}
                value={r.extra?.strategy ?? ''}
                onChange={(e) => change(i, { extra: withStrategy(r.extra, e.target.value) })}
                data-testid={`rule-strategy-${i}`}
              >
                {STRATEGY_CHOICES.map(([v, label]) => (
                  <option key={v} value={v}>
                    {label}
                  </option>
                ))}
              </select>
              <label className="small">
                <input
                  type="checkbox"
                  checked={r.extra?.continue_on_cut === true}
                  onChange={(e) => change(i, { extra: withContinue(r.extra, e.target.checked) })}
                  data-testid={`rule-continue-${i}`}
                />{' '}
                continue a cut stream
              </label>
              <span className="actions">
                <button
                  aria-label={`Move rule ${i + 1} up`}
                  data-testid={`rule-up-${i}`}
                  onClick={() => move(i, -1)}
                  disabled={i === 0}
                >
                  ↑
                </button>
                <button
                  aria-label={`Move rule ${i + 1} down`}
                  data-testid={`rule-down-${i}`}
                  onClick={() => move(i, 1)}
                  disabled={i === rules.length - 1}
                >
                  ↓
                </button>
                <button
                  className="danger"
                  aria-label={`Remove rule ${i + 1}`}
                  onClick={() => edit(rules.filter((_, k) => k !== i))}
                >
                  Remove
                </button>
              </span>
            </div>
            <FieldError field={`rule-${i}-pattern`} errors={fieldErrors} />
            {r.chain.map((_, j) => (
              <FieldError key={j} field={`rule-${i}-provider-${j}`} errors={fieldErrors} />
            ))}
            <RuleWarnings warnings={warningsOfRule(i)} testId={`rule-warning-${i}`} fix={fixOf} />
          </li>
        ))}
      </ol>
      {rules.length === 0 && <p className="hint">No rules: every model goes to the default provider.</p>}
      <div className="row">
        <label>
          New rule pattern
          <input
            placeholder="e.g. gpt-*"
            value={newRule.pattern}
            onChange={(e) => setNewRule({ ...newRule, pattern: e.target.value })}
            data-testid="new-rule-pattern"
            {...invalidProps('new-pattern', addErrors)}
          />
        </label>
        <label>
          its provider
          <Select
            value={newRule.provider}
            onChange={(e) => setNewRule({ ...newRule, provider: e.target.value })}
            blank="provider…"
            options={providerNames}
            data-testid="new-rule-provider"
            {...invalidProps('new-provider', addErrors)}
          />
        </label>
        <button onClick={add} data-testid="add-rule">
          Add rule
        </button>
      </div>
      <FieldError field="new-pattern" errors={addErrors} />
      <FieldError field="new-provider" errors={addErrors} />
      <label>
        Default provider
        <Select
          value={defaultProvider}
          onChange={(e) => {
            setDefaultProvider(e.target.value);
            setSaved(false);
          }}
          blank="(none)"
          options={providerNames}
          data-testid="default-provider"
          {...invalidProps('default-provider', fieldErrors)}
        />
      </label>
      <FieldError field="default-provider" errors={fieldErrors} />
      <RuleWarnings warnings={warningsAt('routing.default_provider')} testId="default-provider-warning" fix={fixOf} />
      <OfflineFallback
        draft={offline}
        providers={cfg.providers ?? []}
        errors={{ ...fieldErrors, ...offlineRows }}
        onChange={(next) => {
          setOffline(next);
          setSaved(false);
        }}
      />
      <Problems
        messages={Object.keys(offlineRows).length > 0 ? ['Fix the fields marked in red.'] : problems}
        announced
      />
      <div className="row">
        <button onClick={() => void save()} data-testid="save-routing" disabled={!dirty}>
          Save routing
        </button>
        {dirty && (
          <button
            onClick={() => {
              setRules(savedRules);
              setDefaultProvider(savedDefault);
              setOffline(savedOffline);
              setOfflineRows({});
            }}
            data-testid="discard-routing"
          >
            Discard changes
          </button>
        )}
        {saved && !dirty && <SavedLine saved={savedAs} testId="routing-saved" />}
      </div>

      <div className="card">
        <h3>Route tester</h3>
        <p className="hint">Explains the rules on this page as they are now, saved or not; nothing is sent.</p>
        <form
          className="row"
          onSubmit={(e) => {
            e.preventDefault();
            void explain();
          }}
        >
          <label>
            Model
            <input
              placeholder="e.g. gpt-4o"
              value={testModel}
              onChange={(e) => setTestModel(e.target.value)}
              data-testid="tester-model"
            />
          </label>
          <label>
            App
            <input
              placeholder="optional, e.g. cursor"
              value={testApp}
              onChange={(e) => setTestApp(e.target.value)}
              data-testid="tester-app"
            />
          </label>
          <button type="submit" data-testid="tester-run">
            Explain
          </button>
        </form>
        <ErrorLine message={testError} testId="tester-error" />
        {explained && (
          <div data-testid="tester-result">
            <p>
              Model <span className="mono">{explained.model}</span>
              {explained.app_rule ? ` (app rule for ${explained.app_rule.app})` : ''}
              {explained.rulesShown !== JSON.stringify(savedDrafts)
                ? ' — with the edits on screen, not saved yet'
                : ' — with the rules as saved'}
            </p>
            <ol>
              {explained.decisions?.some((d) => d.strategy !== null || d.action === 'skip')
                ? // A strategy or a skipped provider: the order it gives now, each with why (docs/routing.md, "Routing strategies").
                  explained.decisions.map((d) => (
                    <li key={d.provider} data-testid="tester-candidate">
                      <strong>{d.provider}</strong> — {d.why}
                    </li>
                  ))
                : explained.candidates.map((c) => (
                    <li key={c.provider} data-testid="tester-candidate">
                      <strong>{c.provider}</strong> — {c.reason}
                    </li>
                  ))}
            </ol>
            {explained.candidates.length === 0 && <p className="error">No provider can serve this model.</p>}
            {explained.skipped.length > 0 && (
              <p className="small">Skipped: {explained.skipped.map((s) => `${s.provider} (${s.reason})`).join(', ')}</p>
            )}
            <details>
              <summary>Why</summary>
              <ul>
                {explained.steps.map((s, i) => (
                  <li key={i}>{s}</li>
                ))}
              </ul>
            </details>
          </div>
        )}
      </div>
    </section>
  );
}
