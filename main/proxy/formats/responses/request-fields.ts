// Client side, request: the top-level fields of a Responses request other than input and tools, each translated,
// refused with a 400 that names it, or dropped for a reason DECISIONS.md lists ("Every request field").
import {
  absent,
  invalid,
  isObject,
  noteDropped,
  noteUnknownFields,
  optionalString,
  paramsToHub,
} from '../hub/index.ts';
import type { ClientContext, HubRequest, Json, ReasoningEffort } from '../hub/index.ts';
import { RESPONSES_PARAMS } from './common.ts';

/**
 * Responses' reasoning efforts as the hub's: the hub's scale ends at "high", so "xhigh" and "max" are sent as
 * "high" (the most a chat provider's scale has).
 */
const EFFORTS: Record<string, ReasoningEffort> = {
  none: 'none',
  minimal: 'minimal',
  low: 'low',
  medium: 'medium',
  high: 'high',
  xhigh: 'high',
  max: 'high',
};

/** Top-level fields with no hub form, left out (and reported) with the reason; DECISIONS.md lists them too. */
const DROPPED: Record<string, string> = {
  store: 'Switchboard keeps no responses (and asks the provider to keep none)',
  include: 'asks for extra output items OpenAI adds (e.g. encrypted reasoning); a chat provider has none',
  prompt_cache_key: "OpenAI's prompt-cache routing hint; other providers cache on their own",
  prompt_cache_retention: "OpenAI's prompt-cache lifetime",
  prompt_cache_options: "OpenAI's prompt-cache options; other providers cache on their own",
  stream_options: "options of OpenAI's own event stream (obfuscation); the translated stream is Switchboard's",
  service_tier: "OpenAI's processing tier",
  metadata: 'tags OpenAI stores with the response; Switchboard stores none',
  truncation: "OpenAI's server-side truncation of the conversation; the provider gets it whole",
  max_tool_calls: 'a limit on server-run tool calls, which a chat provider does not make',
  top_logprobs: 'log probabilities, which the reply does not carry',
  context_management: "OpenAI's server-side context editing; the provider gets the conversation as sent",
  client_metadata: 'tags for OpenAI',
};
/** Every top-level field the Responses door reads, refuses or drops by name; any other is noted as unknown. */
const KNOWN_FIELDS: ReadonlySet<string> = new Set([
  'model',
  'input',
  'instructions',
  'tools',
  'tool_choice',
  'stream',
  'parallel_tool_calls',
  'temperature',
  'top_p',
  'max_output_tokens',
  'reasoning',
  'text',
  'user',
  'safety_identifier',
  'previous_response_id',
  'conversation',
  'background',
  'prompt',
  'moderation',
  ...Object.keys(DROPPED),
]);
const DROPPED_VERBOSITY = 'a GPT-5 setting other providers do not share';
const DROPPED_SUMMARY = "reasoning summaries; the provider's reasoning (if any) comes back whole";

/** Refuses what needs state kept by OpenAI: Switchboard stores no responses, conversations or prompts. */
function refuseStored(body: Json): void {
  if (!absent(body.previous_response_id)) {
    throw invalid(
      '"previous_response_id" is not supported: Switchboard does not store responses, so it cannot continue one.',
      'Send the whole conversation in "input" (earlier messages, function_call and function_call_output items) ' +
        'and leave previous_response_id out.',
    );
  }
  if (!absent(body.conversation)) {
    throw invalid(
      '"conversation" is not supported: Switchboard does not store conversations.',
      'Send the whole conversation in "input" and leave "conversation" out.',
    );
  }
  if (body.background === true) {
    throw invalid(
      '"background": true is not supported: Switchboard does not store responses to poll later.',
      'Leave "background" out, or stream the reply with "stream": true.',
    );
  }
  if (!absent(body.prompt)) {
    throw invalid(
      '"prompt" (a stored prompt template) is not supported: the template is kept by OpenAI, not sent in the request.',
      'Send the prompt\'s text in "instructions" and "input", or route the model to OpenAI.',
    );
  }
  if (!absent(body.moderation)) {
    throw invalid(
      '"moderation" is run by OpenAI\'s servers; the provider this model is routed to cannot run it.',
      'Leave "moderation" out, or route the model to a provider that serves the Responses API natively.',
    );
  }
}

