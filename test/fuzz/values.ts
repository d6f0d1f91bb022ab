// The fuzz suite's JSON pieces: odd values of every type (huge and non-finite numbers written as text, deep nesting,
// long strings and arrays, lone surrogates, keys that are Object.prototype's), a serializer that writes them as
// given, mutations of a seed body at any depth, and mis-typed or out-of-range values for the fields a zod schema
// declares (shared/), read from its JSON Schema.
import fc from 'fast-check';
import { z } from 'zod';

/** JSON text written as is: numbers JavaScript cannot hold (1e400), nesting deeper than any reader recurses. */
export class Raw {
  constructor(readonly text: string) {}
}

/** JSON text of a value that may hold Raw pieces and own `__proto__` keys. */
export function toJsonText(v: unknown): string {
  if (v instanceof Raw) return v.text;
  if (Array.isArray(v)) return `[${v.map(toJsonText).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    return `{${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}:${toJsonText(x)}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/** The JSON type of a value as JSON Schema names it ('integer' is a number that is whole). */
export function jsonTypeOf(v: unknown): string {
  if (v instanceof Raw) return /^[-\d]/.test(v.text) ? 'number' : v.text.startsWith('[') ? 'array' : 'object';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v === 'number' ? 'number' : typeof v;
}

const deepArray = (n: number) => new Raw('['.repeat(n) + ']'.repeat(n));
const deepObject = (n: number) => new Raw('{"a":'.repeat(n) + 'null' + '}'.repeat(n));

/** Values of every JSON type that readers get wrong: each case picks one. */
export const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(null, true, false, 0, -1, 0.5, 2 ** 53 + 2, -(2 ** 63), Number.MAX_VALUE) },
  { weight: 3, arbitrary: fc.constantFrom('', ' ', 'null', '0', 'true', '[]', '{}', 'NaN', '%ZZ', '../../etc/passwd') },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '\u0000',
      '\ud800',
      '\udc00\ud800',
      '\u202e',
      '\ufeff',
      'é',
      '😀',
      '${x}',
      '{{input.x}}',
    ),
  },
  { weight: 3, arbitrary: fc.constantFrom([], {}, [null], { '': null }, [[]], { a: {} }, [1, 'a', null, {}]) },
  {
    weight: 3,
    arbitrary: fc
      .constantFrom('1e400', '-1e400', '123456789012345678901234567890123456789', '1E-400', '-0', '0.1e1', '1.0')
      .map((t) => new Raw(t)),
  },
  { weight: 2, arbitrary: fc.integer({ min: 2, max: 20_000 }).map(deepArray) },
  { weight: 1, arbitrary: fc.integer({ min: 2, max: 5_000 }).map(deepObject) },
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 200_000 }).map((n) => 'x'.repeat(n)) },
  { weight: 1, arbitrary: fc.integer({ min: 100, max: 20_000 }).map((n) => Array.from({ length: n }, (_, i) => i)) },
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
);

/** Keys a body should not have: unknown ones, Object.prototype's, empty, odd characters. */
export const oddKey = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'x_unknown', '', ' ', '😀'),
  fc.string({ minLength: 1, maxLength: 12 }),
);

type Path = (string | number)[];

/** Every path into a value (the root is []), depth first, at most `max`. */
export function pathsOf(v: unknown, max = 500): Path[] {
  const out: Path[] = [];
  const walk = (x: unknown, p: Path) => {
    if (out.length >= max) return;
    out.push(p);
    if (Array.isArray(x)) x.forEach((y, i) => walk(y, [...p, i]));
    else if (x !== null && typeof x === 'object' && !(x instanceof Raw))
      for (const [k, y] of Object.entries(x)) walk(y, [...p, k]);
  };
  walk(v, []);
  return out;
}

/**
 * A copy of a value (Raw pieces shared: they are never changed). Every value a mutation puts in a body is copied
 * first: the arbitraries' constants are shared objects, and one put twice would make a cycle or change the constant.
 */
