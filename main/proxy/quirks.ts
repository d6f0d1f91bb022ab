// The provider/model quirks table: what a request to a given provider and model must not carry or must carry under
// another name (OpenAI's reasoning models refuse max_tokens and a non-default temperature...), and what the model can
// do (capabilities, context length: Ollama's /api/show). One table for every way a request reaches a provider:
// translated requests and OpenAI chat passthrough (forward/plan.ts), the agents' in-process calls (in-process.ts),
// and the Ollama look-alike's metadata (server/compat.ts). config.json's `quirks.entries` come first, then the
// built-in entries (quirks-table.ts).
//
// Matching: an entry's `match.model` glob (default "*") is tried on the routed model and on its last path segment
// ("openai/o3" matches "o3*"); `provider` (a glob on the provider's name), `type` and `host` (a glob on the base_url's
// host, or the host `quirks.provider_hosts` names for that provider) narrow it. Globs as in routing: `*` matches any
// run of characters, braces list alternatives, case is ignored.
//
// Merging: each request field is taken from the first matching entry that sets it (so `"drop": []` in config.json
// cancels the built-in drops); the model's description (capabilities with context_length) from the first matching
// entry that states either. Field names are OpenAI chat's (the hub's).
import micromatch from 'micromatch';
import type { Config, ModelCapability, ProviderType, QuirkEntry } from '../../shared/config.ts';
import type { FormatName } from './formats/hub/index.ts';
import { BUILTIN_QUIRKS } from './quirks-table.ts';

const GLOB_OPTIONS = { bash: true, nocase: true } as const;

/** What a provider looks like to the table (a forward/ PlanTarget fits). */
export type QuirkTarget = { name: string; kind: { type: ProviderType }; baseUrl: URL };

/** The table's word on one provider and model. */
export type Quirks = {
  rename: Record<string, string>;
  drop: string[];
  fixed: Record<string, unknown>;
  dropWhenReasoning: string[];
  /** true: takes reasoning_effort; false: does not reason (reasoning fields dropped); undefined: not known. */
  reasoningEffort?: boolean;
  /** true: reads Anthropic-style prompt-cache markers on OpenAI-format messages (hub/cache-control.ts). */
  cacheControl?: boolean;
  capabilities?: ModelCapability[];
  contextLength?: number;
};

/** Capabilities a model gets when no entry describes it (a chat model with tools, as /api/show always said). */
export const DEFAULT_CAPABILITIES: readonly ModelCapability[] = ['completion', 'tools'];

type ProviderCache = { url: URL; type: ProviderType; host: string; models: Map<string, Quirks | null> };

type Compiled = {
  entry: QuirkEntry;
  model: (m: string) => boolean;
  provider: ((name: string) => boolean) | null;
  host: ((host: string) => boolean) | null;
};

function compile(entry: QuirkEntry): Compiled {
  const { model = '*', provider, host } = entry.match;
  return {
    entry,
    model: micromatch.matcher(model, GLOB_OPTIONS),
    provider: provider ? micromatch.matcher(provider, GLOB_OPTIONS) : null,
    host: host ? micromatch.matcher(host, GLOB_OPTIONS) : null,
  };
}

/** The compiled table of one config: config.json's entries, then the built-in ones; results cached per call. */
export class QuirkTable {
  private readonly entries: Compiled[];
  /** Per provider name: its type and host (an entry for another type or host is replaced), then per model. */
  private readonly cache = new Map<string, ProviderCache>();

  constructor(
    userEntries: readonly QuirkEntry[] = [],
    private readonly providerHosts: Readonly<Record<string, string>> = {},
    builtin: readonly QuirkEntry[] = BUILTIN_QUIRKS,
  ) {
    this.entries = [...userEntries, ...builtin].map(compile);
  }

  /** The host a provider is matched as: `quirks.provider_hosts[name]`, else its base_url's. */
  hostOf(t: QuirkTarget): string {
    return (this.providerHosts[t.name] ?? t.baseUrl.hostname).toLowerCase();
  }

  /** The merged word of every entry matching this provider and model, or null when none matches. */
  resolve(t: QuirkTarget, model: string): Quirks | null {
    const models = this.modelsOf(t);
    const hit = models.get(model);
    if (hit !== undefined) return hit;
    const result = this.compute(t, model);
    if (models.size >= 2000) models.clear();
    models.set(model, result);
    return result;
  }

  /**
   * The cache of one provider's models: found by its name, then its URL object (the same one on every request through
   * a provider), else its type and host compared; no key is built per request.
   */
  private modelsOf(t: QuirkTarget): Map<string, Quirks | null> {
    let p = this.cache.get(t.name);
    if (p && p.url === t.baseUrl && p.type === t.kind.type) return p.models;
    const host = t.baseUrl.hostname;
    if (p && p.type === t.kind.type && p.host === host) p.url = t.baseUrl;
    else {
      if (!p && this.cache.size >= 1000) this.cache.clear();
      p = { url: t.baseUrl, type: t.kind.type, host, models: new Map() };
      this.cache.set(t.name, p);
    }
    return p.models;
  }

