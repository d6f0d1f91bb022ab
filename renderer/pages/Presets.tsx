// The provider presets (issue 34): a gallery of the usual services, local ones marked when they were found running,
// and the one-step form that adds one with its key, the routing rules for its models and, when offered, as the default
// provider; then its test and a first request through it ("Send a test request").
import { useEffect, useRef, useState } from 'react';
import type { DetectedService, ProviderPreset } from '../../shared/presets.ts';
import { PROVIDER_PRESETS } from '../../shared/presets.ts';
import type { TryResult } from '../../shared/connect.ts';
import { Checkbox, Form } from '../components/controls.tsx';
import { Problems } from '../components/Problems.tsx';
import { useApi, useApp, useAppStore } from '../store/react.ts';
import { useConfig, useConfigSave } from './config-hooks.ts';
import { applyPreset, presetPlan } from './preset-plan.ts';
import { testText } from './provider-text.ts';

/** The hash that opens the form of preset `id` on the Providers page. */
export const presetHash = (id: string) => `#/providers/add/${id}`;

/** The preset the address asks for (`#/providers/add/<id>`), or null. */
export function presetFromHash(hash: string): string | null {
  const m = /^#\/?providers\/add\/([a-z0-9-]+)$/.exec(hash);
  return m ? m[1]! : null;
}

/** The service found running for a local preset (the first address it answered at). */
export function useDetected(): (id: string) => DetectedService | undefined {
  const detected = useApp((s) => s.detected);
  return (id) => detected?.data.find((d) => d.preset === id);
}

/** The tiles: each preset with what it needs (a key, or where it was found running); a tile opens its form. */
export function PresetGallery({ heading = 'Add a provider' }: { heading?: string }) {
  const store = useAppStore();
  const found = useDetected();
  const detecting = useApp((s) => s.detecting);
  useEffect(() => void store.getState().detectLocal(), [store]);
  const tile = (p: ProviderPreset) => {
    const d = found(p.id);
    const sub = p.local
      ? d
        ? d.provider
          ? `running at ${d.base_url.replace(/^http:\/\//, '')}, added as "${d.provider}"`
          : `running at ${d.base_url.replace(/^http:\/\//, '')} (${d.label}, ${d.models.length} model${d.models.length === 1 ? '' : 's'})`
        : detecting
          ? 'looking for it on this machine…'
          : `not found running on port ${p.local.port}`
      : 'needs an API key';
    return (
      <li key={p.id}>
        <a
          href={presetHash(p.id)}
          className={`preset-tile ${d && !d.provider ? 'found' : ''}`}
          data-testid={`preset-${p.id}`}
        >
          <span className="preset-name">{p.name}</span>
          <span className="small">{sub}</span>
        </a>
      </li>
    );
  };
  return (
    <div className="presets" data-testid="preset-gallery">
      <h3>{heading}</h3>
      <p className="hint">Cloud services (you need a key from the vendor):</p>
      <ul className="preset-tiles" aria-label="Cloud providers">
        {PROVIDER_PRESETS.filter((p) => !p.local).map(tile)}
      </ul>
      <p className="hint">
        On this machine (found by asking their usual ports; Switchboard never takes a service&apos;s port — Ollama on
        11434 is added at the port it is on):
      </p>
      <ul className="preset-tiles" aria-label="Local providers">
        {PROVIDER_PRESETS.filter((p) => p.local).map(tile)}
      </ul>
    </div>
  );
}

/** After a preset was added: its test, and one request through it. */
function AddedPanel({ name, preset, model: firstModel }: { name: string; preset: ProviderPreset; model: string }) {
  const api = useApi();
  const store = useAppStore();
  const [test, setTest] = useState<string>('testing…');
  const [model, setModel] = useState(firstModel);
  const [sending, setSending] = useState(false);
  const [answer, setAnswer] = useState<TryResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    void api.testProvider({ name }).then((r) => {
      const line = testText(r);
      setTest(line);
      store.getState().announce(`${preset.name} added as ${name}. Its test: ${line}.`);
      void store.getState().refreshStatus();
    });
  }, [api, store, name, preset.name]);
  const send = async () => {
    setSending(true);
    const r = await store.getState().tryMessage({ model: model.trim(), message: 'Say hello in five words.' });
    setSending(false);
    setAnswer(r.ok ? r.result : null);
    setError(r.ok ? null : r.message);
    if (r.ok)
      store
        .getState()
        .announce(
          r.result.ok
            ? `Answered by ${r.result.provider ?? 'no provider'}: ${r.result.answer}`
            : `Not answered (${r.result.status}): ${r.result.answer}`,
        );
  };
  return (
    <div className="card" data-testid="preset-added" role="region" aria-label={`${preset.name} added`}>
      <h3>
        {preset.name} is set up as &quot;{name}&quot;
      </h3>
      <p data-testid="preset-test">Test: {test}</p>
      <Form className="row" onSubmit={() => void send()} aria-label="Send a test request">
        <label>
          Model <input value={model} onChange={(e) => setModel(e.target.value)} data-testid="preset-try-model" />
        </label>
        <button type="submit" disabled={sending || !model.trim()} data-testid="preset-try">
          {sending ? 'Sending…' : 'Send a test request'}
        </button>
      </Form>
      {error && <p className="error">{error}</p>}
      {answer && (
        <p className={answer.ok ? 'ok' : 'error'} data-testid="preset-try-answer">
          {answer.ok
            ? `Answered by ${answer.provider ?? '?'} (${answer.model ?? model}): ${answer.answer}`
            : `Not answered (${answer.status}): ${answer.answer}`}
        </p>
      )}
      <p className="hint">
        Next: <a href="#/connect">point your tools at Switchboard</a> (Connect), or{' '}
        <a href="#/routing">see the routing rules</a>.
      </p>
    </div>
  );
}

