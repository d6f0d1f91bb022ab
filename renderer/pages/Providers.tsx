// Providers: live state, circuit breaker and its cool-down, last error, latency; add, edit, enable/disable, delete,
// test connection (a new or changed provider is tested at once after its save). Renaming or deleting a provider that
// rules use offers to rename or remove those rules too. Keys stay masked. A provider holds one key or a pool of keys
// (api_keys, docs/routing.md "Key pools"): the form switches between them, moving the key(s) across, and edits the pool.
import { useEffect, useState } from 'react';
import type { ConfigInput, ProviderConfig } from '../../shared/config.ts';
import { isMaskedKey, maskKey, PROVIDER_TYPES } from '../../shared/config.ts';
import { Address, Checkbox, Form, Select } from '../components/controls.tsx';
import type { FieldRule } from '../components/field-errors.ts';
import { FieldError, invalidProps, UnsavedMark } from '../components/fields.tsx';
import { useDraft } from '../components/hooks.ts';
import { Problems } from '../components/Problems.tsx';
import { useApi, useApp, useAppStore } from '../store/react.ts';
import { useConfig, useConfigSave, useUnsaved } from './config-hooks.ts';
import { providerRefs, removeProviderRefs, renameProviderRefs } from './provider-refs.ts';
import { circuitText, testText } from './provider-text.ts';
import { PresetForm, PresetGallery, presetFromHash } from './Presets.tsx';
import { presetById } from '../../shared/presets.ts';
import type { PriceOverride } from '../../shared/usage.ts';
import { PriceForm } from './PriceSettings.tsx';
import { draftFromPrice, EMPTY_PRICE, providerPriceText } from './price-text.ts';

/**
 * The form. `pool`: the provider holds a pool of keys (`api_keys`, as read: masked, or typed in this form) instead of
 * one `api_key`; `new_key` is the pool's Add field (a key typed there and not added yet is added on Save).
 */
type Draft = {
  name: string;
  type: string;
  base_url: string;
  api_key: string;
  pool: boolean;
  api_keys: string[];
  new_key: string;
  enabled: boolean;
};
const EMPTY: Draft = {
  name: '',
  type: 'openai',
  base_url: '',
  api_key: '',
  pool: false,
  api_keys: [],
  new_key: '',
  enabled: true,
};
/** Each provider type in words: the wire format Switchboard speaks to it. */
const TYPE_WORDS: Record<string, string> = {
  openai: 'OpenAI-compatible API',
  anthropic: 'Anthropic Messages API',
  gemini: 'Gemini API',
  ollama: 'Ollama API',
};
const FORM_FIELDS = ['name', 'type', 'base_url', 'api_key', 'enabled'] as const;
const LABELS: Record<(typeof FORM_FIELDS)[number], string> = {
  name: 'Name',
  type: 'Type',
  base_url: 'Base URL',
  api_key: 'API key',
  enabled: 'Enabled',
};

/**
 * The form's fields for the provider at `index` of the list (the one being edited, or the new one at the end): the pool
 * as a whole (`api_keys`: none, a key twice, both set) and each of its keys (`api_keys[2]`) are said at the pool.
 */
const formFields = (index: number): FieldRule[] => [
  ...FORM_FIELDS.map((f) => ({
    path: new RegExp(`^providers\\[${index}\\]\\.${f}$`),
    key: () => `provider-${f}`,
    label: LABELS[f],
  })),
  {
    path: new RegExp(`^providers\\[${index}\\]\\.api_keys\\[(\\d+)\\]$`),
    key: () => 'provider-api_keys',
    label: 'A key of the pool',
  },
  { path: new RegExp(`^providers\\[${index}\\]\\.api_keys$`), key: () => 'provider-api_keys', label: 'The pool' },
];

