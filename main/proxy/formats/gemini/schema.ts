// Client side: the snake_case/camelCase reading of a request, and Gemini's OpenAPI-subset Schema as JSON Schema.
import { isObject, type Json } from '../hub/index.ts';

const camelKey = (k: string): string =>
  k.includes('_') ? k.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()) : k;

/** Keys whose values are user data (arguments, results, schemas): their inner keys are never renamed. */
const OPAQUE_KEYS = new Set([
  'args',
  'response',
  'parameters',
  'parametersJsonSchema',
  'responseSchema',
  'responseJsonSchema',
  'labels',
  'metadata',
]);

/** The REST API accepts snake_case and camelCase for every field: read both, camelCase winning. */
export function camelizeRequest(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(camelizeRequest);
  if (!isObject(v)) return v;
  const out: Json = {};
  for (const [k, val] of Object.entries(v)) {
    const ck = camelKey(k);
    if (ck !== k && Object.hasOwn(v, ck)) continue;
    out[ck] = OPAQUE_KEYS.has(ck) ? val : camelizeRequest(val);
  }
  return out;
}

/** Schema keys whose values are schemas (or lists of them). */
const SUBSCHEMA_KEYS = new Set(['items', 'anyOf', 'oneOf', 'allOf', 'prefixItems', 'not', 'additionalProperties']);

/** Gemini's OpenAPI-subset Schema (as `parameters` or `responseSchema`) as JSON Schema. */
export function schemaToJsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(schemaToJsonSchema);
  if (!isObject(schema)) return schema;
  const out: Json = {};
  for (const [k, v] of Object.entries(schema)) {
    const key = camelKey(k);
    if (key !== k && Object.hasOwn(schema, key)) continue;
    if (key === 'properties' || key === 'defs' || key === '$defs') {
      // Property names are user data: kept as they are.
      const named = isObject(v) ? Object.entries(v).map(([name, s]) => [name, schemaToJsonSchema(s)]) : undefined;
      out[key === 'defs' ? '$defs' : key] = named ? Object.fromEntries(named) : v;
    } else if (SUBSCHEMA_KEYS.has(key)) {
      out[key] = schemaToJsonSchema(v);
    } else {
      out[key] = v;
    }
  }
  if (typeof out.type === 'string') {
    const t = out.type.toLowerCase();
    if (t === 'type_unspecified') delete out.type;
    else out.type = out.nullable === true ? [t, 'null'] : t;
  } else if (Array.isArray(out.type)) {
    out.type = out.type.map((t) => (typeof t === 'string' ? t.toLowerCase() : t));
  }
  delete out.nullable;
  return out;
}
