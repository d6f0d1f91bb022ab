// Providers: live state, last error, latency; add, edit, enable/disable, delete, test connection. Keys stay masked.
import { useState } from 'react';
import type { ProviderConfig } from '../../shared/config.ts';
import { PROVIDER_TYPES } from '../../shared/config.ts';
import { Checkbox, DangerButton, Form, Select, Table } from '../components/controls.tsx';
import { useDraft } from '../components/hooks.ts';
import { Problems } from '../components/Problems.tsx';
import { useApi, useApp, useAppStore } from '../store/react.ts';
import { useConfig, useConfigSave } from './config-hooks.ts';

type Draft = { name: string; type: string; base_url: string; api_key: string; enabled: boolean };
const EMPTY: Draft = { name: '', type: 'openai', base_url: '', api_key: '', enabled: true };

export function ProvidersPage() {
  const store = useAppStore();
  const api = useApi();
  const { cfg } = useConfig();
  const status = useApp((s) => s.status);
  const [editing, setEditing] = useState<string | null>(null); // provider name, '' for a new one
  const { draft, setDraft, text, flag } = useDraft<Draft>(EMPTY);
  const { problems, setProblems, save: saveConfig } = useConfigSave();
  const [tests, setTests] = useState<Record<string, string>>({});

  const providers = (cfg.providers ?? []) as ProviderConfig[];
  const stateOf = (name: string) => status?.providers.find((p) => p.name === name);

  const save = (mutate: (list: ProviderConfig[]) => ProviderConfig[]) =>
    saveConfig((next) => {
      next.providers = mutate([...(next.providers ?? [])] as ProviderConfig[]);
    });

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

  /** Opens the form on `name` ('' for a new provider) with `next` in it. */
  const edit = (name: string, next: Draft) => {
    setEditing(name);
    setDraft(next);
    setProblems(null);
  };

  return (
    <section data-testid="page-providers">
      <h2>Providers</h2>
      <Table head={['name', 'base URL', 'key', 'state', 'latency', 'last error', '']}>
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
                  onClick={() =>
                    edit(p.name, {
                      name: p.name,
                      type: p.type ?? 'openai',
                      base_url: p.base_url,
                      api_key: p.api_key ?? '',
                      enabled: p.enabled !== false,
                    })
                  }
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
                <DangerButton
                  confirm={`Delete provider "${p.name}"?`}
                  onClick={() => void save((list) => list.filter((q) => q.name !== p.name))}
                >
                  Delete
                </DangerButton>
              </td>
            </tr>
          );
        })}
      </Table>
      {editing === null ? (
        <button data-testid="add-provider" onClick={() => edit('', EMPTY)}>
          Add provider
        </button>
      ) : (
        <Form className="card" data-testid="provider-form" onSubmit={() => void submit()}>
          <h3>{editing ? `Edit ${editing}` : 'New provider'}</h3>
          <label>
            Name <input name="name" {...text('name')} />
          </label>
          <label>
            Type
            <Select name="type" {...text('type')} options={PROVIDER_TYPES} />
          </label>
          <label>
            Base URL <input name="base_url" placeholder="https://api.openai.com/v1" {...text('base_url')} />
          </label>
          <label>
            API key{' '}
            <input
              name="api_key"
              type="password"
              autoComplete="off"
              placeholder="sk-… or env:VAR"
              {...text('api_key')}
            />
          </label>
          <Checkbox name="enabled" {...flag('enabled')} label="enabled" row />
          <Problems messages={problems} />
          <div className="actions">
            <button type="submit" data-testid="save-provider">
              Save
            </button>
            <button type="button" onClick={() => setEditing(null)}>
              Cancel
            </button>
          </div>
        </Form>
      )}
      {editing === null && <Problems messages={problems} />}
    </section>
  );
}
