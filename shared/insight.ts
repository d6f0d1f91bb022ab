// The config.json sections and admin API shapes of issue 38 (docs/insight.md, "Secret guard", "Request capture", "Replay and
// compare", "Where the tokens went"): the secret guard's policies, request capture, replays and token attribution.
import { z } from 'zod';

// --- secret_guard ---

/** What the secret guard does with a request that holds a secret, in order of strictness. */
export const GUARD_POLICIES = ['off', 'warn', 'redact', 'block'] as const;
export type GuardPolicy = (typeof GUARD_POLICIES)[number];

const policy = z.enum(GUARD_POLICIES);
/** Provider and app names are config.json's own; at most 200 entries each (a count cap: the table is config). */
const policyTable = z
  .record(z.string().min(1, 'must not be empty').max(128, 'must be at most 128 characters'), policy)
  .refine((t) => Object.keys(t).length <= 200, { message: 'must list at most 200 names' });

/**
 * `secret_guard`: the policy for requests to cloud providers (`default`), per provider and per app. A local provider
 * (type ollama, or a base_url on loopback) is exempt unless `providers` names it. See the README's "Secret guard".
 */
export const SECRET_GUARD_DEFAULTS = { default: 'warn' as GuardPolicy, providers: {}, apps: {} };
export const SecretGuardConfigSchema = z.strictObject({
  default: policy.default(SECRET_GUARD_DEFAULTS.default),
  providers: policyTable.default({}),
  apps: policyTable.default({}),
});
export type SecretGuardConfig = z.infer<typeof SecretGuardConfigSchema>;

/** What the guard found in one request, as the request log keeps it: rule ids and counts, never a value. */
export type GuardFinding = { rule: string; count: number };
export type GuardRecord = {
  /** The policy that applied to the provider that answered (or to the last one tried). */
  policy: Exclude<GuardPolicy, 'off'>;
  /** What was done: `warned` (sent as it was), `redacted` (placeholders sent, originals restored), `blocked`. */
  action: 'warned' | 'redacted' | 'blocked';
  found: GuardFinding[];
};

// --- capture ---

/** `capture`: keep the bodies of the last requests (opt-in), for the log drawer and replays. */
export const CAPTURE_DEFAULTS = { enabled: false, apps: [] as string[], max_requests: 200, max_mb: 100, days: 7 };
export const CaptureConfigSchema = z.strictObject({
  enabled: z.boolean().default(CAPTURE_DEFAULTS.enabled),
  /** Only these apps (matched as app rules match: case, path and .exe/.app ignored); empty: every app. */
  apps: z
    .array(z.string().min(1, 'must not be empty').max(128, 'must be at most 128 characters'))
    .max(100, 'must list at most 100 apps')
    .default([]),
  max_requests: z
    .number()
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(100_000, 'must be at most 100000')
    .default(CAPTURE_DEFAULTS.max_requests),
  max_mb: z
    .number()
    .positive('must be more than 0')
    .max(100_000, 'must be at most 100000')
    .default(CAPTURE_DEFAULTS.max_mb),
  days: z.number().positive('must be more than 0').max(3650, 'must be at most 3650').default(CAPTURE_DEFAULTS.days),
});
export type CaptureConfig = z.infer<typeof CaptureConfigSchema>;

export type CapturedSide = {
  headers: Record<string, string>;
  /** The body as text (UTF-8), scrubbed. */
  body: string;
  /** Whether the body was cut at CAPTURE_BODY_MAX bytes. */
  truncated: boolean;
};

/** One captured request, as stored and as GET /admin/v1/logs/:id/body answers it. */
export type Capture = {
  id: string;
  time: string;
  method: string;
  /** The front door's path with its query (a `?key=` scrubbed). */
  path: string;
  app: string | null;
  provider: string | null;
  model: string | null;
  stream: boolean;
  /** The log id this request replays (POST /admin/v1/replay), or null. */
  replay_of: string | null;
  /** The client's session (X-Claude-Code-Session-Id and the like), or null. */
  session: string | null;
  /** The input tokens the provider reported (the hub's prompt_tokens: cache reads and writes included), or null. */
  input_tokens: number | null;
  request: CapturedSide;
  response: CapturedSide & { status: number };
};

/** GET /admin/v1/logs/:id/body: the capture, and its answer's text and tool calls (a stream reassembled). */
export type LogBody = Capture & { answer: { text: string; tool_calls: { name: string; arguments: string }[] } };

/** GET /admin/v1/usage/attribution's filters. */
export type AttributionQuery = { session?: string; app?: string; from?: string; to?: string };

// --- replay ---

/** The most targets one replay names ("compare on 3 models" and a few more). */
export const REPLAY_TARGETS_MAX = 5;
export const ReplayRequestSchema = z.strictObject({
  log_id: z
    .string()
    .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'must be a request log id'),
  targets: z
    .array(z.strictObject({ provider: z.string().min(1).max(128), model: z.string().min(1).max(128) }))
    .min(1)
    .max(REPLAY_TARGETS_MAX),
});
export type ReplayRequest = z.infer<typeof ReplayRequestSchema>;

/** One replay's outcome, beside the original's. */
export type ReplayResult = {
  provider: string;
  model: string;
  /** The replay's own request log id (its entry has `replay_of`). */
  log_id: string;
  status: number;
  latency_ms: number;
  /** The answer's text (a stream reassembled), its tool calls, and its token counts from the request log. */
  text: string;
  tool_calls: { name: string; arguments: string }[];
  prompt_tokens: number | null;
  completion_tokens: number | null;
  /** The reply's body as the client got it (cut at 256 KB). */
  body: string;
};
export type ReplayResponse = {
  original: {
    log_id: string;
    provider: string | null;
    model: string | null;
    text: string;
    tool_calls: ReplayResult['tool_calls'];
  };
  replays: ReplayResult[];
};

