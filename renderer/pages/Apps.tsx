// Apps: the app_rules editor, and apps seen in recent traffic with one click to add a rule.
import { useMemo } from 'react';
import type { AppRule } from '../../shared/config.ts';
import { DangerButton, Form, Select, Table } from '../components/controls.tsx';
import { useDraft } from '../components/hooks.ts';
import { Problems } from '../components/Problems.tsx';
import { useApp } from '../store/react.ts';
import { useConfig, useConfigSave } from './config-hooks.ts';

export function AppsPage() {
  const { cfg, providerNames } = useConfig();
  const logs = useApp((s) => s.logs);
  const rules = cfg.app_rules ?? [];
  const { draft, setDraft, reset, text } = useDraft<AppRule>({ app: '', default_provider: '' });
  const { problems, save: saveConfig } = useConfigSave();
  const seen = useMemo(() => {
    const ruled = new Set(rules.map((r) => r.app.toLowerCase()));
    const counts = new Map<string, number>();
    for (const e of logs) if (e.app && !ruled.has(e.app.toLowerCase())) counts.set(e.app, (counts.get(e.app) ?? 0) + 1);
    return [...counts.entries()].sort((a, b) => b[1] - a[1]);
  }, [logs, rules]);

  const save = (next: AppRule[]) =>
    saveConfig((c) => {
      c.app_rules = next;
    });

  return (
    <section data-testid="page-apps">
      <h2>Apps</h2>
      <Table head={['app', 'default provider', 'model override', '']}>
        {rules.map((r, i) => (
          <tr key={r.app}>
            <td>{r.app}</td>
            <td>{r.default_provider}</td>
            <td className="mono">{r.model_override ?? '—'}</td>
            <td>
              <DangerButton onClick={() => void save(rules.filter((_, k) => k !== i))}>Remove</DangerButton>
            </td>
          </tr>
        ))}
      </Table>
      <Form
        className="row"
        onSubmit={() => {
          const rule: AppRule = {
            app: draft.app,
            default_provider: draft.default_provider,
            ...(draft.model_override ? { model_override: draft.model_override } : {}),
          };
          void save([...rules, rule]).then((ok) => ok && reset());
        }}
      >
        <input placeholder="app" {...text('app')} data-testid="app-rule-app" />
        <Select
          {...text('default_provider')}
          blank="provider…"
          options={providerNames}
          data-testid="app-rule-provider"
        />
        <input
          placeholder="model override (optional)"
          value={draft.model_override ?? ''}
          onChange={(e) => setDraft({ ...draft, model_override: e.target.value || undefined })}
        />
        <button type="submit">Add app rule</button>
      </Form>
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
