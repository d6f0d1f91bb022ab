// Apps: the app_rules editor, and apps seen in recent traffic with one click to add a rule.
import { useMemo, useState } from 'react';
import type { AppRule, ConfigInput } from '../../shared/config.ts';
import { Problems } from '../components/Problems.tsx';
import { useApp, useAppStore } from '../store/react.ts';

export function AppsPage() {
  const store = useAppStore();
  const doc = useApp((s) => s.configDoc);
  const logs = useApp((s) => s.logs);
  const cfg = (doc?.config ?? {}) as ConfigInput;
  const rules = cfg.app_rules ?? [];
  const providerNames = (cfg.providers ?? []).map((p) => p.name);
  const [draft, setDraft] = useState<AppRule>({ app: '', default_provider: '' });
  const [problems, setProblems] = useState<string[] | null>(null);
  const seen = useMemo(() => {
    const ruled = new Set(rules.map((r) => r.app.toLowerCase()));
    const counts = new Map<string, number>();
    for (const e of logs) if (e.app && !ruled.has(e.app.toLowerCase())) counts.set(e.app, (counts.get(e.app) ?? 0) + 1);
    return [...counts.entries()].sort((a, b) => b[1] - a[1]);
  }, [logs, rules]);

  const save = async (next: AppRule[]) => {
    const c = store.getState().currentConfig();
    c.app_rules = next;
    const r = await store.getState().saveConfig(c);
    setProblems(r.ok ? null : r.messages);
    return r.ok;
  };

  return (
    <section data-testid="page-apps">
      <h2>Apps</h2>
      <table>
        <thead>
          <tr>
            <th>app</th>
            <th>default provider</th>
            <th>model override</th>
            <th></th>
          </tr>
        </thead>
        <tbody>
          {rules.map((r, i) => (
            <tr key={r.app}>
              <td>{r.app}</td>
              <td>{r.default_provider}</td>
              <td className="mono">{r.model_override ?? '—'}</td>
              <td>
                <button className="danger" onClick={() => void save(rules.filter((_, k) => k !== i))}>
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          const rule: AppRule = {
            app: draft.app,
            default_provider: draft.default_provider,
            ...(draft.model_override ? { model_override: draft.model_override } : {}),
          };
          void save([...rules, rule]).then((ok) => ok && setDraft({ app: '', default_provider: '' }));
        }}
      >
        <input
          placeholder="app"
          value={draft.app}
          onChange={(e) => setDraft({ ...draft, app: e.target.value })}
          data-testid="app-rule-app"
        />
        <select
          value={draft.default_provider}
          onChange={(e) => setDraft({ ...draft, default_provider: e.target.value })}
          data-testid="app-rule-provider"
        >
          <option value="">provider…</option>
          {providerNames.map((n) => (
            <option key={n}>{n}</option>
          ))}
        </select>
        <input
          placeholder="model override (optional)"
          value={draft.model_override ?? ''}
          onChange={(e) => setDraft({ ...draft, model_override: e.target.value || undefined })}
        />
        <button type="submit">Add app rule</button>
      </form>
      <Problems messages={problems} />
      <h3>Seen in recent traffic</h3>
      {seen.length === 0 && <p className="hint">No unruled apps in the recent log.</p>}
      <ul>
        {seen.map(([app, n]) => (
          <li key={app} data-testid="seen-app">
            {app} ({n} requests){' '}
            <button onClick={() => setDraft({ app, default_provider: providerNames[0] ?? '' })}>Add rule</button>
          </li>
        ))}
      </ul>
    </section>
  );
}
