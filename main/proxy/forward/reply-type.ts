// Whether a provider's answer is one its API gives, judged before any byte of it reaches the client. A base_url that
// points at a web UI, a login page or a captive portal answers 200 with an HTML page (or redirects to one): that is a
// failure of the provider (the next candidate, or the client's own 502 quoting what came), never a reply passed on.
// Judged from the status and content type alone (no body is parsed), plus one look at the first bytes of a reply whose
// type is neither JSON nor an event stream nor an HTML page (a server that labels its stream text/plain still works).
import { redact } from '../../observability/redact.ts';

/** What a route's replies may be: `api` (JSON, an event stream, NDJSON: the model routes) or `any` (audio, video…). */
export type ReplyTypes = 'api' | 'any';

/** An API's types: JSON (and +json, NDJSON, JSONL) and event streams. */
const API_TYPE = /json|event-stream/i;
/** A web page, which no API answers with. */
const PAGE_TYPE = /^\s*(?:text\/html|application\/xhtml\+xml)\b/i;
/** The start of JSON or of an SSE event (a field or a comment line). */
const API_START = /^(?:[{[]|(?:data|event|id|retry)\s*:|:)/;

/** The verdict on a reply's head: fine, a failure (why), or look at its first bytes (`sniff`). */
export type ReplyVerdict = null | 'sniff' | string;

/**
 * `status` 2xx or 3xx. A redirect is a failure on every route (Switchboard follows none: an API does not redirect a
 * POST); an HTML page is a failure of a reply passed through; on a model route (`api`), a passed-through reply of
 * another declared type is looked at (sniff). Translated replies are read by their format's decoder, which fails on
 * what is not its format.
 */
export function judgeReply(
  status: number,
  headers: Record<string, string | string[] | undefined>,
  replies: ReplyTypes,
  passthrough: boolean,
): ReplyVerdict {
  if (status >= 300) {
    const location = headers.location;
    const to = typeof location === 'string' && location ? ` to ${redact(location).slice(0, 200)}` : '';
    return `answered HTTP ${status}, a redirect${to} (Switchboard follows no redirects: check this provider's base_url)`;
  }
  if (!passthrough) return null;
  const type = headers['content-type'];
  if (typeof type !== 'string' || type === '') return null;
  if (PAGE_TYPE.test(type)) return pageReason(status, type);
  if (replies === 'any' || API_TYPE.test(type)) return null;
  return 'sniff';
}

function pageReason(status: number, type: string): string {
  return (
    `answered HTTP ${status} with a web page (${type.split(';')[0]!.trim()}) instead of the API's JSON or event ` +
    "stream (check this provider's base_url: a web UI or a captive portal answers like this)"
  );
}

/** The first bytes of a reply judged `sniff`: null when they start like JSON or an event stream, else why not. */
export function sniffReply(status: number, type: string, first: Buffer): string | null {
  const start = first.toString('utf8', 0, Math.min(first.length, 64)).trimStart();
  if (start === '' || API_START.test(start)) return null;
  if (/^<(?:!doctype|html|head|body)\b/i.test(start)) return pageReason(status, type);
  return `answered HTTP ${status} with ${type.split(';')[0]!.trim()} that is neither JSON nor an event stream`;
}

/** The start of what came, for the client's error: whitespace collapsed, secrets scrubbed, 200 characters at most. */
export function quoteStart(text: string): string {
  return redact(text.replace(/\s+/g, ' ').trim()).slice(0, 200);
}
