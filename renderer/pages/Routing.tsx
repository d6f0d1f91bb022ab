// Routing: ordered rules (reorder, add, remove), the default provider, and a tester that explains a route.
import { useEffect, useState } from 'react';
import type { RouteExplanation } from '../../shared/admin.ts';
import type { RoutingRule } from '../../shared/config.ts';
import { DangerButton, ErrorLine, Select } from '../components/controls.tsx';
import { useDraft } from '../components/hooks.ts';
import { Problems } from '../components/Problems.tsx';
import { failureText } from '../store/config.ts';
import { useApi } from '../store/react.ts';
import { useConfig, useConfigSave } from './config-hooks.ts';

export function RoutingPage() {
  const api = useApi();
  const { doc, cfg, providerNames } = useConfig();
  const [rules, setRules] = useState<RoutingRule[]>([]);
  const [defaultProvider, setDefaultProvider] = useState('');
  const { problems, save: saveConfig } = useConfigSave();
  const [saved, setSaved] = useState(false);
  const newRule = useDraft<RoutingRule>({ pattern: '', provider: '' });
  const [testModel, setTestModel] = useState('');
  const [testApp, setTestApp] = useState('');
  const [explained, setExplained] = useState<RouteExplanation | null>(null);
  const [testError, setTestError] = useState<string | null>(null);

  useEffect(() => {
    setRules(cfg.routing?.rules ?? []);
    setDefaultProvider(cfg.routing?.default_provider ?? '');
    // Reset the draft whenever the stored config changes.
  }, [doc]); // eslint-disable-line react-hooks/exhaustive-deps

  const move = (i: number, by: -1 | 1) => {
    const next = [...rules];
    const j = i + by;
    if (j < 0 || j >= next.length) return;
    [next[i], next[j]] = [next[j]!, next[i]!];
    setRules(next);
    setSaved(false);
  };

  const save = async () => {
    const ok = await saveConfig((next) => {
      next.routing = { default_provider: defaultProvider, rules };
    });
    setSaved(ok);
  };

  const explain = async () => {
    const r = await api.explainRoute({ model: testModel, app: testApp || null });
    if (r.ok) {
      setExplained(r.data);
      setTestError(null);
    } else {
      setExplained(null);
      setTestError(failureText(r.failure).join(' '));
    }
  };

  return (
    <section data-testid="page-routing">
      <h2>Routing</h2>
      <p className="hint">
        Every rule whose pattern matches the model adds its provider, in this order: the first is the primary, the rest
        are backups.
      </p>
      <ol className="rules">
        {rules.map((r, i) => (
          <li key={`${r.pattern}-${r.provider}-${i}`} data-testid={`rule-${i}`}>
            <span className="mono">{r.pattern}</span> → <strong>{r.provider}</strong>
            <span className="actions">
              <button aria-label="move up" data-testid={`rule-up-${i}`} onClick={() => move(i, -1)} disabled={i === 0}>
                ↑
              </button>
              <button
                aria-label="move down"
                data-testid={`rule-down-${i}`}
                onClick={() => move(i, 1)}
                disabled={i === rules.length - 1}
              >
                ↓
              </button>
              <DangerButton onClick={() => setRules(rules.filter((_, k) => k !== i))}>Remove</DangerButton>
            </span>
          </li>
        ))}
      </ol>
      <div className="row">
        <input placeholder="pattern, e.g. gpt-*" {...newRule.text('pattern')} data-testid="new-rule-pattern" />
        <Select
          {...newRule.text('provider')}
          blank="provider…"
          options={providerNames}
          data-testid="new-rule-provider"
        />
        <button
          onClick={() => {
            setRules([...rules, newRule.draft]);
            newRule.reset();
          }}
        >
          Add rule
        </button>
      </div>
      <label>
        Default provider
        <Select
          value={defaultProvider}
          onChange={(e) => setDefaultProvider(e.target.value)}
          blank="(none)"
          options={providerNames}
          data-testid="default-provider"
        />
      </label>
      <Problems messages={problems} />
      <button onClick={() => void save()} data-testid="save-routing">
        Save routing
      </button>
      {saved && (
        <span className="ok" data-testid="routing-saved">
          {' '}
          Saved.
        </span>
      )}

      <div className="card">
        <h3>Route tester</h3>
        <div className="row">
          <input
            placeholder="model, e.g. gpt-4o"
            value={testModel}
            onChange={(e) => setTestModel(e.target.value)}
            data-testid="tester-model"
          />
          <input
            placeholder="app (optional)"
            value={testApp}
            onChange={(e) => setTestApp(e.target.value)}
            data-testid="tester-app"
          />
          <button onClick={() => void explain()} data-testid="tester-run">
            Explain
          </button>
        </div>
        <ErrorLine message={testError} />
        {explained && (
          <div data-testid="tester-result">
            <p>
              Model <span className="mono">{explained.model}</span>
              {explained.app_rule ? ` (app rule for ${explained.app_rule.app})` : ''}
            </p>
            <ol>
              {explained.candidates.map((c) => (
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
