// A provider's key sent back masked (api_key, or api_keys[i] of a key pool) through the admin API: the stored key it
// stands for. A key is looked up by its mask among every stored key of the same provider (or of the provider it was
// renamed from), not by its index: removing a key from the middle of a pool shifts the ones after it, and moving from
// one key to a pool (or back) moves the key between api_key and api_keys (docs/admin.md, "Config").
import { maskKey } from '../../shared/config.ts';
import { ApiError } from '../errors.ts';

type KeysOf = { api_key: string | undefined; api_keys: string[] | undefined };

/** Each provider's keys by name (api_key and api_keys as written; values other than strings left out). */
export function providerKeys(config: unknown): Map<string, KeysOf> {
  const out = new Map<string, KeysOf>();
  const list = config && typeof config === 'object' ? (config as { providers?: unknown }).providers : undefined;
  for (const p of Array.isArray(list) ? (list as unknown[]) : []) {
    if (!p || typeof p !== 'object') continue;
    const { name, api_key, api_keys } = p as Record<string, unknown>;
    out.set(typeof name === 'string' ? name : '', {
      api_key: typeof api_key === 'string' ? api_key : undefined,
      api_keys: Array.isArray(api_keys) ? api_keys.filter((k): k is string => typeof k === 'string') : undefined,
    });
  }
  return out;
}

const all = (k: KeysOf): string[] => [...(k.api_key !== undefined ? [k.api_key] : []), ...(k.api_keys ?? [])];

/**
 * The stored key a masked provider key sent back stands for. `name` is the provider it was sent in, `field` "api_key"
 * or "api_keys.<i>", `sent` that provider's keys as sent (already partly restored), `stored` every stored provider's
 * keys, `sentNames` the names the config sent (a stored provider missing from them may have been renamed).
 *
 * Exactly one stored key of that provider with that mask: that key. Several (short keys all mask to "****", long ones
 * share one when their first 3 and last 4 characters agree): the key at the same place, but only when the pool was
 * sent back as it is stored (nothing removed, added or moved), else a config_invalid error saying which. None: an
 * error too (a masked value is never saved as a key).
 */
export function restoreProviderKey(
  name: string,
  field: string,
  given: string,
  sent: KeysOf | undefined,
  stored: Map<string, KeysOf>,
  sentNames: Set<string>,
): string {
  const own = stored.get(name);
  const sources = own ? [own] : [...stored].filter(([n]) => !sentNames.has(n)).map(([, k]) => k);
  const fits = [...new Set(sources.flatMap(all))].filter((k) => maskKey(k) === given);
  if (fits.length === 1) return fits[0]!;
  const where = `providers "${name}": ${field}`;
  if (fits.length === 0)
    throw new ApiError(
      'config_invalid',
      `${where} is a masked value that matches no stored secret.`,
      'Send the full value, or send back exactly the masked value you read to keep the stored one.',
    );
  const samePlace = sources.filter((k) => sentAsStored(field, sent, k) && atField(k, field) !== undefined);
  if (samePlace.length === 1) return atField(samePlace[0]!, field)!;
  throw new ApiError(
    'config_invalid',
    `${where} is masked as "${given}", which ${fits.length} stored keys of this provider share, so which one it stands for is unclear (keys were removed, added or moved).`,
    'Type the keys you keep in full (the form: remove them and add them again), or edit api_keys in config.json.',
  );
}

function atField(k: KeysOf, field: string): string | undefined {
  if (field === 'api_key') return k.api_key;
  const i = Number(/^api_keys\.(\d+)$/.exec(field)?.[1] ?? NaN);
  return k.api_keys?.[i];
}

/** Whether the field's keys were sent back as stored: the same count, each the stored key or its mask, in order. */
function sentAsStored(field: string, sent: KeysOf | undefined, stored: KeysOf): boolean {
  const a = field === 'api_key' ? [sent?.api_key] : sent?.api_keys;
  const b = field === 'api_key' ? [stored.api_key] : stored.api_keys;
  if (!a || !b || a.length !== b.length) return false;
  return a.every((v, i) => v !== undefined && b[i] !== undefined && (v === b[i] || v === maskKey(b[i]!)));
}