export function clone<T>(v: T): T {
  if (v instanceof Raw || v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(clone) as T;
  const out = {};
  for (const [k, x] of Object.entries(v)) {
    Object.defineProperty(out, k, { value: clone(x), enumerable: true, writable: true, configurable: true });
  }
  return out as T;
}

/** Sets `value` at `path`, making the containers on the way (an object for a key, an array for an index). */
export function setAt(root: unknown, path: Path, value: unknown): unknown {
  if (path.length === 0) return clone(value);
  let node = root as Record<string | number, unknown>;
  for (let i = 0; i < path.length - 1; i++) {
    const k = path[i]!;
    const next = node[k];
    if (next === null || typeof next !== 'object' || next instanceof Raw) {
      node[k] = typeof path[i + 1] === 'number' ? [] : {};
    }
    node = node[k] as Record<string | number, unknown>;
  }
  // An own property even for "__proto__" (a plain assignment would set the prototype).
  Object.defineProperty(node, path.at(-1)!, {
    value: clone(value),
    enumerable: true,
    writable: true,
    configurable: true,
  });
  return root;
}

function deleteAt(root: unknown, path: Path): unknown {
  if (path.length === 0) return root;
  const parent = path.slice(0, -1).reduce<any>((n, k) => n?.[k], root);
  const k = path.at(-1)!;
  if (Array.isArray(parent) && typeof k === 'number') parent.splice(k, 1);
  else if (parent && typeof parent === 'object') delete parent[k];
  return root;
}

const at = (root: unknown, path: Path): unknown => path.reduce<any>((n, k) => n?.[k], root);

/** One mutation of a body at any depth: a value of another type, a field removed, an unknown field, a wrapping. */
export type Mutation = { op: 'retype' | 'delete' | 'unknown' | 'wrap'; pathIndex: number; value: unknown; key: string };

export const mutationArb: fc.Arbitrary<Mutation> = fc.record({
  op: fc.constantFrom('retype', 'retype', 'retype', 'delete', 'unknown', 'wrap'),
  pathIndex: fc.nat(),
  value: oddValue,
  key: oddKey,
});

/** Applies mutations to a copy of `seed`; returns the body and a note of what was done. */
export function mutate(seed: unknown, mutations: Mutation[]): { body: unknown; note: string } {
  let body = clone(seed);
  const notes: string[] = [];
  for (const m of mutations) {
    const paths = pathsOf(body);
    const path = paths[m.pathIndex % paths.length]!;
    const where = path.join('.') || '(root)';
    if (m.op === 'retype') {
      body = setAt(body, path, m.value);
      notes.push(`${where} = ${short(m.value)}`);
    } else if (m.op === 'delete' && path.length > 0) {
      body = deleteAt(body, path);
      notes.push(`delete ${where}`);
    } else if (m.op === 'wrap') {
      body = setAt(body, path, Array.isArray(m.value) ? [at(body, path)] : { value: at(body, path) });
      notes.push(`wrap ${where}`);
    } else {
      const objects = paths.filter((p) => {
        const n = at(body, p);
        return n !== null && typeof n === 'object' && !Array.isArray(n) && !(n instanceof Raw);
      });
      if (objects.length === 0) continue; // no object to add a field to (an array or a scalar at the top)
      const target = objects[m.pathIndex % objects.length]!;
      body = setAt(body, [...target, m.key], m.value);
      notes.push(`add ${[...target, m.key].join('.')} = ${short(m.value)}`);
    }
  }
  return { body, note: notes.join('; ') };
}

/** A value as a short note (deep nesting and long strings by their size). */
export function short(v: unknown): string {
  const t = toJsonText(v);
  return t.length > 60 ? `${t.slice(0, 40)}…(${t.length} chars)` : t;
}

/** A field a schema declares: its path, JSON types, and the bounds it states. */
export type SchemaField = {
  path: Path;
  types: string[];
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
};

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
};

/** Every field a zod schema declares (through objects and array items), from its JSON Schema. */
export function schemaFields(schema: z.ZodType): SchemaField[] {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  const out: SchemaField[] = [];
  const walk = (s: JsonSchema, path: Path) => {
    const alts = s.anyOf ?? [s];
    const types = alts.flatMap((a) => (a.type === undefined ? [] : Array.isArray(a.type) ? a.type : [a.type]));
    if (path.length > 0) {
      const { enum: e, minimum, maximum, minLength, maxLength, maxItems } = s;
      out.push({ path, types, enum: e, minimum, maximum, minLength, maxLength, maxItems });
    }
    for (const a of alts) {
      for (const [k, p] of Object.entries(a.properties ?? {})) walk(p, [...path, k]);
      if (a.items) walk(a.items, [...path, 0]);
    }
  };
  walk(json, []);
  return out;
}

/** Values wrong for a field: of another JSON type, or of its type but past a bound it states (from the schema). */
export function wrongValues(f: SchemaField): fc.Arbitrary<unknown> {
  const accepts = (t: string) =>
    f.types.length === 0 || f.types.includes(t) || (t === 'number' && f.types.includes('integer'));
  const bounds: unknown[] = [];
  if (f.types.includes('integer')) bounds.push(1.5, -0.5);
  if (f.minimum !== undefined) bounds.push(f.minimum - 1);
  if (f.maximum !== undefined && f.maximum < Number.MAX_SAFE_INTEGER) bounds.push(f.maximum + 1);
  if (f.minLength !== undefined && f.minLength > 0) bounds.push('');
  if (f.maxLength !== undefined && f.maxLength < 2_000_000) bounds.push('y'.repeat(f.maxLength + 1));
  if (f.maxItems !== undefined) bounds.push(Array.from({ length: f.maxItems + 1 }, () => 'calculator'));
  if (f.enum) bounds.push('not-one-of-them', String(f.enum[0]).toUpperCase());
  // A field of any type (z.unknown) has no wrong type: only its bounds, else a value of a type it does not take.
  const anyType = ['null', 'boolean', 'number', 'string', 'array', 'object'].every(accepts);
  if (anyType) return bounds.length ? fc.constantFrom(...bounds) : oddValue;
  const otherType = oddValue.filter((v) => !accepts(jsonTypeOf(v)));
  return bounds.length ? fc.oneof(otherType, fc.constantFrom(...bounds)) : otherType;
}
