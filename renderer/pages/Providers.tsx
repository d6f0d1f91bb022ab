// Providers: live state, last error, latency; add, edit, enable/disable, delete, test connection. Keys stay masked.
import { useState } from 'react';
import type { ProviderConfig } from '../../shared/config.ts';
import { PROVIDER_TYPES } from '../../shared/config.ts';
import { Problems } from '../components/Problems.tsx';
import { useApi, useApp, useAppStore } from '../store/react.ts';

type Draft = { name: string; type: string; base_url: string; api_key: string; enabled: boolean };
const EMPTY: Draft = { name: '', type: 'openai', base_url: '', api_key: '', enabled: true };

export function ProvidersPage() {
  const store = useAppStore();
  const api = useApi();
  const doc = useApp((s) => s.configDoc);
  const status = useApp((s) => s.status);
  const [editing, setEditing] = useState<string | null>(null); // provider name, '' for a new one
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [problems, setProblems] = useState<string[] | null>(null);
  const [tests, setTests] = useState<Record<string, string>>({});

  const providers = ((doc?.config as { providers?: ProviderConfig[] } | undefined)?.providers ??
    []) as ProviderConfig[];
  const stateOf = (name: string) => status?.providers.find((p) => p.name === name);

  const save = async (mutate: (list: ProviderConfig[]) => ProviderConfig[]) => {
    const next = store.getState().currentConfig();
    next.providers = mutate([...(next.providers ?? [])] as ProviderConfig[]);
    const r = await store.getState().saveConfig(next);
    setProblems(r.ok ? null : r.messages);
    return r.ok;
  };

  const submit = async () => {
    const entry = { ...draft, type: draft.type as ProviderConfig['type'] } as ProviderConfig;
    const ok = await save((list) => {
      if (editing) {
        const i = list.findIndex((p) => p.name === editing);
        list[i] = { ...list[i]!, ...entry };
        return list;
      }
      return [...list, entry];
    });
    if (ok) setEditing(null);
  };

  const test = async (name: string) => {
    setTests((t) => ({ ...t, [name]: 'testing…' }));
    const r = await api.testProvider({ name });
    const text = r.ok
      ? r.data.ok
        ? `ok in ${r.data.latency_ms} ms, ${r.data.models} models`
        : `failed: ${r.data.error}`
      : r.failure.error.message;
    setTests((t) => ({ ...t, [name]: text }));
    void store.getState().refreshStatus();
  };

  return (
    <section data-testid="page-providers">
      <h2>Providers</h2>
      <table>
        <thead>
          <tr>
            <th>name</th>
            <th>base URL</th>
            <th>key</th>
            <th>state</th>
            <th>latency</th>
            <th>last error</th>
            <th></th>
          </tr>
        </thead>
        <tbody>
          {providers.map((p) => {
            const st = stateOf(p.name);
            return (
              <tr key={p.name} data-testid={`provider-${p.name}`}>
                <td>{p.name}</td>
                <td>{p.base_url}</td>
                <td className="mono">{p.api_key || '(none)'}</td>
                <td>
                  <span className={`pill ${st?.state ?? 'unknown'}`} data-testid={`provider-state-${p.name}`}>
                    {p.enabled === false ? 'disabled' : (st?.state ?? 'unknown')}
                  </span>
                </td>
                <td>{st?.last_latency_ms != null ? `${Math.round(st.last_latency_ms)} ms` : '—'}</td>
                <td className="small">{tests[p.name] ?? st?.last_error ?? ''}</td>
                <td className="actions">
                  <button onClick={() => void test(p.name)}>Test</button>
                  <button
                    onClick={() => {
                      setEditing(p.name);
                      setDraft({
                        name: p.name,
                        type: p.type ?? 'openai',
                        base_url: p.base_url,
                        api_key: p.api_key ?? '',
                        enabled: p.enabled !== false,
                      });
                      setProblems(null);
                    }}
                  >
                    Edit
                  </button>
                  <button
                    onClick={() =>
                      void save((list) =>
                        list.map((q) => (q.name === p.name ? { ...q, enabled: q.enabled === false } : q)),
                      )
                    }
                  >
                    {p.enabled === false ? 'Enable' : 'Disable'}
                  </button>
                  <button
                    className="danger"
                    onClick={() => {
                      if (window.confirm(`Delete provider "${p.name}"?`))
                        void save((list) => list.filter((q) => q.name !== p.name));
                    }}
                  >
                    Delete
                  </button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {editing === null ? (
        <button
          data-testid="add-provider"
          onClick={() => {
            setEditing('');
            setDraft(EMPTY);
            setProblems(null);
          }}
        >
          Add provider
        </button>
      ) : (
        <form
          className="card"
          data-testid="provider-form"
          onSubmit={(e) => {
            e.preventDefault();
            void submit();
          }}
        >
          <h3>{editing ? `Edit ${editing}` : 'New provider'}</h3>
          <label>
            Name <input name="name" value={draft.name} onChange={(e) => setDraft({ ...draft, name: e.target.value })} />
          </label>
          <label>
            Type
            <select name="type" value={draft.type} onChange={(e) => setDraft({ ...draft, type: e.target.value })}>
              {PROVIDER_TYPES.map((t) => (
                <option key={t}>{t}</option>
              ))}
            </select>
          </label>
          <label>
            Base URL{' '}
            <input
              name="base_url"
              placeholder="https://api.openai.com/v1"
              value={draft.base_url}
              onChange={(e) => setDraft({ ...draft, base_url: e.target.value })}
            />
          </label>
          <label>
            API key{' '}
            <input
              name="api_key"
              type="password"
              autoComplete="off"
              placeholder="sk-… or env:VAR"
              value={draft.api_key}
              onChange={(e) => setDraft({ ...draft, api_key: e.target.value })}
            />
          </label>
          <label className="row">
            <input
              name="enabled"
              type="checkbox"
              checked={draft.enabled}
              onChange={(e) => setDraft({ ...draft, enabled: e.target.checked })}
            />{' '}
            enabled
          </label>
          <Problems messages={problems} />
          <div className="actions">
            <button type="submit" data-testid="save-provider">
              Save
            </button>
            <button type="button" onClick={() => setEditing(null)}>
              Cancel
            </button>
          </div>
        </form>
      )}
      {editing === null && <Problems messages={problems} />}
    </section>
  );
}
