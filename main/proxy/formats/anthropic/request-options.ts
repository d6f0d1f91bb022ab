// Client side: the top-level fields of an Anthropic Messages request beyond messages, system, tools and the sampling
// fields: thinking, output_config and output_format are translated; the fields only Anthropic's servers can act on
// are refused (400 naming the field) or dropped, each listed here with its reason (and in DECISIONS.md).
import { absent, effortFromBudget, invalid, isObject, noteDropped, noteUnknownFields } from '../hub/index.ts';
import type { ClientContext } from '../hub/index.ts';
import type { HubRequest, Json, ReasoningEffort } from '../hub/index.ts';

/**
 * Refused: what they ask for happens on Anthropic's servers only, and leaving them out would change the answer or
 * break a promise the client relies on. A request with one of them still passes through to an Anthropic provider.
 */
const REFUSED: Record<string, string> = {
  inference_geo: 'where Anthropic runs the model (data residency), which another provider cannot promise',
  mcp_servers: "MCP servers that Anthropic's servers call during the request",
  thread: 'a conversation Anthropic keeps on its servers (Switchboard keeps none: send the whole conversation)',
  compaction: "a compaction request, answered by Anthropic's server-side summary of the conversation",
};

/**
 * Dropped, with the reason (DECISIONS.md lists them too): settings of Anthropic's own service that another
 * provider has no use for, and that change nothing the client reads in the answer.
 */
export const DROPPED_FIELDS: Record<string, string> = {
  cache_control:
    "Anthropic's prompt-cache markers on tools, tool calls, images or the whole request (markers on system, text and " +
    'tool-result blocks are carried to providers that read them)',
  container: "a code-execution container on Anthropic's servers (its tools are refused)",
  context_management: 'server-side context editing; the provider gets the conversation exactly as the client sent it',
  diagnostics: "Anthropic's prompt-cache diagnostics",
  service_tier: "Anthropic's capacity tier",
  speed: "Anthropic's fast mode",
  fallbacks: "Anthropic's server-side retry on other Claude models (Switchboard's failover is routing's)",
  fallback_credit_token: "Anthropic's billing of a retry after a refusal",
  billing_policy: "who Anthropic bills; another provider bills its own key's owner",
};

/** Every top-level field the Anthropic door reads, refuses or drops by name; any other is noted as unknown. */
const KNOWN_FIELDS: ReadonlySet<string> = new Set([
  'model',
  'messages',
  'system',
  'max_tokens',
  'stream',
  'temperature',
  'top_p',
  'top_k',
  'stop_sequences',
  'tools',
  'tool_choice',
  'metadata',
  'thinking',
  'output_config',
  'output_format',
  ...Object.keys(REFUSED),
  ...Object.keys(DROPPED_FIELDS),
]);

const DISPLAY_DROPPED =
  "how Anthropic shows its thinking blocks (summarized or omitted); other providers' reasoning comes as it is";

/** Anthropic's effort levels as the hub's (xhigh and max are beyond the hub's highest). */
const EFFORT_TO_HUB: Record<string, ReasoningEffort> = {
  low: 'low',
  medium: 'medium',
  high: 'high',
  xhigh: 'high',
  max: 'high',
};

/** The effort an adaptive `thinking` stands for when output_config gives none: the middle of the scale. */
const ADAPTIVE_EFFORT: ReasoningEffort = 'medium';

function refuseServerSide(body: Json): void {
  for (const [field, what] of Object.entries(REFUSED)) {
    const v = body[field];
    if (absent(v) || (Array.isArray(v) && v.length === 0)) continue;
    throw invalid(
      `"${field}" asks for ${what}; Switchboard cannot translate it for other providers.`,
      `Remove "${field}", or route this model to an Anthropic provider (the request then passes through untouched).`,
    );
  }
}

/** output_config.effort (or undefined), checked. */
function effortOf(config: Json): ReasoningEffort | undefined {
  const effort = config.effort;
  if (absent(effort)) return undefined;
  const hub = typeof effort === 'string' ? EFFORT_TO_HUB[effort] : undefined;
  if (!hub) {
    throw invalid(
      `"output_config.effort" must be "low", "medium", "high", "xhigh" or "max"; got ${JSON.stringify(effort)}.`,
      'Send one of those levels, or leave "effort" out.',
    );
  }
  return hub;
}

