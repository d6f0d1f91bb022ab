// Routing: ordered rules (reorder, add, remove), the default provider, and a tester that explains a route.
import { useEffect, useState } from 'react';
import type { RouteExplanation } from '../../shared/admin.ts';
import type { ConfigInput, RoutingRule } from '../../shared/config.ts';
import { Problems } from '../components/Problems.tsx';
import { failureText } from '../store/config.ts';
import { useApi, useApp, useAppStore } from '../store/react.ts';

export function RoutingPage() {
  const store = useAppStore();
  const api = useApi();
  const doc = useApp((s) => s.configDoc);
  const cfg = (doc?.config ?? {}) as ConfigInput;
  const providerNames = (cfg.providers ?? []).map((p) => p.name);
  const [rules, setRules] = useState<RoutingRule[]>([]);
  const [defaultProvider, setDefaultProvider] = useState('');
  const [problems, setProblems] = useState<string[] | null>(null);
  const [saved, setSaved] = useState(false);
  const [newRule, setNewRule] = useState<RoutingRule>({ pattern: '', provider: '' });
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
    const next = store.getState().currentConfig();
    next.routing = { default_provider: defaultProvider, rules };
    const r = await store.getState().saveConfig(next);
    setProblems(r.ok ? null : r.messages);
    setSaved(r.ok);
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
              <button className="danger" onClick={() => setRules(rules.filter((_, k) => k !== i))}>
                Remove
              </button>
            </span>
          </li>
        ))}
      </ol>
      <div className="row">
        <input
          placeholder="pattern, e.g. gpt-*"
          value={newRule.pattern}
          onChange={(e) => setNewRule({ ...newRule, pattern: e.target.value })}
          data-testid="new-rule-pattern"
        />
        <select
          value={newRule.provider}
          onChange={(e) => setNewRule({ ...newRule, provider: e.target.value })}
          data-testid="new-rule-provider"
        >
          <option value="">provider…</option>
          {providerNames.map((n) => (
            <option key={n}>{n}</option>
          ))}
        </select>
        <button
          onClick={() => {
            setRules([...rules, newRule]);
            setNewRule({ pattern: '', provider: '' });
          }}
        >
          Add rule
        </button>
      </div>
      <label>
        Default provider
        <select
          value={defaultProvider}
          onChange={(e) => setDefaultProvider(e.target.value)}
          data-testid="default-provider"
        >
          <option value="">(none)</option>
          {providerNames.map((n) => (
            <option key={n}>{n}</option>
          ))}
        </select>
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
        {testError && <div className="error">{testError}</div>}
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
