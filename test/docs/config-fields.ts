// The fields of config.json, walked from its zod schema (shared/config.ts): every object's keys, arrays' elements
// (`providers[].name`), records' values (`mcp_servers.<name>.command`) and each variant of a discriminated union
// (`store.url`), each with the default the schema gives it. docs/config.md documents exactly these (reference.test.ts).
import type { z } from 'zod';
import { ConfigSchema } from '../../shared/config.ts';

export type ConfigField = {
  /** `listen_port`, `providers[].name`, `mcp_servers.<name>.command`: the path as docs/config.md writes it. */
  path: string;
  /** The schema's default, when it has one (a field that is only optional has none). */
  default?: unknown;
  /** An object, array or record: its fields are listed on their own. */
  container: boolean;
};

/** Bookkeeping of the desktop app's store (electron-store), never read by the engine and not a user's setting. */
const NOT_SETTINGS = new Set(['__internal__']);

type Def = { type: string; [k: string]: unknown };
const defOf = (s: unknown): Def => (s as { _zod: { def: Def } })._zod.def;

/** The schema under defaults, optionals, nullables and pipes, with the outermost default found on the way. */
function unwrap(schema: z.ZodType): { inner: z.ZodType; default?: unknown; hasDefault: boolean } {
  let s: unknown = schema;
  let found: { value: unknown } | undefined;
  for (;;) {
    const d = defOf(s);
    if (d.type === 'default' || d.type === 'prefault') {
      if (!found) found = { value: typeof d.defaultValue === 'function' ? d.defaultValue() : d.defaultValue };
      s = d.innerType;
    } else if (d.type === 'optional' || d.type === 'nullable' || d.type === 'readonly' || d.type === 'catch')
      s = d.innerType;
    else if (d.type === 'pipe') s = d.in;
    else break;
  }
  return { inner: s as z.ZodType, hasDefault: !!found, ...(found ? { default: found.value } : {}) };
}

/** The placeholder a record's key takes in a path, by the record it is in. */
const RECORD_KEYS: Record<string, string> = {
  mcp_servers: '<name>',
  'limits.per_app': '<app>',
  'limits.per_key': '<key>',
  'quirks.provider_hosts': '<provider>',
};
const recordKey = (path: string): string => RECORD_KEYS[path] ?? '<name>';

function walk(schema: z.ZodType, path: string, out: ConfigField[]): void {
  const { inner } = unwrap(schema);
  const d = defOf(inner);
  if (d.type === 'object') {
    for (const [key, child] of Object.entries(d.shape as Record<string, z.ZodType>)) {
      if (!path && NOT_SETTINGS.has(key)) continue;
      field(child, path ? `${path}.${key}` : key, out);
    }
  } else if (d.type === 'array') walk(d.element as z.ZodType, `${path}[]`, out);
  else if (d.type === 'record') walk(d.valueType as z.ZodType, `${path}.${recordKey(path)}`, out);
  else if (d.type === 'union') for (const option of d.options as z.ZodType[]) walk(option, path, out);
}

const CONTAINERS = new Set(['object', 'array', 'record', 'union']);
function field(schema: z.ZodType, path: string, out: ConfigField[]): void {
  const u = unwrap(schema);
  const container = CONTAINERS.has(defOf(u.inner).type) && !isLeafUnion(u.inner);
  if (!out.some((f) => f.path === path)) out.push({ path, container, ...(u.hasDefault ? { default: u.default } : {}) });
  if (container) walk(u.inner, path, out);
}

/** A union of plain values (`number | string | …`) is one field, not a container of fields. */
function isLeafUnion(schema: z.ZodType): boolean {
  const d = defOf(schema);
  return d.type === 'union' && (d.options as z.ZodType[]).every((o) => !CONTAINERS.has(defOf(unwrap(o).inner).type));
}

/** Every field of a schema (ConfigSchema unless another is given, as the tests that remove one do). */
export function configFields(schema: z.ZodType = ConfigSchema): ConfigField[] {
  const out: ConfigField[] = [];
  walk(schema, '', out);
  return out;
}