/** reasoning.effort → the hub's reasoning_effort; summary, context and mode have no hub field (dropped). */
function reasoningToHub(reasoning: unknown, hub: HubRequest): void {
  if (absent(reasoning)) return;
  if (!isObject(reasoning)) throw invalid('"reasoning" must be an object.', 'Send e.g. {"effort": "medium"}.');
  const effort = reasoning.effort;
  if (absent(effort)) return;
  const mapped = typeof effort === 'string' ? EFFORTS[effort] : undefined;
  if (!mapped) {
    throw invalid(
      `"reasoning.effort" must be none, minimal, low, medium, high, xhigh or max; got ${JSON.stringify(effort)}.`,
      'Send e.g. "reasoning": {"effort": "medium"}, or leave it out.',
    );
  }
  hub.reasoning_effort = mapped;
}

/** text.format → the hub's response_format; text.verbosity has no field a chat provider shares (dropped). */
function textFormatToHub(text: unknown): HubRequest['response_format'] {
  if (absent(text)) return undefined;
  if (!isObject(text)) throw invalid('"text" must be an object.', 'Send e.g. {"format": {"type": "text"}}.');
  if (absent(text.format)) return undefined;
  const f = text.format;
  if (!isObject(f)) throw invalid('"text.format" must be an object.', 'Send e.g. {"type": "json_object"}.');
  if (f.type === 'json_object') return { type: 'json_object' };
  if (f.type === 'json_schema') {
    if (typeof f.name !== 'string') {
      throw invalid('"text.format.name" is required for json_schema.', 'Name the schema.');
    }
    const schema: NonNullable<HubRequest['response_format']>['json_schema'] = { name: f.name };
    if (isObject(f.schema)) schema.schema = f.schema;
    if (typeof f.strict === 'boolean') schema.strict = f.strict;
    return { type: 'json_schema', json_schema: schema };
  }
  if (f.type === 'text') return undefined;
  throw invalid(
    `"text.format.type" "${String(f.type)}" is not supported.`,
    'Use "text", "json_object" or "json_schema".',
  );
}

/**
 * The top-level fields into the hub request. Translated: stream, parallel_tool_calls, temperature, top_p,
 * max_output_tokens, reasoning.effort, text.format, user (safety_identifier when there is no user). Refused:
 * previous_response_id, conversation, background: true, prompt, moderation. Every other field is dropped (the reasons
 * are in DECISIONS.md): store, include, prompt_cache_key, prompt_cache_retention, prompt_cache_options,
 * service_tier, metadata, truncation, max_tool_calls, top_logprobs, stream_options, context_management,
 * text.verbosity, reasoning.summary / context / mode, client_metadata, and fields newer than this list (noted as
 * unknown: KNOWN_FIELDS).
 */
export function fieldsToHub(body: Json, hub: HubRequest, ctx?: ClientContext): void {
  refuseStored(body);
  for (const [field, why] of Object.entries(DROPPED)) if (!absent(body[field])) noteDropped(ctx, field, why);
  noteUnknownFields(ctx, body, KNOWN_FIELDS);
  if (isObject(body.text) && !absent(body.text.verbosity)) noteDropped(ctx, 'text.verbosity', DROPPED_VERBOSITY);
  if (isObject(body.reasoning) && !absent(body.reasoning.summary))
    noteDropped(ctx, 'reasoning.summary', DROPPED_SUMMARY);
  if (body.stream === true) {
    hub.stream = true;
    hub.stream_options = { include_usage: true }; // Responses always reports usage in response.completed.
  }
  if (typeof body.parallel_tool_calls === 'boolean') hub.parallel_tool_calls = body.parallel_tool_calls;
  paramsToHub(RESPONSES_PARAMS, body, hub);
  reasoningToHub(body.reasoning, hub);
  const responseFormat = textFormatToHub(body.text);
  if (responseFormat) hub.response_format = responseFormat;
  const user = optionalString(body.user, 'user') ?? optionalString(body.safety_identifier, 'safety_identifier');
  if (user !== undefined) hub.user = user;
}
