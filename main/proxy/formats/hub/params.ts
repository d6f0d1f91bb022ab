// The scalar sampling fields (temperature, top_p, top_k, max tokens, seed, penalties, stop, n) mapped both ways by one
// declarative table per format, as Portkey maps parameters, but typed: each format says where a field sits in its
// wire body (a dotted path) and, where needed, how a value changes on the way. Values are checked on the way in,
// and a bad one is refused with a 400 that names the field by its path in the client's body.
import { absent, invalid, type Json, readPath, writePath } from './json.ts';
import type { HubRequest } from './types.ts';

export type SamplingParam =
  'temperature' | 'top_p' | 'top_k' | 'max_tokens' | 'seed' | 'presence_penalty' | 'frequency_penalty' | 'stop' | 'n';

export type ParamSpec = {
  /** Where the value sits in the wire body, e.g. 'generationConfig.topP' or 'options.num_predict'. */
  path: string;
  /** Client side: the checked wire value as the hub's; undefined when it has no hub form (Ollama's num_predict -1). */
  toHub?: (v: number) => number | undefined;
  /** Provider side: the hub value as the wire's (a clamp, a minimum); undefined leaves the field out. */
  fromHub?: (v: number) => number | undefined;
};

/** A format's table: the fields it has, each a path or a spec. Fields it lacks are not in its table. */
export type ParamMap = Partial<Record<SamplingParam, string | ParamSpec>>;

export type ParamReadOptions = {
  /** Numbers may come as numeric strings (proto3 JSON, which Gemini's REST API accepts). */
  numericStrings?: boolean;
  /** The stop list is always an array in this format (a single string is refused). */
  stopAsArray?: boolean;
};

/** Fields that must be whole numbers of at least 1 once read (a count of tokens or of choices). */
const POSITIVE_INTEGERS = new Set<SamplingParam>(['max_tokens', 'n']);

const specOf = (s: string | ParamSpec): ParamSpec => (typeof s === 'string' ? { path: s } : s);

function numberAt(v: unknown, path: string, opts: ParamReadOptions): number {
  const n = opts.numericStrings && typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n)) {
    throw invalid(
      `"${path}" must be a number; got ${JSON.stringify(v)}.`,
      `Send "${path}" as a JSON number, or leave it out.`,
    );
  }
  return n;
}

function stopAt(v: unknown, path: string, opts: ParamReadOptions): string | string[] {
  if (typeof v === 'string' && !opts.stopAsArray) return v;
  if (Array.isArray(v) && v.every((s) => typeof s === 'string')) return v as string[];
  throw invalid(
    `"${path}" must be ${opts.stopAsArray ? 'an array of strings' : 'a string or an array of strings'}; got ${JSON.stringify(v)}.`,
    `Send e.g. "${path}": ["END"], or leave it out.`,
  );
}

/** Client side: reads the table's fields from the client's body into the hub request (checked, 400 on a bad one). */
export function paramsToHub(map: ParamMap, body: Json, into: HubRequest, opts: ParamReadOptions = {}): void {
  for (const [param, raw] of Object.entries(map) as [SamplingParam, string | ParamSpec][]) {
    const spec = specOf(raw);
    const v = readPath(body, spec.path);
    if (absent(v)) continue;
    if (param === 'stop') {
      const stop = stopAt(v, spec.path, opts);
      if (stop.length) into.stop = stop; // an empty list (or string) stops nothing: left out
      continue;
    }
    const n = numberAt(v, spec.path, opts);
    const value = spec.toHub ? spec.toHub(n) : n;
    if (value === undefined) continue;
    if (POSITIVE_INTEGERS.has(param) && (!Number.isInteger(value) || value < 1)) {
      throw invalid(
        `"${spec.path}" must be a whole number of at least 1; got ${JSON.stringify(v)}.`,
        `Send e.g. "${spec.path}": 1024, or leave it out.`,
      );
    }
    into[param] = value;
  }
}

/** The hub's maximum output tokens: max_completion_tokens (OpenAI's newer name) wins over max_tokens. */
export const maxTokensOf = (req: HubRequest): number | undefined => req.max_completion_tokens ?? req.max_tokens;

/** Provider side: writes the table's fields of the hub request into the provider's body (paths created as needed). */
export function paramsFromHub(
  map: ParamMap,
  req: HubRequest,
  into: Json,
  opts: Pick<ParamReadOptions, 'stopAsArray'> = {},
): void {
  for (const [param, raw] of Object.entries(map) as [SamplingParam, string | ParamSpec][]) {
    const spec = specOf(raw);
    if (param === 'stop') {
      const stop = req.stop;
      if (stop === undefined || (Array.isArray(stop) && stop.length === 0)) continue;
      writePath(into, spec.path, opts.stopAsArray && typeof stop === 'string' ? [stop] : stop);
      continue;
    }
    const hub = param === 'max_tokens' ? maxTokensOf(req) : req[param];
    if (typeof hub !== 'number') continue;
    const value = spec.fromHub ? spec.fromHub(hub) : hub;
    if (value !== undefined) writePath(into, spec.path, value);
  }
}
