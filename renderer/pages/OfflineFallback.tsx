// The Routing page's "Offline fallback" section (routing.offline, docs/routing.md "Offline fallback"): the switch, the
// local providers in order (the ones that look local suggested first), the model map as ordered rows, and the context
// window of each local model. It edits a draft; the Routing page saves it with its rules.
import { moved } from '../components/ProviderChain.tsx';
import { FieldError, invalidProps } from '../components/fields.tsx';
import { type OfflineDraft, looksLocal, windowModels } from './offline-draft.ts';

type ProviderLike = { name: string; type?: string | undefined; base_url?: string | undefined };

export function OfflineFallback({
  draft,
  providers,
  errors,
  onChange,
}: {
  draft: OfflineDraft;
  providers: ProviderLike[];
  /** Field errors by key: the schema's (after a failed save) and the rows' own. */
  errors: Record<string, string>;
  onChange: (next: OfflineDraft) => void;
}) {
  const set = (patch: Partial<OfflineDraft>) => onChange({ ...draft, ...patch });
  const local = providers.filter(looksLocal).map((p) => p.name);
  const addable = providers.map((p) => p.name).filter((n) => !draft.providers.includes(n));
  const addLocal = addable.filter((n) => local.includes(n));
  const addOther = addable.filter((n) => !local.includes(n));
  const setRow = (i: number, patch: Partial<OfflineDraft['map'][number]>) =>
    set({ map: draft.map.map((r, k) => (k === i ? { ...r, ...patch } : r)) });
  const models = windowModels(draft);
  // Its parts show while it is on, and while one of them has an error (switched off with a window still wrong).
  const open = draft.enabled || Object.keys(errors).some((k) => k.startsWith('offline-'));

  return (
    <div className="card offline" data-testid="offline-section">
      <h3 id="offline-heading">Offline fallback</h3>
      <p className="hint">
        When every cloud provider of a route is out of reach (no network, DNS failing, connection refused, timeouts,
        circuits open, 5xx), requests go to local models instead of failing, with the model renamed through the map
        below. The banner &quot;offline: serving locally&quot; shows on every page while it happens; the first request a
        cloud provider answers ends it.
      </p>
      <label className="row">
        <input
          type="checkbox"
          checked={draft.enabled}
          onChange={(e) => set({ enabled: e.target.checked })}
          data-testid="offline-enabled"
        />{' '}
        Serve requests from local models when the cloud is out of reach
      </label>
      {open && (
        <>
          <h4 id="offline-providers-heading">Local providers</h4>
          <p className="hint">
            Tried in order. Suggested: providers of type ollama or on this machine (localhost)
            {local.length > 0 ? `: ${local.join(', ')}` : ' (none is configured yet: add one on the Providers page)'}.
          </p>
          <ol className="chain-list" aria-labelledby="offline-providers-heading" data-testid="offline-providers">
            {draft.providers.map((name, j) => (
              <li key={`${j}-${name}`} className="chain-item" data-testid={`offline-provider-${j}`}>
                <span className="chain-place small">{j + 1}.</span>
                <span className="mono">{name}</span>
                {!local.includes(name) && <span className="small">(does not look local)</span>}
                <span className="actions">
                  <button
                    type="button"
                    aria-label={`Move ${name} up in the local providers`}
                    disabled={j === 0}
                    onClick={() => set({ providers: moved(draft.providers, j, j - 1) })}
                  >
                    ↑
                  </button>
                  <button
                    type="button"
                    aria-label={`Move ${name} down in the local providers`}
                    disabled={j === draft.providers.length - 1}
                    onClick={() => set({ providers: moved(draft.providers, j, j + 1) })}
                  >
                    ↓
                  </button>
                  <button
                    type="button"
                    className="danger"
                    aria-label={`Take ${name} out of the local providers`}
                    onClick={() => set({ providers: draft.providers.filter((_, k) => k !== j) })}
                    data-testid={`offline-provider-remove-${j}`}
                  >
                    ✕
                  </button>
                </span>
                <FieldError field={`offline-provider-${j}`} errors={errors} />
              </li>
            ))}
          </ol>
          {draft.providers.length === 0 && <p className="small">No local provider yet: add at least one.</p>}
          {addable.length > 0 && (
            <select
              aria-label="Add a local provider"
              value=""
              onChange={(e) => e.target.value && set({ providers: [...draft.providers, e.target.value] })}
              data-testid="offline-add-provider"
              {...invalidProps('offline-providers', errors)}
            >
              <option value="">+ local provider…</option>
              {addLocal.length > 0 && (
                <optgroup label="Local (suggested)">
                  {addLocal.map((n) => (
                    <option key={n}>{n}</option>
                  ))}
                </optgroup>
              )}
              {addOther.length > 0 && (
                <optgroup label="Other providers">
                  {addOther.map((n) => (
                    <option key={n}>{n}</option>
                  ))}
                </optgroup>
              )}
            </select>
          )}
          <FieldError field="offline-providers" errors={errors} />

          <h4 id="offline-map-heading">Model map</h4>
          <p className="hint">
            Each row sends the models its pattern matches (a glob, as in the rules above) to a local model. Rows are
            tried top to bottom and the first match wins, so put narrow patterns first. A model no row matches is not
            served locally: the cloud&apos;s error stands.
          </p>
          <ol className="rules" aria-labelledby="offline-map-heading" data-testid="offline-map">
            {draft.map.map((r, i) => (
              <li key={i} data-testid={`offline-map-${i}`}>
                <div className="rule-line">
                  <input
                    aria-label={`Cloud model pattern of row ${i + 1}`}
                    className="mono"
                    placeholder="e.g. claude-sonnet-*"
                    value={r.glob}
                    onChange={(e) => setRow(i, { glob: e.target.value })}
                    data-testid={`offline-map-glob-${i}`}
                    {...invalidProps(`offline-map-${i}-glob`, errors)}
                  />
                  <span aria-hidden="true">→</span>
                  <input
                    aria-label={`Local model of row ${i + 1}`}
                    className="mono"
                    placeholder="e.g. qwen3-coder:30b"
                    value={r.local}
                    onChange={(e) => setRow(i, { local: e.target.value })}
                    data-testid={`offline-map-local-${i}`}
                    {...invalidProps(`offline-map-${i}-local`, errors)}
                  />
                  <span className="actions">
                    <button
                      type="button"
                      aria-label={`Move row ${i + 1} of the model map up`}
                      disabled={i === 0}
                      onClick={() => set({ map: moved(draft.map, i, i - 1) })}
                    >
                      ↑
                    </button>
                    <button
                      type="button"
                      aria-label={`Move row ${i + 1} of the model map down`}
                      disabled={i === draft.map.length - 1}
                      onClick={() => set({ map: moved(draft.map, i, i + 1) })}
                    >
                      ↓
                    </button>
                    <button
                      type="button"
                      className="danger"
                      aria-label={`Remove row ${i + 1} of the model map`}
                      onClick={() => set({ map: draft.map.filter((_, k) => k !== i) })}
                      data-testid={`offline-map-remove-${i}`}
                    >
                      Remove
                    </button>
                  </span>
                </div>
                <FieldError field={`offline-map-${i}-glob`} errors={errors} />
                <FieldError field={`offline-map-${i}-local`} errors={errors} />
              </li>
            ))}
          </ol>
          <button
            type="button"
            onClick={() => set({ map: [...draft.map, { glob: '', local: '' }] })}
            data-testid="offline-map-add"
          >
            Add a row
          </button>
          <FieldError field="offline-map" errors={errors} />

          <h4 id="offline-windows-heading">Context windows (optional)</h4>
          <p className="hint">
            A local model&apos;s context window in tokens (512 to 10,000,000). A request that does not fit is refused
            saying so, never truncated; an Ollama provider is told to use a context big enough for each request, up to
            this window. Leave empty when unknown.
          </p>
          {models.length === 0 ? (
            <p className="small">Map a model first.</p>
          ) : (
            <ul className="rules offline-windows" aria-labelledby="offline-windows-heading">
              {models.map((m, i) => (
                <li key={m} data-testid={`offline-window-row-${i}`}>
                  <label className="row">
                    <span className="mono">{m}</span>
                    <input
                      aria-label={`Context window of ${m}, in tokens`}
                      inputMode="numeric"
                      placeholder="e.g. 32768"
                      value={draft.windows[m] ?? ''}
                      onChange={(e) => set({ windows: { ...draft.windows, [m]: e.target.value } })}
                      data-testid={`offline-window-${i}`}
                      {...invalidProps(`offline-window-${i}`, errors)}
                    />
                    tokens
                  </label>
                  <FieldError field={`offline-window-${i}`} errors={errors} />
                </li>
              ))}
            </ul>
          )}
          <FieldError field="offline-windows" errors={errors} />
        </>
      )}
    </div>
  );
}
