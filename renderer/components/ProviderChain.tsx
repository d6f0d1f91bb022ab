// One routing rule's failover chain (routing.rules[].providers): its providers in order, the first the primary and
// the rest its backups, each a select; reordered with ↑/↓ (or by dragging a row by its handle), removed with ✕, and
// a backup added from the providers not in the chain yet. Every control is labelled with its rule and place.
import { type DragEvent, useState } from 'react';
import { Select } from './controls.tsx';
import { invalidProps } from './fields.tsx';

/** The place of a provider in a chain, in words: "primary", "backup 1"… */
export const chainPlace = (j: number) => (j === 0 ? 'primary' : `backup ${j}`);

/** `list` with the item at `from` moved to `to`. */
export function moved<T>(list: T[], from: number, to: number): T[] {
  if (from === to || from < 0 || to < 0 || from >= list.length || to >= list.length) return list;
  const next = [...list];
  const [item] = next.splice(from, 1);
  next.splice(to, 0, item!);
  return next;
}

export function ProviderChain({
  rule,
  chain,
  providerNames,
  errors,
  onChange,
}: {
  /** The rule's index (0-based). */
  rule: number;
  chain: string[];
  providerNames: string[];
  errors: Record<string, string>;
  onChange: (chain: string[]) => void;
}) {
  const [dragging, setDragging] = useState<number | null>(null);
  const n = rule + 1;
  const options = (current: string) => [
    ...providerNames.filter((p) => p === current || !chain.includes(p)),
    ...(current && !providerNames.includes(current) ? [current] : []),
  ];
  const addable = providerNames.filter((p) => !chain.includes(p));
  const drop = (e: DragEvent, to: number) => {
    e.preventDefault();
    if (dragging !== null) onChange(moved(chain, dragging, to));
    setDragging(null);
  };
  return (
    <div className="chain">
      <ol
        className="chain-list"
        aria-label={`Providers of rule ${n}, in order: the first is the primary, the rest its backups`}
      >
        {chain.map((name, j) => (
          <li
            key={`${j}-${name}`}
            className={`chain-item ${dragging === j ? 'dragging' : ''}`}
            onDragOver={(e) => e.preventDefault()}
            onDrop={(e) => drop(e, j)}
            data-testid={`chain-item-${rule}-${j}`}
          >
            <span
              className="drag-handle"
              draggable
              onDragStart={(e) => {
                setDragging(j);
                e.dataTransfer.effectAllowed = 'move';
                e.dataTransfer.setData('text/plain', name);
              }}
              onDragEnd={() => setDragging(null)}
              title="Drag to reorder (or use ↑ and ↓)"
              aria-hidden="true"
            >
              ⋮⋮
            </span>
            <span className="chain-place small">{chainPlace(j)}</span>
            <Select
              aria-label={`Provider of rule ${n}, ${chainPlace(j)}`}
              value={name}
              onChange={(e) => onChange(chain.map((x, k) => (k === j ? e.target.value : x)))}
              blank={j === 0 ? 'provider…' : undefined}
              options={options(name)}
              data-testid={j === 0 ? `rule-provider-${rule}` : `rule-provider-${rule}-${j}`}
              {...invalidProps(`rule-${rule}-provider-${j}`, errors)}
            />
            {chain.length > 1 && (
              <span className="actions">
                <button
                  type="button"
                  aria-label={`Move ${name || 'this provider'} up in rule ${n}`}
                  disabled={j === 0}
                  onClick={() => onChange(moved(chain, j, j - 1))}
                  data-testid={`chain-up-${rule}-${j}`}
                >
                  ↑
                </button>
                <button
                  type="button"
                  aria-label={`Move ${name || 'this provider'} down in rule ${n}`}
                  disabled={j === chain.length - 1}
                  onClick={() => onChange(moved(chain, j, j + 1))}
                  data-testid={`chain-down-${rule}-${j}`}
                >
                  ↓
                </button>
                <button
                  type="button"
                  className="danger"
                  aria-label={`Take ${name || 'this provider'} out of rule ${n}`}
                  onClick={() => onChange(chain.filter((_, k) => k !== j))}
                  data-testid={`chain-remove-${rule}-${j}`}
                >
                  ✕
                </button>
              </span>
            )}
          </li>
        ))}
      </ol>
      {addable.length > 0 && chain[0] !== '' && (
        <Select
          aria-label={`Add a backup provider to rule ${n}`}
          value=""
          onChange={(e) => e.target.value && onChange([...chain, e.target.value])}
          blank="+ backup…"
          options={addable}
          data-testid={`rule-add-backup-${rule}`}
        />
      )}
    </div>
  );
}
