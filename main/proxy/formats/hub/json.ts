// Small helpers every format uses to read JSON it did not write: object checks, 400s that name the field, ids.
import { ApiError } from '../../../errors.ts';
import type { ClientContext } from './types.ts';

export type Json = Record<string, unknown>;

export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** undefined or null: a field left out. */
export const absent = (v: unknown): v is undefined | null => v === undefined || v === null;

/** 400 invalid_request: what is wrong (naming the field by its path) and how to fix it. */
export function invalid(message: string, action?: string): ApiError {
  return new ApiError('invalid_request', message, action);
}

/** The request's model (a non-empty string), or 400 model_required with an example for this format. */
export function requireModel(model: unknown, example: string, where = 'The request has no "model"'): string {
  if (absent(model) || model === '') {
    throw new ApiError(
      'model_required',
      `${where}; Switchboard routes by model name.`,
      `Add "model": "<name>", e.g. ${example}.`,
    );
  }
  if (typeof model !== 'string')
    throw invalid('"model" must be a string.', `Send the model name as a string, e.g. ${example}.`);
  return model;
}

/** An optional string field, or 400 naming it. */
export function optionalString(v: unknown, path: string): string | undefined {
  if (absent(v)) return undefined;
  if (typeof v !== 'string')
    throw invalid(`"${path}" must be a string; got ${JSON.stringify(v)}.`, `Send "${path}" as text, or leave it out.`);
  return v;
}

/** The body as a JSON object, or 400 with an example of what to send. */
export function requireObject(body: unknown, example: string, what = 'The request body'): Json {
  if (!isObject(body))
    throw invalid(
      `${what} must be a JSON object; got ${Array.isArray(body) ? 'an array' : typeof body}.`,
      `Send ${example}.`,
    );
  return body;
}

let counter = 0;
/** A short unique id with a prefix (msg_, call_, resp_, chatcmpl-...). */
export function newId(prefix: string): string {
  counter = (counter + 1) % 1e9;
  return `${prefix}${Date.now().toString(36)}${counter.toString(36)}${Math.random().toString(36).slice(2, 8)}`;
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** The value at a dotted path ('generationConfig.topP'), or undefined. */
export function readPath(obj: unknown, path: string): unknown {
  let v = obj;
  for (const key of path.split('.')) {
    if (!isObject(v)) return undefined;
    v = v[key];
  }
  return v;
}

/** Sets the value at a dotted path, creating the objects on the way. */
export function writePath(obj: Json, path: string, value: unknown): void {
  const keys = path.split('.');
  let at = obj;
  for (const key of keys.slice(0, -1)) {
    const next = at[key];
    at = isObject(next) ? next : (at[key] = {});
  }
  at[keys.at(-1)!] = value;
}

/** Why a field no table knows is left out of a translated request (a newer client's field: never a 400). */
export const UNKNOWN_FIELD =
  "a field Switchboard does not know (newer than its tables): a provider of the client's own format gets it " +
  'untouched; translated, it has no equivalent';

/**
 * Notes on the client's context every field of `obj` that `known` does not list (at `at`, a dotted path), as dropped
 * with UNKNOWN_FIELD: a tool's new field is said, never refused and never lost without a word.
 */
export function noteUnknownFields(
  ctx: ClientContext | undefined,
  obj: Record<string, unknown>,
  known: ReadonlySet<string> | Readonly<Record<string, unknown>>,
  at = '',
): void {
  if (!ctx) return;
  const has = known instanceof Set ? (k: string) => known.has(k) : (k: string) => Object.hasOwn(known, k);
  for (const key in obj) if (!has(key) && !absent(obj[key])) noteDropped(ctx, at ? `${at}.${key}` : key, UNKNOWN_FIELD);
}

/** Notes on the client's context a field of its request that is left out, and why (ClientContext.dropped). */
export function noteDropped(ctx: ClientContext | undefined, field: string, why: string): void {
  if (!ctx) return;
  const entry = `${field}: ${why}`;
  if (!(ctx.dropped ??= []).includes(entry)) ctx.dropped.push(entry);
}