const toDraft = (p: ProviderConfig): Draft => ({
  name: p.name,
  type: p.type ?? 'openai',
  base_url: p.base_url,
  api_key: p.api_keys ? '' : (p.api_key ?? ''),
  pool: p.api_keys !== undefined,
  api_keys: p.api_keys ?? [],
  new_key: '',
  enabled: p.enabled !== false,
});

/** A key of the pool as shown: masked (as read, or masked here when typed in this form). */
const shownKey = (k: string): string => (isMaskedKey(k) ? k : maskKey(k));

/** The pool's keys on Save: the listed ones, and the one typed in its Add field when there is one. */
const poolKeys = (d: Draft): string[] => (d.new_key.trim() ? [...d.api_keys, d.new_key.trim()] : d.api_keys);

/**
 * The draft switched to a pool (`pool`) or to one key, the key(s) moved across (api_key and api_keys are never both
 * set): one key → a pool holding it (none when it was empty); a pool of one key → that key. A pool of several keys
 * does not switch (the form offers it only once one key is left).
 */
function switchKeys(d: Draft, pool: boolean): Draft {
  if (pool === d.pool) return d;
  if (pool) return { ...d, pool, api_keys: d.api_key ? [d.api_key] : [], api_key: '', new_key: '' };
  const keys = poolKeys(d);
  if (keys.length > 1) return d;
  return { ...d, pool, api_key: keys[0] ?? '', api_keys: [], new_key: '' };
}

/** A provider on this machine (free unless priced): type ollama, or a loopback address. */
function isLocal(p: ProviderConfig): boolean {
  if (p.type === 'ollama') return true;
  try {
    return ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(p.base_url).hostname);
  } catch {
    return false;
  }
}

/** A second's tick, for the cool-downs. */
function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  return now;
}

