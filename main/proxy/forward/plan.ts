// How one candidate is called: the path and body for its provider, and how its reply becomes the client's.
import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { logger } from '../../observability/logger.ts';
import type {
  ClientFormat,
  FormatName,
  HubRequest,
  ReplyContext,
  StreamDecoder,
  StreamEncoder,
} from '../formats/hub/index.ts';
import { hasCacheMarkers, withoutCacheMarkers } from '../formats/hub/index.ts';
import { ApiError } from '../../errors.ts';
import { auditRequest, type Refusal } from '../formats/hub/accepted.ts';
import { acceptedFields, providerFormat } from '../formats/index.ts';
import { openaiFormat } from '../formats/openai/index.ts';
import type { ProviderKind } from '../providers/index.ts';
import { type Adjusted, applyQuirks, type QuirkTable } from '../quirks.ts';

/** A body streamed from disk: its exact length, and a fresh stream of it per attempt (so failover can resend it). */
export type UploadBody = { length: number; open(): Readable };

/** How a provider's reply becomes the client's when their formats differ. */
export type Translation = {
  /** A whole (non-stream) 2xx reply body → the client's body (the hub response for an in-process caller). */
  json(body: unknown): unknown;
  /** A streamed reply: the provider's decoder to hub chunks. */
  decoder?: () => StreamDecoder;
  /** The client's stream encoder of hub chunks (absent for an in-process caller, which takes the chunks). */
  encoder?: () => StreamEncoder;
  /** A provider's own 4xx body → the message for the client's error. */
  errorMessage(body: unknown): string | undefined;
};

export type AttemptPlan = {
  path: string;
  body: Buffer;
  /** A streamed body (a spooled multipart upload) sent instead of `body`: re-opened for each attempt. */
  upload?: UploadBody;
  /** Absent: the provider speaks the client's format and its bytes pass through. */
  translate?: Translation;
  /**
   * A passthrough reply of a chat-like route: the format whose end it must reach (a stream its terminal event, a whole
   * reply complete JSON), else it is a cut reply and the client gets its own error (http-sinks.ts, PassthroughSink).
   * Absent on routes whose replies have no such end (images, audio).
   */
  ends?: FormatName;
  /**
   * Fields left out of the request for this provider, each as "field: why": the client's fields its format could not
   * carry (ClientContext.dropped), the quirks table's ("field=value: why"), and the provider format's own (its
   * accepted fields): the request log's attempt lists them, and the reply's x-switchboard-dropped header names them.
   */
  dropped?: string[];
  /**
   * The client's response as the reply's sink should write to it: the secret guard's restore of the secrets it
   * redacted from this attempt's request (main/proxy/guard/restore.ts). Absent: the response itself.
   */
  rewriteReply?: (res: ServerResponse) => ServerResponse;
};

/** The longest field name, and the most names, x-switchboard-dropped carries (the request log keeps them all). */
const DROPPED_NAME_MAX = 100;
const DROPPED_NAMES_MAX = 32;

/**
 * A field name as a header value can carry it: some are the client's own keys (any text), so every character but
 * printable ASCII, and the list's "," and the escape's "%", is percent-encoded as UTF-8 (a lone surrogate as U+FFFD).
 */
function headerSafe(name: string): string {
  let out = '';
  for (const ch of name) {
    const c = ch.codePointAt(0)!;
    out +=
      c > 0x20 && c < 0x7f && ch !== ',' && ch !== '%'
        ? ch
        : encodeURIComponent(c >= 0xd800 && c <= 0xdfff ? '\ufffd' : ch);
    if (out.length > DROPPED_NAME_MAX) return `${out.slice(0, DROPPED_NAME_MAX)}...`;
  }
  return out;
}

/**
 * The x-switchboard-dropped header: the names of a plan's dropped fields ("field: why" entries), comma-separated,
 * header-safe (headerSafe), at most DROPPED_NAMES_MAX of them and then how many more.
 */
export function droppedHeader(dropped: readonly string[]): string {
  const names = new Set<string>(); // a Set: a client may send thousands of unknown keys
  for (const entry of dropped) {
    const end = entry.search(/[=:]/);
    names.add(end === -1 ? entry : entry.slice(0, end));
  }
  const shown: string[] = [];
  for (const name of names) {
    if (shown.length === DROPPED_NAMES_MAX) break;
    shown.push(headerSafe(name));
  }
  if (names.size > DROPPED_NAMES_MAX) shown.push(`...(${names.size - DROPPED_NAMES_MAX} more)`);
  return shown.join(',');
}

export type PlanTarget = {
  kind: ProviderKind;
  baseUrl: URL;
  name: string;
  /** The provider's `native_formats` (config.json): wire formats it serves besides its type's own. */
  nativeFormats?: readonly string[];
};

export interface Planner {
  /**
   * The call for this candidate, or why it cannot serve the request (it is then skipped). Throws RefusedField when
   * the provider's format refuses a field of the request: the candidate is skipped too, and the refusal is the
   * client's error when no candidate can serve it.
   */
  plan(target: PlanTarget): AttemptPlan | string;
}

/**
 * The hub request as this provider and model should get it, after the quirks table (quirks.ts): the request itself
 * when nothing changes. What was dropped or renamed goes to the debug log; the drops also go to the request log.
 */