  private compute(t: QuirkTarget, model: string): Quirks | null {
    const host = this.hostOf(t);
    const slash = model.lastIndexOf('/');
    const tail = slash >= 0 ? model.slice(slash + 1) : null;
    const out: Partial<Quirks> = {};
    let described = false;
    let matched = false;
    for (const c of this.entries) {
      const { entry } = c;
      if (entry.match.type && entry.match.type !== t.kind.type) continue;
      if (c.provider && !c.provider(t.name)) continue;
      if (c.host && !c.host(host)) continue;
      if (!c.model(model) && !(tail !== null && c.model(tail))) continue;
      matched = true;
      out.rename ??= entry.rename;
      out.drop ??= entry.drop;
      out.fixed ??= entry.fixed;
      out.dropWhenReasoning ??= entry.drop_when_reasoning;
      if (out.reasoningEffort === undefined && entry.reasoning_effort !== undefined) {
        out.reasoningEffort = entry.reasoning_effort;
      }
      if (out.cacheControl === undefined && entry.cache_control !== undefined) out.cacheControl = entry.cache_control;
      if (!described && (entry.capabilities !== undefined || entry.context_length !== undefined)) {
        described = true;
        if (entry.capabilities) out.capabilities = entry.capabilities;
        if (entry.context_length) out.contextLength = entry.context_length;
      }
    }
    if (!matched) return null;
    return {
      rename: out.rename ?? {},
      drop: out.drop ?? [],
      fixed: out.fixed ?? {},
      dropWhenReasoning: out.dropWhenReasoning ?? [],
      ...(out.reasoningEffort !== undefined ? { reasoningEffort: out.reasoningEffort } : {}),
      ...(out.cacheControl !== undefined ? { cacheControl: out.cacheControl } : {}),
      ...(out.capabilities ? { capabilities: out.capabilities } : {}),
      ...(out.contextLength ? { contextLength: out.contextLength } : {}),
    };
  }
}

const tables = new WeakMap<Config, QuirkTable>();

/** The table of a config (built once per config object: a reload gives a new one). */
export function quirkTableFor(config: Config): QuirkTable {
  let table = tables.get(config);
  if (!table) {
    const q = config.quirks ?? { entries: [], provider_hosts: {} };
    table = new QuirkTable(q.entries, q.provider_hosts);
    tables.set(config, table);
  }
  return table;
}

/** How a body reaches the provider: translated from the hub (into `format`), or the client's own JSON passed on. */
export type QuirkMode = { translated: boolean; format: FormatName };

/** A body after the table: the new object, what was dropped (with why) and what was renamed. */
export type Adjusted<T> = { body: T; dropped: string[]; renamed: string[] };

const present = (body: Record<string, unknown>, k: string): boolean => body[k] !== undefined;
const shown = (v: unknown): string => {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
};

/**
 * Applies the table's word to a request body in OpenAI chat's field names (the hub request, or an OpenAI client's
 * JSON). Returns null when nothing changes (the caller keeps the original object, or the client's bytes). The body
 * given is never changed. reasoning_effort (with the hub's reasoning_budget) is dropped when the table says the
 * model does not reason, and, on a translated request to an OpenAI-format provider, unless the table says it takes it.
 */
export function applyQuirks<T extends Record<string, unknown>>(
  body: T,
  q: Quirks | null,
  mode: QuirkMode,
): Adjusted<T> | null {
  const out: Record<string, unknown> = { ...body };
  const dropped: string[] = [];
  const renamed: string[] = [];
  const drop = (k: string, why: string) => {
    dropped.push(`${k}=${shown(out[k])}: ${why}`);
    delete out[k];
  };
  if (q) {
    for (const [from, to] of Object.entries(q.rename)) {
      if (!present(out, from)) continue;
      if (present(out, to)) drop(from, `${to} is also given and is the one this model takes`);
      else {
        out[to] = out[from];
        delete out[from];
        renamed.push(`${from} → ${to}`);
      }
    }
    for (const [k, v] of Object.entries(q.fixed)) {
      if (present(out, k) && out[k] !== v) drop(k, `this model takes only ${shown(v)}`);
    }
    for (const k of q.drop) if (present(out, k)) drop(k, 'this model does not take it');
  }
  const effort = q?.reasoningEffort;
  if (effort === false) {
    for (const k of ['reasoning_effort', 'reasoning_budget']) {
      if (present(out, k)) drop(k, 'this model does not reason');
    }
  } else if (effort === undefined && mode.translated && mode.format === 'openai' && present(out, 'reasoning_effort')) {
    drop(
      'reasoning_effort',
      'the quirks table does not say this model takes it (an entry with reasoning_effort: true)',
    );
  }
  if (q && q.dropWhenReasoning.length > 0) {
    const level = out.reasoning_effort;
    if (typeof level === 'string' && level !== 'none') {
      for (const k of q.dropWhenReasoning) {
        if (present(out, k)) drop(k, `this model takes it only with reasoning_effort "none" (not "${level}")`);
      }
    }
  }
  if (dropped.length === 0 && renamed.length === 0) return null;
  return { body: out as T, dropped, renamed };
}