/** Anthropic's structured output (output_config.format, or the older output_format) as the hub's response_format. */
function formatToHub(format: unknown, path: string, req: HubRequest): void {
  if (absent(format)) return;
  if (!isObject(format) || format.type !== 'json_schema' || !isObject(format.schema)) {
    throw invalid(
      `"${path}" must be {"type": "json_schema", "schema": {...}}.`,
      `Send "${path}": {"type": "json_schema", "schema": {"type": "object", "properties": {...}}}.`,
    );
  }
  req.response_format = { type: 'json_schema', json_schema: { name: 'response', schema: format.schema } };
}

/**
 * `thinking` as the hub's reasoning fields: enabled → reasoning_budget (its budget_tokens) and the effort that
 * budget stands for; disabled → 'none'; adaptive and between_tools → the effort of output_config (else medium), their
 * budget_tokens ignored (Claude Code sends 0 there). `display` is Anthropic's rendering choice: dropped.
 */
function thinkingToHub(thinking: unknown, effort: ReasoningEffort | undefined, req: HubRequest): void {
  const types = '"enabled" (with "budget_tokens"), "adaptive", "disabled" or "between_tools"';
  if (!isObject(thinking)) throw invalid('"thinking" must be an object.', `Send {"type": ...} with type ${types}.`);
  switch (thinking.type) {
    case 'enabled': {
      const budget = thinking.budget_tokens;
      if (typeof budget !== 'number' || !Number.isInteger(budget) || budget < 1) {
        throw invalid(
          `"thinking.budget_tokens" must be a whole number of at least 1; got ${JSON.stringify(budget)}.`,
          'Send {"type": "enabled", "budget_tokens": 2048}.',
        );
      }
      req.reasoning_budget = budget;
      req.reasoning_effort = effort ?? effortFromBudget(budget);
      return;
    }
    case 'disabled':
      req.reasoning_effort = 'none';
      return;
    case 'adaptive':
    case 'between_tools':
      req.reasoning_effort = effort ?? ADAPTIVE_EFFORT;
      return;
    default:
      throw invalid(`"thinking.type" must be ${types}; got ${JSON.stringify(thinking.type)}.`, 'Send one of those.');
  }
}

/**
 * Whether a cache_control marker stands where the hub cannot keep it: the top level, a tool, an assistant turn's block
 * (text, tool_use, thinking), a system message inside `messages`, an image (in a user turn or a tool result). Markers
 * on the system prompt's, text, document, search_result and tool_result blocks go on with their text
 * (request-to-hub.ts; hub/cache-control.ts).
 */
function hasUncarriedCacheControl(body: Json): boolean {
  const marked = (v: unknown): boolean => isObject(v) && !absent(v.cache_control);
  const blocks = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
  const markedImage = (b: unknown): boolean =>
    isObject(b) && (b.type === 'image' ? marked(b) : b.type === 'tool_result' && blocks(b.content).some(markedImage));
  return (
    !absent(body.cache_control) ||
    blocks(body.tools).some(marked) ||
    blocks(body.messages).some((m) => isObject(m) && blocks(m.content).some(m.role === 'user' ? markedImage : marked))
  );
}

/**
 * Reads thinking, output_config and output_format into `req`; refuses the fields only Anthropic can act on, and
 * notes on `ctx` the ones dropped (DROPPED_FIELDS) that the request has, and any field it does not know.
 */
export function optionsToHub(body: Json, req: HubRequest, ctx?: ClientContext): void {
  refuseServerSide(body);
  for (const [field, why] of Object.entries(DROPPED_FIELDS)) {
    if (field === 'cache_control' ? hasUncarriedCacheControl(body) : !absent(body[field])) noteDropped(ctx, field, why);
  }
  noteUnknownFields(ctx, body, KNOWN_FIELDS);
  let effort: ReasoningEffort | undefined;
  if (!absent(body.output_config)) {
    if (!isObject(body.output_config)) {
      throw invalid('"output_config" must be an object.', 'Send {"effort": "high"} and/or {"format": {...}}.');
    }
    effort = effortOf(body.output_config);
    formatToHub(body.output_config.format, 'output_config.format', req);
  }
  if (req.response_format === undefined) formatToHub(body.output_format, 'output_format', req);
  if (!absent(body.thinking)) thinkingToHub(body.thinking, effort, req);
  else if (effort !== undefined) req.reasoning_effort = effort;
  if (isObject(body.thinking) && !absent(body.thinking.display)) noteDropped(ctx, 'thinking.display', DISPLAY_DROPPED);
}