export function hubForProvider(
  target: PlanTarget,
  hub: HubRequest,
  quirks: QuirkTable,
): { hub: HubRequest; dropped?: string[] } {
  const adjusted = applyQuirks(hub, quirks.resolve(target, hub.model), {
    translated: true,
    format: target.kind.format,
  });
  if (!adjusted) return { hub };
  logAdjusted(target, hub.model, adjusted);
  return { hub: adjusted.body, ...(adjusted.dropped.length ? { dropped: adjusted.dropped } : {}) };
}

function logAdjusted(target: PlanTarget, model: string, a: Adjusted<unknown>): void {
  logger.debug({ provider: target.name, model, dropped: a.dropped, renamed: a.renamed }, 'quirks table applied');
}

/**
 * Prompt-cache markers (hub/cache-control.ts) kept for an OpenAI-format provider the quirks table says reads them
 * (`cache_control: true`: OpenRouter, DashScope), else taken out, with the dropped entry that says so; null when the
 * request has none or keeps them.
 */
function cacheMarkersFor(
  target: PlanTarget,
  hub: HubRequest,
  quirks: QuirkTable,
  label: string,
): { hub: HubRequest; dropped: string } | null {
  if (!hasCacheMarkers(hub)) return null;
  const openai = target.kind.format === 'openai';
  if (openai && quirks.resolve(target, hub.model)?.cacheControl === true) return null;
  const why = openai
    ? `provider "${target.name}" is not known to read prompt-cache markers (a quirks entry with "cache_control": true says it does)`
    : `${label} gets no prompt-cache markers (its translation does not carry them)`;
  return { hub: withoutCacheMarkers(hub), dropped: `cache_control: ${why}` };
}

/**
 * Why one candidate may not take the request (thrown by a planner): the candidate is skipped, and the first such
 * refusal is the client's error when no candidate can serve the request (a refused field, the secret guard's block).
 */
export class CandidateRefusal extends ApiError {}

/** 400 invalid_request: a field this provider's format refuses (formats/hub/accepted.ts), naming the provider. */
export class RefusedField extends CandidateRefusal {
  constructor(r: Refusal, target: PlanTarget, label: string) {
    const shown = JSON.stringify(r.value);
    const value = shown === undefined || shown.length > 60 ? '' : ` (${shown})`;
    const message = `"${r.field}"${value} cannot go to provider "${target.name}", ${label}: ${r.why}.`;
    super('invalid_request', message, r.fix, [{ field: r.field, message: r.why }]);
  }
}

/**
 * The usual plan of a chat-like endpoint: the client's bytes when the provider speaks its format, else translated.
 * An OpenAI chat request passed through is rewritten only when the quirks table changes something for this provider
 * and model; otherwise its bytes go on untouched. A translated request is audited against the provider format's
 * table of accepted fields: what it drops is listed (`dropped`, with why); a field it refuses throws RefusedField
 * (failover skips this candidate, and the refusal is the client's 400 when no other candidate can serve it).
 */
export function chatPlan(
  target: PlanTarget,
  native: string | null,
  rawBody: Buffer,
  hub: HubRequest,
  client: ClientFormat,
  ctx: ReplyContext,
  stream: boolean,
  quirks: QuirkTable,
): AttemptPlan {
  if (native !== null) {
    const ends = client.name;
    if (client !== openaiFormat || target.kind.format !== 'openai') return { path: native, body: rawBody, ends };
    const q = quirks.resolve(target, hub.model);
    const adjusted = q && applyQuirks(hub, q, { translated: false, format: 'openai' });
    if (!adjusted) return { path: native, body: rawBody, ends };
    logAdjusted(target, hub.model, adjusted);
    const body = Buffer.from(JSON.stringify(adjusted.body));
    return { path: native, body, ends, ...(adjusted.dropped.length ? { dropped: adjusted.dropped } : {}) };
  }
  const pf = providerFormat(target.kind.format);
  const sent = hubForProvider(target, hub, quirks);
  const table = acceptedFields(target.kind.format);
  const cache = cacheMarkersFor(target, sent.hub, quirks, table.label);
  if (cache) sent.hub = cache.hub;
  const audit = auditRequest(table, sent.hub);
  if (audit.refusal) throw new RefusedField(audit.refusal, target, table.label);
  // The client's own fields with no hub form (noted by its format), the prompt-cache markers this provider does not
  // read, then the quirks table's, then this format's.
  const all = [
    ...(ctx.dropped ?? []),
    ...(cache ? [cache.dropped] : []),
    ...(sent.dropped ?? []),
    ...audit.dropped.map((d) => `${d.field}: ${d.why}`),
  ];
  const dropped = all.length ? all : undefined;
  return {
    path: target.kind.chatPath(hub.model, stream),
    body: Buffer.from(JSON.stringify(pf.requestFromHub(sent.hub))),
    ...(dropped ? { dropped } : {}),
    translate: {
      json: (body) => client.responseFromHub(pf.responseToHub(body, hub.model), ctx),
      decoder: () => pf.streamDecoder(hub.model),
      encoder: () => client.streamEncoder(ctx),
      errorMessage: (body) => pf.errorMessage(body),
    },
  };
}
