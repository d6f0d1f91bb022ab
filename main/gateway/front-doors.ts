// Which requests are front doors (they check gateway credentials themselves, in their own wire format, after the
// host guard and before reading the body: main/server/front-door.ts), and the wire format a refusal of any other
// route is written in. Gateway mode's auth middleware (gateway.ts) checks every request that is not on this list.
import type { IncomingHttpHeaders } from 'node:http';
import { anthropicFormat } from '../proxy/formats/anthropic/index.ts';
import { geminiFormat } from '../proxy/formats/gemini/index.ts';
import type { ClientFormat } from '../proxy/formats/hub/index.ts';
import { ollamaFormat } from '../proxy/formats/ollama/index.ts';
import { openaiFormat } from '../proxy/formats/openai/index.ts';

/** The gateway's OpenAI-shaped endpoints forwarded as JSON (routes.ts). */
export const GATEWAY_JSON_PATHS = [
  '/v1/responses/compact',
  '/v1/images/generations',
  '/v1/audio/speech',
  '/v1/rerank',
  '/v1/moderations',
] as const;
/** The gateway's multipart uploads (routes.ts). */
export const GATEWAY_MULTIPART_PATHS = [
  '/v1/images/edits',
  '/v1/audio/transcriptions',
  '/v1/audio/translations',
] as const;
/** Video task creates (routes.ts); vendor B's creates are any POST under /vendorb/. */
export const VIDEO_CREATE_PATHS = [
  '/v1/videos',
  '/v1/video/generations',
  '/vendora/v1/videos/text2video',
  '/vendora/v1/videos/image2video',
] as const;

/** The POST paths main/server/app.ts hands to a front door, and the gateway's own (routes.ts). */
const FRONT_DOOR_POSTS: ReadonlySet<string> = new Set([
  '/v1/chat/completions',
  '/v1/messages',
  '/v1/responses',
  '/v1/completions',
  '/v1/embeddings',
  '/api/chat',
  '/api/generate',
  '/api/embed',
  '/api/embeddings',
  ...GATEWAY_JSON_PATHS,
  ...GATEWAY_MULTIPART_PATHS,
  ...VIDEO_CREATE_PATHS,
]);
/** Front doors whose path carries a part: OpenAI's engine embeddings, Gemini's generate actions, vendor B's creates. */
const FRONT_DOOR_POST_PATTERNS = [
  /^\/v1\/engines\/[^/]+\/embeddings$/,
  /^\/v1beta\/models\/[^/]+:(?:generateContent|streamGenerateContent)$/,
  /^\/vendorb(?:\/|$)/,
];

/**
 * Whether a request goes to a front door, which checks credentials itself. Exact paths only (the path as Hono routes
 * it): everything else, Gemini's :countTokens, Anthropic's count_tokens, /api/show and unknown paths included, is
 * checked by the gateway's auth middleware.
 */
export function isFrontDoor(method: string, path: string): boolean {
  if (method !== 'POST') return false;
  return FRONT_DOOR_POSTS.has(path) || FRONT_DOOR_POST_PATTERNS.some((re) => re.test(path));
}

/**
 * The wire format a refusal is written in, so each vendor's client shows it: Ollama's under /api/, Gemini's under
 * /v1beta/, Anthropic's for /v1/messages…; elsewhere (model lists, video polls) the caller's own, told by its headers
 * as the model list's shape is (anthropic-version, x-goog-api-key or ?key=), else OpenAI's. The admin API's own shape
 * (`{"error": {code, message, action}}`, OpenAI's) whatever the caller's headers: the UI and the CLI read its code.
 */
export function errorFormatFor(path: string, headers: IncomingHttpHeaders, query: URLSearchParams): ClientFormat {
  if (path.startsWith('/admin/')) return openaiFormat;
  if (path.startsWith('/api/')) return ollamaFormat;
  if (path.startsWith('/v1beta/')) return geminiFormat;
  if (path.startsWith('/v1/messages') || headers['anthropic-version']) return anthropicFormat;
  if (headers['x-goog-api-key'] || query.has('key')) return geminiFormat;
  return openaiFormat;
}

/** The one route served over a WebSocket upgrade (realtime.ts), outside the HTTP app's route table. */
export const REALTIME_PATH = '/v1/realtime';