// --- answers as text ---

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : null);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * The text and tool calls of an answer in any client format (Anthropic Messages, OpenAI chat and Responses, Gemini,
 * Ollama), whole or streamed (SSE or NDJSON events reassembled): what the log drawer and the replay diff show.
 */
export function answerOf(body: string): { text: string; tool_calls: { name: string; arguments: string }[] } {
  const events: unknown[] = [];
  const trimmed = body.trim();
  try {
    events.push(JSON.parse(trimmed));
  } catch {
    for (const line of trimmed.split(/\r?\n/)) {
      const data = line.startsWith('data:') ? line.slice(5).trim() : line.trim();
      if (!data.startsWith('{')) continue;
      try {
        events.push(JSON.parse(data));
      } catch {
        // not an event
      }
    }
  }
  let text = '';
  const calls: { name: string; arguments: string }[] = [];
  const callAt = new Map<string, { name: string; arguments: string }>();
  const call = (key: string, name: string): { name: string; arguments: string } => {
    let c = callAt.get(key);
    if (!c) {
      c = { name, arguments: '' };
      callAt.set(key, c);
      calls.push(c);
    } else if (name && !c.name) c.name = name;
    return c;
  };
  for (const e of events) {
    const o = obj(e);
    if (!o) continue;
    // Anthropic, whole and streamed.
    if (o.type === 'message' || o.type === 'message_start') {
      const m = obj(o.message) ?? o;
      for (const [i, b] of arr(m.content).entries()) {
        const bo = obj(b);
        if (bo?.type === 'text') text += str(bo.text);
        if (bo?.type === 'tool_use') call(`a${i}`, str(bo.name)).arguments += JSON.stringify(bo.input ?? {});
      }
    }
    if (o.type === 'content_block_start') {
      const b = obj(o.content_block);
      if (b?.type === 'tool_use') call(`a${String(o.index)}`, str(b.name));
      if (b?.type === 'text') text += str(b.text);
    }
    if (o.type === 'content_block_delta') {
      const d = obj(o.delta);
      if (d?.type === 'text_delta') text += str(d.text);
      if (d?.type === 'input_json_delta') call(`a${String(o.index)}`, '').arguments += str(d.partial_json);
    }
    // OpenAI chat completions.
    for (const ch of arr(o.choices)) {
      const c = obj(ch);
      const m = obj(c?.message) ?? obj(c?.delta);
      if (!m) continue;
      text += str(m.content);
      for (const [i, tc] of arr(m.tool_calls).entries()) {
        const t = obj(tc);
        const f = obj(t?.function);
        const key = `o${typeof t?.index === 'number' ? t.index : i}`;
        call(key, str(f?.name)).arguments += str(f?.arguments);
      }
    }
    // OpenAI Responses.
    if (o.type === 'response.output_text.delta') text += str(o.delta);
    if (o.type === 'response.function_call_arguments.delta')
      call(`r${String(o.output_index)}`, '').arguments += str(o.delta);
    if (o.type === 'response.output_item.added') {
      const it = obj(o.item);
      if (it?.type === 'function_call') call(`r${String(o.output_index)}`, str(it.name));
    }
    if (o.object === 'response') {
      for (const [i, it] of arr(o.output).entries()) {
        const item = obj(it);
        if (item?.type === 'message') for (const p of arr(item.content)) text += str(obj(p)?.text);
        if (item?.type === 'function_call') call(`r${i}`, str(item.name)).arguments += str(item.arguments);
      }
    }
    // Gemini.
    for (const cand of arr(o.candidates)) {
      for (const p of arr(obj(obj(cand)?.content)?.parts)) {
        const po = obj(p);
        text += str(po?.text);
        const fc = obj(po?.functionCall);
        if (fc) call(`g${calls.length}`, str(fc.name)).arguments += JSON.stringify(fc.args ?? {});
      }
    }
    // Ollama.
    const om = obj(o.message);
    if (om && o.type === undefined && o.model !== undefined) text += str(om.content);
  }
  return { text, tool_calls: calls };
}

// --- attribution ---

/** One request's input tokens by where they went (GET /admin/v1/usage/attribution). */
export type AttributionSplit = {
  /** The provider's count (prompt_tokens, cache reads and writes included) when `exact`, else the estimate (bytes / 4). */
  input_tokens: number;
  exact: boolean;
  system: number;
  tool_definitions: number;
  tool_results: number;
  conversation: number;
  /** The JSON around the parts and the request's parameters. */
  other: number;
  /** Tool definitions per tool, and per MCP server (tools named mcp__<server>__<tool>). */
  tools: Record<string, number>;
  mcp_servers: Record<string, number>;
  /** Tool results per tool. */
  results: Record<string, number>;
};

export const AttributionQuerySchema = z.strictObject({
  session: z.string().min(1).max(128).optional(),
  app: z.string().min(1).max(128).optional(),
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
});

export type AttributionResponse = {
  /** The captured requests that matched, oldest first (a session's timeline); at most ATTRIBUTION_REQUESTS_MAX. */
  requests: {
    id: string;
    time: string;
    app: string | null;
    session: string | null;
    model: string | null;
    split: AttributionSplit;
  }[];
  /** Their sum (tools, servers and results by name). */
  total: AttributionSplit;
  /** Per day (UTC), their sums. */
  days: { day: string; total: AttributionSplit }[];
};
export const ATTRIBUTION_REQUESTS_MAX = 2000;
