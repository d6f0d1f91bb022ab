// Prices (issue 34): set or override what a provider's or a model's requests cost (config.json's `prices[]`, before
// the price table). The Settings section lists them with Edit and Remove; the same form opens from a provider's card
// (its whole price) with the provider filled in. Saves are checked against the shared schema first.
import { useState } from 'react';
import type { PriceOverride } from '../../shared/usage.ts';
import { Checkbox, DangerButton, Form, Select, Table } from '../components/controls.tsx';
import { SavedLine } from '../components/fields.tsx';
import { Problems } from '../components/Problems.tsx';
import { useConfig, useConfigSave } from './config-hooks.ts';
import { draftFromPrice, EMPTY_PRICE, type PriceDraft, priceFromDraft, priceWords, putPrice } from './price-text.ts';

/** The form of one price: which requests (provider, model glob), then free or USD per million tokens. */
export function PriceForm({
  initial,
  index,
  onDone,
  lockProvider,
}: {
  initial: PriceDraft;
  /** The entry edited (its index in prices[]), or -1 for a new one. */
  index: number;
  onDone: () => void;
  /** From a provider's card: the provider is given. */
  lockProvider?: boolean;
}) {
  const { providerNames } = useConfig();
  const [d, setD] = useState<PriceDraft>(initial);
  const { problems, save } = useConfigSave([], 'Prices');
  const text = (k: keyof Omit<PriceDraft, 'free'>) => ({
    value: d[k],
    onChange: (e: { target: { value: string } }) => setD({ ...d, [k]: e.target.value }),
  });
  const submit = async () => {
    const ok = await save((next) => {
      next.prices = putPrice((next.prices ?? []) as PriceOverride[], priceFromDraft(d), index);
    });
    if (ok) onDone();
  };
  return (
    <Form className="card price-form" data-testid="price-form" onSubmit={() => void submit()} aria-label="Price">
      <div className="row">
        <label>
          Provider
          <Select
            {...text('provider')}
            disabled={lockProvider}
            blank="every provider"
            options={providerNames}
            data-testid="price-provider"
          />
        </label>
        <label>
          Models
          <input
            {...text('model')}
            placeholder="all (or a pattern: gpt-4o*)"
            className="mono"
            data-testid="price-model"
          />
        </label>
      </div>
      <Checkbox
        checked={d.free}
        onChange={(e) => setD({ ...d, free: e.target.checked })}
        label="Free (a local model, or a plan you pay for another way)"
        data-testid="price-free"
        row
      />
      {!d.free && (
        <fieldset className="price-fields">
          <legend>USD per million tokens</legend>
          <label>
            Input <input {...text('input')} inputMode="decimal" data-testid="price-input" />
          </label>
          <label>
            Output <input {...text('output')} inputMode="decimal" data-testid="price-output" />
          </label>
          <label>
            Cache read <input {...text('cache_read')} inputMode="decimal" placeholder="as input" />
          </label>
          <label>
            Cache write <input {...text('cache_write')} inputMode="decimal" placeholder="as input" />
          </label>
        </fieldset>
      )}
      <Problems messages={problems} announced />
      <div className="actions">
        <button type="submit" data-testid="price-save">
          Save price
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </Form>
  );
}

export function PriceSettings() {
  const { cfg } = useConfig();
  const prices = (cfg.prices ?? []) as PriceOverride[];
  const [editing, setEditing] = useState<{ index: number; draft: PriceDraft } | null>(null);
  const { problems, saved, save } = useConfigSave([], 'Prices');
  return (
    <div data-testid="price-settings">
      <h3>Prices</h3>
      <p className="hint">
        Your prices come before the price table, the first that fits a request winning (one for a model before one for a
        whole provider). Providers on this machine are free unless you set a price. Costs on the Overview and budgets
        use them from the next request.
      </p>
      {prices.length > 0 && (
        <Table head={['provider', 'models', 'price', <span className="sr-only">actions</span>]}>
          {prices.map((p, i) => (
            <tr key={i} data-testid="price-row">
              <td>{p.provider ?? 'every provider'}</td>
              <td className="mono">{p.model ?? 'all'}</td>
              <td>{priceWords(p)}</td>
              <td>
                <span className="actions">
                  <button
                    aria-label={`Edit the price of ${p.provider ?? 'every provider'}, ${p.model ?? 'all models'}`}
                    onClick={() => setEditing({ index: i, draft: draftFromPrice(p) })}
                  >
                    Edit
                  </button>
                  <DangerButton
                    aria-label={`Remove the price of ${p.provider ?? 'every provider'}, ${p.model ?? 'all models'}`}
                    onClick={() =>
                      void save((next) => {
                        next.prices = (next.prices ?? []).filter((_, k) => k !== i);
                      })
                    }
                  >
                    Remove
                  </DangerButton>
                </span>
              </td>
            </tr>
          ))}
        </Table>
      )}
      {prices.length === 0 && (
        <p className="hint">No prices of your own: the price table prices every request it knows.</p>
      )}
      {editing ? (
        <PriceForm initial={editing.draft} index={editing.index} onDone={() => setEditing(null)} />
      ) : (
        <button onClick={() => setEditing({ index: -1, draft: EMPTY_PRICE })} data-testid="add-price">
          Add a price
        </button>
      )}
      <Problems messages={problems} announced />
      <SavedLine saved={saved} testId="prices-saved" />
    </div>
  );
}
