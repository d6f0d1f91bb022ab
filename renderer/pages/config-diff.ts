// What changed between two versions of config.json, field by field (issue 34: Settings' Backups compare two): each
// setting that differs with its value before and after, providers and app rules by name, routing rules by place.
// Keys are never shown: a secret field (an api_key, a credential-like header, an MCP server's secret env value, the
// JWT secret) says only that it changed. Pure (tested in Node).
import { SECRET_HEADER_NAME } from '../../shared/config.ts';

export type FieldChange = { field: string; before: string; after: string };

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** A value in a line: JSON for text and numbers, "(not set)" for nothing. */
const shown = (v: unknown): string => (v === undefined ? '(not set)' : JSON.stringify(v));

/** Whether the field at `path` holds a secret (never shown). */
function isSecret(path: string[]): boolean {
  const last = path.at(-1) ?? '';
  if (last === 'api_key' || last === 'secret') return true;
  const parent = path.at(-2);
  return (parent === 'headers' || parent === 'env') && SECRET_HEADER_NAME.test(last);
}

/** Every leaf of a config by its field, lists of named things by name (`providers "openai"`), the rest by place. */
function flatten(v: unknown, path: string[], out: Map<string, { value: unknown; path: string[] }>): void {
  if (Array.isArray(v)) {
    const named = v.every((x) => isObject(x) && (typeof x.name === 'string' || typeof x.app === 'string'));
    v.forEach((x, i) => {
      // `providers "openai"`, `routing.rules 2`: the list's own field, then the item's name or place.
      const key = named && isObject(x) ? `"${String(x.name ?? x.app)}"` : `${i + 1}`;
      flatten(x, [...path.slice(0, -1), `${path.at(-1) ?? ''} ${key}`.trim()], out);
    });
    if (v.length === 0) out.set(path.join('.'), { value: [], path });
    return;
  }
  if (isObject(v)) {
    const keys = Object.keys(v);
    if (keys.length === 0) out.set(path.join('.'), { value: {}, path });
    for (const k of keys) flatten(v[k], [...path, k], out);
    return;
  }
  out.set(path.join('.'), { value: v, path });
}

/** The fields that differ from `before` to `after`, in the order config.json lists them. */
export function configDiff(before: unknown, after: unknown): FieldChange[] {
  const a = new Map<string, { value: unknown; path: string[] }>();
  const b = new Map<string, { value: unknown; path: string[] }>();
  flatten(before, [], a);
  flatten(after, [], b);
  const out: FieldChange[] = [];
  for (const field of new Set([...a.keys(), ...b.keys()])) {
    const x = a.get(field);
    const y = b.get(field);
    if (JSON.stringify(x?.value) === JSON.stringify(y?.value)) continue;
    const secret = isSecret((x ?? y)!.path);
    out.push({
      field,
      before: secret ? (x === undefined ? '(not set)' : '(a key)') : shown(x?.value),
      after: secret ? (y === undefined ? '(not set)' : '(another key)') : shown(y?.value),
    });
  }
  return out;
}