/** The preset whose form the address opens (#/providers/add/<id>), following the address as it changes. */
function usePresetRoute(): [string | null, () => void] {
  const [id, setId] = useState(() => presetFromHash(window.location.hash));
  useEffect(() => {
    const on = () => setId(presetFromHash(window.location.hash));
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  return [id, () => void (window.location.hash = '#/providers')];
}

export function ProvidersPage() {
  const store = useAppStore();
  const api = useApi();
  const { doc, cfg } = useConfig();
  const [presetId, closePreset] = usePresetRoute();
  const preset = presetId ? presetById(presetId) : undefined;
  const status = useApp((s) => s.status);
  const now = useNow();
  const [editing, setEditing] = useState<string | null>(null); // provider name, '' for a new one
  const [opened, setOpened] = useState<Draft>(EMPTY);
  const { draft, setDraft, text, flag } = useDraft<Draft>(EMPTY);
  const [tests, setTests] = useState<Record<string, string>>({});
  /** The provider whose price form is open. */
  const [pricing, setPricing] = useState<string | null>(null);
  const prices = (cfg.prices ?? []) as PriceOverride[];

  const providers = (cfg.providers ?? []) as ProviderConfig[];
  const editIndex = editing ? providers.findIndex((p) => p.name === editing) : providers.length;
  const {
    problems,
    fieldErrors,
    revalidate,
    clear,
    save: saveConfig,
  } = useConfigSave(formFields(editIndex), 'Providers');
  const stateOf = (name: string) => status?.providers.find((p) => p.name === name);
  const dirty = editing !== null && JSON.stringify(draft) !== JSON.stringify(opened);
  useUnsaved('providers', dirty);

  /** The draft as a provider: its one key, or its pool (api_key then left out). */
  const entryOf = (d: Draft): ProviderConfig => {
    const { pool, api_keys: _keys, new_key: _new, api_key, ...rest } = d;
    const fields = { ...rest, type: d.type as ProviderConfig['type'] };
    return (pool ? { ...fields, api_keys: poolKeys(d) } : { ...fields, api_key }) as ProviderConfig;
  };
  /** The draft in the config: replacing the provider being edited, or added at the end. */
  const apply = (next: ConfigInput) => {
    const list = [...(next.providers ?? [])] as ProviderConfig[];
    const entry = entryOf(draft);
    if (editing) {
      const i = list.findIndex((p) => p.name === editing);
      const { api_key: _one, api_keys: _pool, ...kept } = list[i]!;
      list[i] = { ...kept, ...entry };
    } else list.push(entry);
    next.providers = list;
  };
  useEffect(() => {
    if (editing !== null) revalidate(apply);
  }, [draft]); // eslint-disable-line react-hooks/exhaustive-deps

  const test = async (name: string) => {
    setTests((t) => ({ ...t, [name]: 'testing…' }));
    const line = testText(await api.testProvider({ name }));
    setTests((t) => ({ ...t, [name]: line }));
    store.getState().announce(`Provider ${name}: ${line}.`);
    void store.getState().refreshStatus();
  };

  const submit = async () => {
    const renamed = editing && draft.name !== editing ? providerRefs(store.getState().currentConfig(), editing) : [];
    if (
      renamed.length > 0 &&
      !window.confirm(
        `"${editing}" is used by ${renamed.join(', ')}. Rename it there too, to "${draft.name}"? (Cancel: nothing is saved.)`,
      )
    )
      return;
    const before = editing ? providers.find((p) => p.name === editing) : undefined;
    const ok = await saveConfig((next) => {
      apply(next);
      if (renamed.length > 0) renameProviderRefs(next, editing!, draft.name);
    });
    if (!ok) return;
    setEditing(null);
    // A new provider, or one whose address or key(s) changed, is checked at once (not at the next health check).
    const entry = entryOf(draft);
    const changed =
      !before ||
      before.base_url !== draft.base_url ||
      (before.api_key ?? '') !== (entry.api_key ?? '') ||
      JSON.stringify(before.api_keys ?? null) !== JSON.stringify(entry.api_keys ?? null) ||
      before.name !== draft.name;
    if (draft.enabled && changed) void test(draft.name);
  };

  const remove = (name: string) => {
    const refs = providerRefs(store.getState().currentConfig(), name);
    const question = refs.length
      ? `Delete provider "${name}"? It is used by ${refs.join(', ')}: those are removed too (an app rule with a model override keeps the override).`
      : `Delete provider "${name}"?`;
    if (!window.confirm(question)) return;
    void saveConfig((next) => {
      next.providers = (next.providers ?? []).filter((q) => q.name !== name);
      removeProviderRefs(next, name);
    });
  };

  /** Opens the form on `name` ('' for a new provider) with `next` in it. */
  const edit = (name: string, next: Draft) => {
    setEditing(name);
    setDraft(next);
    setOpened(next);
    clear();
  };
  const cancel = () => {
    setEditing(null);
    clear();
  };

  return (
    <section data-testid="page-providers" aria-labelledby="providers-heading">
      <h2 id="providers-heading">
        Providers <UnsavedMark dirty={dirty} />
      </h2>
      {preset && doc && <PresetForm key={preset.id} preset={preset} onClose={closePreset} />}
      <ul className="provider-cards" aria-label="Providers">
        {providers.map((p) => {
          const st = stateOf(p.name);
          const state = p.enabled === false ? 'disabled' : (st?.state ?? 'unknown');
          return (
            <li key={p.name} className="provider-card" data-testid={`provider-${p.name}`}>
              <div className="provider-head">
                <span className="provider-name">{p.name}</span>
                <span className={`pill ${st?.state ?? 'unknown'}`} data-testid={`provider-state-${p.name}`}>
                  {state}
                </span>
                <span className="small">{TYPE_WORDS[p.type ?? 'openai']}</span>
              </div>
              <Address url={p.base_url} className="provider-url" testId={`provider-url-${p.name}`} />
              <dl className="facts">
                <dt>Key</dt>
                <dd className="mono nowrap" data-testid={`provider-key-${p.name}`}>
                  {p.api_keys?.length
                    ? `${p.api_keys.length} keys, sticky per session (api_keys: ${p.api_keys.join(', ')})`
                    : p.api_key || '(none)'}
                </dd>
                <dt>Circuit</dt>
                <dd className="small" data-testid={`provider-circuit-${p.name}`}>
                  {st && p.enabled !== false ? circuitText(st, now) : '—'}
                </dd>
                <dt>Latency</dt>
                <dd>{st?.last_latency_ms != null ? `${Math.round(st.last_latency_ms)} ms` : '—'}</dd>
                <dt>Price</dt>
                <dd className="small" data-testid={`provider-price-${p.name}`}>
                  {providerPriceText(p.name, prices, isLocal(p)).text}
                </dd>
                <dt>Last error or test</dt>
                <dd className="small wrap-anywhere" data-testid={`provider-test-${p.name}`}>
                  {tests[p.name] ?? st?.last_error ?? '—'}
                </dd>
              </dl>
              <div className="actions">
                <button aria-label={`Test ${p.name}`} onClick={() => void test(p.name)}>
                  Test
                </button>
                <button aria-label={`Edit ${p.name}`} onClick={() => edit(p.name, toDraft(p))}>
                  Edit
                </button>
                <button
                  aria-label={`${p.enabled === false ? 'Enable' : 'Disable'} ${p.name}`}
                  onClick={() =>
                    void saveConfig((next) => {
                      next.providers = (next.providers ?? []).map((q) =>
                        q.name === p.name ? { ...q, enabled: q.enabled === false } : q,
                      );
                    })
                  }
                >
                  {p.enabled === false ? 'Enable' : 'Disable'}
                </button>
                <button
                  aria-label={`Set the price of ${p.name}`}
                  onClick={() => setPricing(p.name)}
                  data-testid={`provider-set-price-${p.name}`}
                >
                  Price…
                </button>
                <button className="danger" aria-label={`Delete ${p.name}`} onClick={() => remove(p.name)}>
                  Delete
                </button>
              </div>
            </li>
          );
        })}
      </ul>
      {pricing !== null && (
        <>
          <h3>Price of {pricing}</h3>
          <PriceForm
            key={pricing}
            lockProvider
            index={providerPriceText(pricing, prices, false).index}
            initial={(() => {
              const at = providerPriceText(pricing, prices, false).index;
              return at >= 0 ? draftFromPrice(prices[at]!) : { ...EMPTY_PRICE, provider: pricing };
            })()}
            onDone={() => setPricing(null)}
          />
        </>
      )}
      {providers.length === 0 && <p className="hint">No providers yet: add one to route requests to it.</p>}
      {!preset && <PresetGallery />}
      {editing === null ? (
        <button data-testid="add-provider" onClick={() => edit('', EMPTY)}>
          Add another (any OpenAI-compatible, Anthropic, Gemini or Ollama API)
        </button>
      ) : (
        <Form
          className="card"
          data-testid="provider-form"
          aria-labelledby="provider-form-title"
          onSubmit={() => void submit()}
        >
          <h3 id="provider-form-title">{editing ? `Edit ${editing}` : 'New provider'}</h3>
          <label>
            Name <input name="name" {...text('name')} {...invalidProps('provider-name', fieldErrors)} />
          </label>
          <FieldError field="provider-name" errors={fieldErrors} />
          <label>
            Type
            <Select
              name="type"
              {...text('type')}
              options={PROVIDER_TYPES}
              {...invalidProps('provider-type', fieldErrors)}
            />
          </label>
          <FieldError field="provider-type" errors={fieldErrors} />
          <label>
            Base URL{' '}
            <input
              name="base_url"
              placeholder="https://api.openai.com/v1"
              {...text('base_url')}
              {...invalidProps('provider-base_url', fieldErrors)}
            />
          </label>
          <FieldError field="provider-base_url" errors={fieldErrors} />
          <KeysFields draft={draft} setDraft={setDraft} text={text} fieldErrors={fieldErrors} />
          <Checkbox name="enabled" {...flag('enabled')} label="enabled" row />
          <Problems messages={problems} announced />
          <div className="actions">
            <button type="submit" data-testid="save-provider">
              Save
            </button>
            <button type="button" onClick={cancel} data-testid="cancel-provider">
              Cancel
            </button>
          </div>
        </Form>
      )}
      {editing === null && <Problems messages={problems} announced />}
    </section>
  );
}

/**
 * The provider's key: one key, or a pool of keys (several keys of this provider used in turn, each conversation staying
 * on one key). The pool lists its keys masked (as the admin API sends them; a key typed here is masked too), each with
 * Remove, and a password field to add one.
 */
function KeysFields({
  draft,
  setDraft,
  text,
  fieldErrors,
}: {
  draft: Draft;
  setDraft: (change: (d: Draft) => Draft) => void;
  text: ReturnType<typeof useDraft<Draft>>['text'];
  fieldErrors: Record<string, string>;
}) {
  const several = poolKeys(draft).length > 1;
  const add = () => {
    if (draft.new_key.trim()) setDraft((d) => ({ ...d, api_keys: poolKeys(d), new_key: '' }));
  };
  return (
    <fieldset className="key-pool" data-testid="provider-keys">
      <legend>API key</legend>
      <label className="row key-mode">
        <input
          type="radio"
          name="key-mode"
          checked={!draft.pool}
          disabled={draft.pool && several}
          aria-describedby={draft.pool && several ? 'key-mode-hint' : undefined}
          onChange={() => setDraft((d) => switchKeys(d, false))}
          data-testid="key-mode-one"
        />
        <span>one key</span>
      </label>
      <label className="row key-mode">
        <input
          type="radio"
          name="key-mode"
          checked={draft.pool}
          onChange={() => setDraft((d) => switchKeys(d, true))}
          data-testid="key-mode-pool"
        />
        <span>a pool of keys (several keys of this provider, used in turn; each conversation stays on one key)</span>
      </label>
      {draft.pool && several && (
        <p className="hint" id="key-mode-hint">
          To go back to one key, remove keys until one is left.
        </p>
      )}
      {!draft.pool ? (
        <>
          <label>
            API key{' '}
            <input
              name="api_key"
              type="password"
              autoComplete="off"
              placeholder="sk-… or env:VAR"
              {...text('api_key')}
              {...invalidProps('provider-api_key', fieldErrors)}
            />
          </label>
          <FieldError field="provider-api_key" errors={fieldErrors} />
        </>
      ) : (
        <>
          <ol className="key-list" aria-label="Keys of the pool" data-testid="pool-keys">
            {draft.api_keys.map((k, i) => (
              <li key={`${i}-${k}`} data-testid={`pool-key-${i}`}>
                <span className="mono">{shownKey(k)}</span>
                <button
                  type="button"
                  aria-label={`Remove key ${i + 1} (${shownKey(k)})`}
                  onClick={() => setDraft((d) => ({ ...d, api_keys: d.api_keys.filter((_, j) => j !== i) }))}
                  data-testid={`pool-key-remove-${i}`}
                >
                  Remove
                </button>
              </li>
            ))}
          </ol>
          {draft.api_keys.length === 0 && <p className="hint">No keys yet: add at least one.</p>}
          <div className="row">
            <label>
              Add a key{' '}
              <input
                name="new_key"
                type="password"
                autoComplete="off"
                placeholder="sk-… or env:VAR"
                {...text('new_key')}
                {...invalidProps('provider-api_keys', fieldErrors)}
                onKeyDown={(e) => {
                  if (e.key === 'Enter') {
                    e.preventDefault();
                    add();
                  }
                }}
              />
            </label>
            <button type="button" onClick={add} disabled={!draft.new_key.trim()} data-testid="pool-key-add">
              Add key
            </button>
          </div>
          <FieldError field="provider-api_keys" errors={fieldErrors} />
        </>
      )}
    </fieldset>
  );
}