/** The one-step form of a preset: name, address, key, the rules for its models, the default provider. */
export function PresetForm({ preset, onClose }: { preset: ProviderPreset; onClose: () => void }) {
  const { cfg } = useConfig();
  const found = useDetected()(preset.id);
  const plan = presetPlan(cfg, preset, found);
  const [name, setName] = useState(plan.name);
  const [baseUrl, setBaseUrl] = useState(plan.base_url);
  const [key, setKey] = useState('');
  const [ticked, setTicked] = useState<string[]>(plan.rules.map((r) => r.pattern));
  const [makeDefault, setMakeDefault] = useState(plan.defaultTicked);
  const [added, setAdded] = useState<string | null>(null);
  const { problems, save } = useConfigSave([], preset.name);
  const first = useRef<HTMLInputElement>(null);
  useEffect(() => first.current?.focus(), [preset.id]);

  if (added) return <AddedPanel name={added} preset={preset} model={found?.models[0] ?? preset.try_model} />;

  const submit = async () => {
    const ok = await save((next) =>
      applyPreset(next, { preset, name: name.trim(), base_url: baseUrl, key, patterns: ticked, makeDefault }),
    );
    if (ok) setAdded(name.trim());
  };
  const verb = plan.updates ? 'Set up' : 'Add';
  return (
    <Form
      className="card preset-form"
      data-testid="preset-form"
      aria-labelledby="preset-form-title"
      onSubmit={() => void submit()}
    >
      <h3 id="preset-form-title">
        {verb} {preset.name}
      </h3>
      {plan.updates && (
        <p className="hint">
          Switchboard already has a provider &quot;{plan.updates}&quot; for it
          {plan.keyStored ? ' with a key' : ', not set up yet'}: this sets it up and enables it.
        </p>
      )}
      {found && (
        <p className="hint" data-testid="preset-found">
          Found {found.label} at {found.base_url}
          {found.models.length ? ` with ${found.models.length} model${found.models.length === 1 ? '' : 's'}` : ''}.
        </p>
      )}
      <label>
        Name{' '}
        <input
          value={name}
          onChange={(e) => setName(e.target.value)}
          data-testid="preset-name"
          ref={preset.key ? undefined : first}
        />
      </label>
      <label>
        Base URL{' '}
        <input
          value={baseUrl}
          onChange={(e) => setBaseUrl(e.target.value)}
          className="mono"
          aria-describedby={preset.base_url_hint ? 'preset-url-hint' : undefined}
          data-testid="preset-base-url"
        />
      </label>
      {preset.base_url_hint && (
        <p className="hint" id="preset-url-hint">
          {preset.base_url_hint}
        </p>
      )}
      {preset.key && (
        <>
          <label>
            API key{' '}
            <input
              ref={first}
              type="password"
              autoComplete="off"
              value={key}
              onChange={(e) => setKey(e.target.value)}
              placeholder={plan.keyStored ? 'leave empty to keep the stored key' : preset.key.placeholder}
              aria-describedby="preset-key-hint"
              data-testid="preset-key"
            />
          </label>
          <p className="hint" id="preset-key-hint">
            <a href={preset.key.url} target="_blank" rel="noreferrer">
              Get a key from {preset.name}
            </a>
            , or type <code>env:{preset.key.env}</code> to read it from that environment variable. Keys stay in
            config.json (owner-only) and are shown masked.
          </p>
        </>
      )}
      {plan.rules.length > 0 && (
        <fieldset className="preset-rules">
          <legend>Send these models to it (routing rules, put first)</legend>
          {plan.rules.map((r) => (
            <Checkbox
              key={r.pattern}
              checked={r.already || ticked.includes(r.pattern)}
              disabled={r.already}
              onChange={(e) =>
                setTicked(e.target.checked ? [...ticked, r.pattern] : ticked.filter((p) => p !== r.pattern))
              }
              label={
                <>
                  <span className="mono">{r.pattern}</span>
                  {r.already ? ' (already sent to it)' : ''}
                </>
              }
              data-testid={`preset-rule-${r.pattern}`}
            />
          ))}
        </fieldset>
      )}
      <Checkbox
        checked={makeDefault}
        onChange={(e) => setMakeDefault(e.target.checked)}
        label={`Make it the default provider (models no rule matches)${plan.defaultNow && plan.defaultNow !== name ? `; now "${plan.defaultNow}"` : ''}`}
        data-testid="preset-default"
        row
      />
      <Problems messages={problems} announced />
      <div className="actions">
        <button type="submit" data-testid="preset-add">
          {verb} {preset.name}
        </button>
        <button type="button" onClick={onClose} data-testid="preset-cancel">
          Cancel
        </button>
      </div>
    </Form>
  );
}
