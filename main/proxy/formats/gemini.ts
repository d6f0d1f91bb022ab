// The Gemini generateContent wire format: its front door (/v1beta/models/{model}:generateContent and
// :streamGenerateContent) and its provider side, both converted to and from the hub (OpenAI chat completions).
//
// Decisions where the Gemini API leaves room (gemini.test.ts pins each one):
// - Input accepts camelCase and snake_case for every field, camelCase winning when both are sent. Function call
//   args, function responses and JSON schemas are user data: their keys are never renamed.
// - Gemini has no tool call ids. Calls without `id` get minted `call_…` ids; a functionResponse is matched to the
//   previous model turn's call by `id` when one matches, else to the first unanswered call of the same name.
//   Our client-side replies carry `functionCall.id` (an optional Gemini field) so clients can echo it back;
//   provider requests never send ids (Gemini pairs calls and responses by order).
// - Tool parameters go to Gemini as `parametersJsonSchema` (full JSON Schema) and response schemas as
//   `responseJsonSchema`; Gemini's OpenAPI-subset `parameters`/`responseSchema` from clients are turned into
//   JSON Schema (lower-case types, `nullable` → a "null" type).
// - A tool result that is a JSON object becomes the functionResponse.response as is; anything else is wrapped as
//   {"output": text}, which Gemini documents for function output; `{"output": "<text>"}` reads back as the text.
// - Tool call arguments that are not a JSON object (a cut stream) are kept as {"arguments": "<raw text>"}.
// - Function calls sent to models other than gemini-1.x/2.x carry the documented
//   `skip_thought_signature_validator` thought signature: Gemini 3 rejects replayed calls without one, and the hub
//   cannot carry Gemini's real signatures.
// - Not carried (the hub has no place for them): topK, safetySettings, cachedContent, non-function tools
//   (googleSearch, codeExecution…), thinkingConfig, and model-turn parts other than text and functionCall.
// - Streams: text is sent as it arrives; tool calls are buffered and sent whole with the final event, which also
//   carries finishReason and usageMetadata (held until the usage chunk or the end of the hub stream).
import { createParser, type EventSourceMessage, type EventSourceParser } from 'eventsource-parser';
import { ApiError } from '../../errors.ts';
import type { ErrorCode } from '../../../shared/errors.ts';
import {
  type ClientContext,
  type ClientFormat,
  contentText,
  type FinishReason,
  type HubChunk,
  type HubChunkToolCall,
  type HubContentPart,
  type HubMessage,
  type HubRequest,
  type HubResponse,
  type HubTool,
  type HubToolCall,
  type HubToolChoice,
  type HubUsage,
  newId,
  parseDataUrl,
  type ProviderFormat,
  type StreamDecoder,
  type StreamEncoder,
  UpstreamStreamError,
  type WireError,
} from './hub/index.ts';

// ---------------------------------------------------------------------------------------------------------------
// Gemini wire types (the fields we read and write)

type Json = Record<string, unknown>;

export type GeminiPart = {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  inlineData?: { mimeType: string; data: string };
  fileData?: { mimeType?: string; fileUri: string };
  functionCall?: { id?: string; name: string; args?: Json };
  functionResponse?: { id?: string; name: string; response: Json };
};

export type GeminiContent = { role?: 'user' | 'model'; parts: GeminiPart[] };

export type GeminiRequest = {
  contents: GeminiContent[];
  systemInstruction?: { parts: GeminiPart[] };
  tools?: { functionDeclarations: { name: string; description?: string; parametersJsonSchema?: Json }[] }[];
  toolConfig?: { functionCallingConfig: { mode: 'AUTO' | 'ANY' | 'NONE'; allowedFunctionNames?: string[] } };
  generationConfig?: Json;
};

export type GeminiUsage = {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  thoughtsTokenCount?: number;
  totalTokenCount?: number;
};

export type GeminiCandidate = { content?: { role?: string; parts?: GeminiPart[] }; finishReason?: string; index?: number };

export type GeminiResponse = {
  candidates?: GeminiCandidate[];
  promptFeedback?: { blockReason?: string };
  usageMetadata?: GeminiUsage;
  modelVersion?: string;
  responseId?: string;
};

/** Google's canonical status names, as Gemini error bodies carry them. */
export type GoogleStatus =
  | 'INVALID_ARGUMENT'
  | 'UNAUTHENTICATED'
  | 'PERMISSION_DENIED'
  | 'NOT_FOUND'
  | 'RESOURCE_EXHAUSTED'
  | 'INTERNAL'
  | 'UNAVAILABLE'
  | 'DEADLINE_EXCEEDED';

export type GeminiErrorBody = {
  error: { code: number; message: string; status: GoogleStatus; details?: unknown[] };
};

/** The thought signature Google documents for function calls that did not come from this Gemini model. */
export const SKIP_THOUGHT_SIGNATURE = 'skip_thought_signature_validator';

// ---------------------------------------------------------------------------------------------------------------
// Small helpers

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function invalid(message: string, action: string): ApiError {
  return new ApiError('invalid_request', message, action);
}

const camelKey = (k: string): string => (k.includes('_') ? k.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()) : k);

/** Keys whose values are user data (arguments, results, schemas): their inner keys are never renamed. */
const OPAQUE_KEYS = new Set(['args', 'response', 'parameters', 'parametersJsonSchema', 'responseSchema', 'responseJsonSchema', 'labels', 'metadata']);

/** The REST API accepts snake_case and camelCase for every field: read both, camelCase winning. */
function camelizeRequest(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(camelizeRequest);
  if (!isObject(v)) return v;
  const out: Json = {};
  for (const [k, val] of Object.entries(v)) {
    const ck = camelKey(k);
    if (ck !== k && Object.hasOwn(v, ck)) continue;
    out[ck] = OPAQUE_KEYS.has(ck) ? val : camelizeRequest(val);
  }
  return out;
}

/** A number field that proto3 JSON also accepts as a numeric string. */
function numberField(v: unknown, field: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n)) {
    throw invalid(`${field} must be a number, got ${JSON.stringify(v)}.`, `Send ${field} as a JSON number.`);
  }
  return n;
}

/** Tool arguments as the object Gemini needs; text that is not a JSON object is kept, never dropped. */
function argsObject(raw: string): Json {
  if (raw.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    if (isObject(parsed)) return parsed;
  } catch {
    // fall through: keep the raw text
  }
  return { arguments: raw };
}

/** A tool result as a functionResponse.response object. */
function responseObject(text: string): Json {
  try {
    const parsed: unknown = JSON.parse(text);
    if (isObject(parsed)) return parsed;
  } catch {
    // plain text
  }
  return { output: text };
}

/** A functionResponse.response as tool message text: {"output": "<text>"} reads back as the text. */
function responseText(response: unknown): string {
  if (isObject(response)) {
    const keys = Object.keys(response);
    if (keys.length === 1 && keys[0] === 'output' && typeof response.output === 'string') return response.output;
  }
  return JSON.stringify(response ?? {});
}

const MIME_BY_EXTENSION: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  heic: 'image/heic',
  heif: 'image/heif',
  pdf: 'application/pdf',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  mp4: 'video/mp4',
  txt: 'text/plain',
};

function mimeFromUrl(url: string): string | undefined {
  const path = url.split(/[?#]/, 1)[0] ?? '';
  const ext = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase();
  return ext ? MIME_BY_EXTENSION[ext] : undefined;
}

/** gemini-1.x and 2.x accept function calls without thought signatures; later models need one. */
function needsThoughtSignature(model: string): boolean {
  return !/^(models\/)?gemini-(1|2)[.-]/i.test(model);
}

function stripModelsPrefix(model: string): string {
  return model.startsWith('models/') ? model.slice('models/'.length) : model;
}

// ---------------------------------------------------------------------------------------------------------------
// Finish reasons, usage, error statuses

const CONTENT_FILTER_REASONS = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_RECITATION',
]);

/** A Gemini finishReason as the hub's; calls in a normally ended reply make it 'tool_calls'. */
function hubFinish(reason: string | undefined, hasCalls: boolean): FinishReason {
  if (reason === 'MAX_TOKENS') return 'length';
  if (reason && CONTENT_FILTER_REASONS.has(reason)) return 'content_filter';
  return hasCalls ? 'tool_calls' : 'stop';
}

/** The hub's finish reason as Gemini's: Gemini ends a reply with function calls with STOP. */
function geminiFinish(reason: FinishReason): string {
  switch (reason) {
    case 'length':
      return 'MAX_TOKENS';
    case 'content_filter':
      return 'SAFETY';
    default:
      return 'STOP';
  }
}

function hubUsage(u: GeminiUsage | undefined): HubUsage | undefined {
  if (!isObject(u)) return undefined;
  const prompt = u.promptTokenCount ?? 0;
  // OpenAI counts reasoning tokens as completion tokens; Gemini reports them apart.
  const completion = (u.candidatesTokenCount ?? 0) + (u.thoughtsTokenCount ?? 0);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: u.totalTokenCount ?? prompt + completion };
}

function geminiUsage(u: HubUsage): GeminiUsage {
  return { promptTokenCount: u.prompt_tokens, candidatesTokenCount: u.completion_tokens, totalTokenCount: u.total_tokens };
}

/** Google's status name for an HTTP status. */
export function googleStatus(status: number): GoogleStatus {
  switch (status) {
    case 401:
      return 'UNAUTHENTICATED';
    case 403:
      return 'PERMISSION_DENIED';
    case 404:
      return 'NOT_FOUND';
    case 408:
    case 504:
      return 'DEADLINE_EXCEEDED';
    case 429:
      return 'RESOURCE_EXHAUSTED';
    case 502:
    case 503:
      return 'UNAVAILABLE';
    default:
      return status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT';
  }
}

function geminiError(e: WireError): GeminiErrorBody {
  return {
    error: {
      code: e.status,
      message: e.action ? `${e.message} ${e.action}` : e.message,
      status: googleStatus(e.status),
      details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: e.code, domain: 'switchboard' }],
    },
  };
}

/** The `error` object of a Gemini error body: a JSON object, its text, or the one-element array of a JSON stream. */
function errorOf(body: unknown): { code?: unknown; message?: unknown; status?: unknown } | undefined {
  let b = body;
  if (typeof b === 'string') {
    try {
      b = JSON.parse(b);
    } catch {
      return undefined;
    }
  }
  if (Array.isArray(b)) b = b[0];
  return isObject(b) && isObject(b.error) ? b.error : undefined;
}

function upstreamError(err: { code?: unknown; message?: unknown; status?: unknown }): UpstreamStreamError {
  const status = typeof err.code === 'number' && err.code >= 400 && err.code < 600 ? err.code : 502;
  const code: ErrorCode = status === 429 ? 'upstream_rate_limited' : status === 504 ? 'upstream_timeout' : 'upstream_error';
  const message = typeof err.message === 'string' ? err.message : `Gemini reported ${String(err.status ?? 'an error')}.`;
  return new UpstreamStreamError(message, code, status);
}

// ---------------------------------------------------------------------------------------------------------------
// Client side: a Gemini request as the hub request

/** Gemini's OpenAPI-subset Schema (as `parameters` or `responseSchema`) as JSON Schema. */
export function schemaToJsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(schemaToJsonSchema);
  if (!isObject(schema)) return schema;
  const out: Json = {};
  for (const [k, v] of Object.entries(schema)) {
    const key = camelKey(k);
    if (key !== k && Object.hasOwn(schema, key)) continue;
    if (key === 'properties' || key === 'defs' || key === '$defs') {
      out[key === 'defs' ? '$defs' : key] = isObject(v) ? Object.fromEntries(Object.entries(v).map(([name, s]) => [name, schemaToJsonSchema(s)])) : v;
    } else if (['items', 'anyOf', 'oneOf', 'allOf', 'prefixItems', 'not', 'additionalProperties'].includes(key)) {
      out[key] = schemaToJsonSchema(v);
    } else {
      out[key] = v;
    }
  }
  if (typeof out.type === 'string') {
    const t = out.type.toLowerCase();
    if (t === 'type_unspecified') delete out.type;
    else out.type = out.nullable === true ? [t, 'null'] : t;
  } else if (Array.isArray(out.type)) {
    out.type = out.type.map((t) => (typeof t === 'string' ? t.toLowerCase() : t));
  }
  delete out.nullable;
  return out;
}

function partsOf(content: unknown, field: string): Json[] {
  const parts = isObject(content) ? content.parts : undefined;
  if (!Array.isArray(parts)) {
    throw invalid(`${field}.parts must be an array of parts, got ${JSON.stringify(parts ?? null)}.`, `Send ${field} as {"role": "user", "parts": [{"text": "…"}]}.`);
  }
  return parts.map((p, j) => {
    if (!isObject(p)) throw invalid(`${field}.parts[${j}] must be an object such as {"text": "…"}.`, 'Send each part as a JSON object.');
    if (p.text !== undefined && typeof p.text !== 'string') {
      throw invalid(`${field}.parts[${j}].text must be a string.`, 'Send text parts as {"text": "…"}.');
    }
    return p;
  });
}

/** A user-side media part as a hub image_url part (the hub's only binary part; its mime type travels in the URL). */
function mediaPart(p: Json, field: string): HubContentPart | undefined {
  if (isObject(p.inlineData)) {
    const { mimeType, data } = p.inlineData;
    if (typeof mimeType !== 'string' || typeof data !== 'string') {
      throw invalid(`${field}.inlineData needs a mimeType and base64 data.`, 'Send {"inlineData": {"mimeType": "image/png", "data": "<base64>"}}.');
    }
    return { type: 'image_url', image_url: { url: `data:${mimeType};base64,${data}` } };
  }
  if (isObject(p.fileData)) {
    if (typeof p.fileData.fileUri !== 'string') {
      throw invalid(`${field}.fileData.fileUri must be a string URL.`, 'Send {"fileData": {"mimeType": "image/png", "fileUri": "https://…"}}.');
    }
    return { type: 'image_url', image_url: { url: p.fileData.fileUri } };
  }
  return undefined;
}

/** Parts as hub content: one text part is a string, anything else keeps its parts. */
function hubContent(parts: HubContentPart[]): string | HubContentPart[] {
  return parts.length === 1 && parts[0]!.type === 'text' ? parts[0]!.text : parts;
}

type PendingCall = { id: string; name: string; answered: boolean };

function contentsToMessages(contents: unknown[]): HubMessage[] {
  const messages: HubMessage[] = [];
  let previousCalls: PendingCall[] = [];
  contents.forEach((content, i) => {
    const field = `contents[${i}]`;
    const role = isObject(content) ? (content.role ?? 'user') : undefined;
    const parts = partsOf(content, field);
    if (role === 'model') {
      let text = '';
      let reasoning = '';
      const calls: HubToolCall[] = [];
      parts.forEach((p, j) => {
        if (isObject(p.functionCall)) {
          const fc = p.functionCall;
          if (typeof fc.name !== 'string' || fc.name === '') {
            throw invalid(`${field}.parts[${j}].functionCall.name must be the called function's name.`, 'Send {"functionCall": {"name": "…", "args": {…}}}.');
          }
          const id = typeof fc.id === 'string' && fc.id !== '' ? fc.id : newId('call_');
          calls.push({ id, type: 'function', function: { name: fc.name, arguments: JSON.stringify(fc.args ?? {}) } });
        } else if (typeof p.text === 'string') {
          if (p.thought === true) reasoning += p.text;
          else text += p.text;
        }
      });
      const message: Extract<HubMessage, { role: 'assistant' }> = { role: 'assistant', content: text === '' && calls.length ? null : text };
      if (calls.length) message.tool_calls = calls;
      if (reasoning) message.reasoning_content = reasoning;
      messages.push(message);
      previousCalls = calls.map((c) => ({ id: c.id, name: c.function.name, answered: false }));
      return;
    }
    if (role !== 'user' && role !== 'function' && role !== 'tool') {
      throw invalid(`${field}.role must be "user" or "model", got ${JSON.stringify(role)}.`, 'Use role "user" for your turns and "model" for the model\'s.');
    }
    const userParts: HubContentPart[] = [];
    parts.forEach((p, j) => {
      const partField = `${field}.parts[${j}]`;
      if (isObject(p.functionResponse)) {
        const fr = p.functionResponse;
        if (typeof fr.name !== 'string' || fr.name === '') {
          throw invalid(`${partField}.functionResponse.name must name the function that was called.`, 'Send {"functionResponse": {"name": "…", "response": {…}}}.');
        }
        const byId = typeof fr.id === 'string' ? previousCalls.find((c) => !c.answered && c.id === fr.id) : undefined;
        const call = byId ?? previousCalls.find((c) => !c.answered && c.name === fr.name);
        if (!call) {
          throw invalid(
            `${partField}.functionResponse "${fr.name}" answers no functionCall of that name in the previous model turn.`,
            'Send each functionResponse in the user turn right after the model turn holding its functionCall, with the same name.',
          );
        }
        call.answered = true;
        messages.push({ role: 'tool', tool_call_id: call.id, content: responseText(fr.response), name: fr.name });
      } else if (typeof p.text === 'string') {
        userParts.push({ type: 'text', text: p.text });
      } else {
        const media = mediaPart(p, partField);
        if (media) userParts.push(media);
      }
    });
    if (userParts.length) messages.push({ role: 'user', content: hubContent(userParts) });
  });
  return messages;
}

function systemMessage(instruction: unknown): HubMessage | undefined {
  if (instruction === undefined || instruction === null) return undefined;
  if (typeof instruction === 'string') return { role: 'system', content: instruction };
  const parts = partsOf(instruction, 'systemInstruction')
    .filter((p) => typeof p.text === 'string')
    .map((p): HubContentPart => ({ type: 'text', text: p.text as string }));
  return parts.length ? { role: 'system', content: hubContent(parts) } : undefined;
}

function toolsToHub(tools: unknown): HubTool[] | undefined {
  if (tools === undefined || tools === null) return undefined;
  if (!Array.isArray(tools)) throw invalid('tools must be an array of {"functionDeclarations": […]}.', 'Send tools as a JSON array.');
  const out: HubTool[] = [];
  tools.forEach((tool, i) => {
    const decls = isObject(tool) ? tool.functionDeclarations : undefined;
    if (decls === undefined) return; // googleSearch, codeExecution…: nothing the hub can carry
    if (!Array.isArray(decls)) throw invalid(`tools[${i}].functionDeclarations must be an array.`, 'Send a list of {"name", "description", "parameters"}.');
    decls.forEach((d, j) => {
      if (!isObject(d) || typeof d.name !== 'string' || d.name === '') {
        throw invalid(`tools[${i}].functionDeclarations[${j}].name must be the function's name.`, 'Give every function declaration a name.');
      }
      const fn: HubTool['function'] = { name: d.name };
      if (typeof d.description === 'string') fn.description = d.description;
      const parameters = isObject(d.parametersJsonSchema) ? d.parametersJsonSchema : isObject(d.parameters) ? schemaToJsonSchema(d.parameters) : undefined;
      if (isObject(parameters)) fn.parameters = parameters;
      out.push({ type: 'function', function: fn });
    });
  });
  return out;
}

function toolChoiceToHub(toolConfig: unknown, tools: HubTool[] | undefined): { choice?: HubToolChoice; tools?: HubTool[] } {
  const config = isObject(toolConfig) && isObject(toolConfig.functionCallingConfig) ? toolConfig.functionCallingConfig : undefined;
  if (!config || config.mode === undefined) return { tools };
  const mode = typeof config.mode === 'string' ? config.mode.toUpperCase() : config.mode;
  const allowed = Array.isArray(config.allowedFunctionNames) ? config.allowedFunctionNames.filter((n): n is string => typeof n === 'string') : [];
  switch (mode) {
    case 'MODE_UNSPECIFIED':
      return { tools };
    case 'AUTO':
    case 'VALIDATED':
      return { choice: 'auto', tools };
    case 'NONE':
      return { choice: 'none', tools };
    case 'ANY':
      if (allowed.length === 1) return { choice: { type: 'function', function: { name: allowed[0]! } }, tools };
      // Several allowed names: the hub has no "one of these", so offer only those tools and require a call.
      return { choice: 'required', tools: allowed.length > 1 && tools ? tools.filter((t) => allowed.includes(t.function.name)) : tools };
    default:
      throw invalid(
        `toolConfig.functionCallingConfig.mode must be AUTO, ANY, NONE or VALIDATED, got ${JSON.stringify(config.mode)}.`,
        'Set mode to one of AUTO, ANY, NONE, VALIDATED.',
      );
  }
}

function generationConfigToHub(config: unknown, req: HubRequest): void {
  if (!isObject(config)) return;
  const f = (k: string): number | undefined => numberField(config[k], `generationConfig.${k}`);
  const temperature = f('temperature');
  const topP = f('topP');
  const maxOutputTokens = f('maxOutputTokens');
  const candidateCount = f('candidateCount');
  const seed = f('seed');
  const presencePenalty = f('presencePenalty');
  const frequencyPenalty = f('frequencyPenalty');
  if (temperature !== undefined) req.temperature = temperature;
  if (topP !== undefined) req.top_p = topP;
  if (maxOutputTokens !== undefined) req.max_tokens = maxOutputTokens;
  if (candidateCount !== undefined) req.n = candidateCount;
  if (seed !== undefined) req.seed = seed;
  if (presencePenalty !== undefined) req.presence_penalty = presencePenalty;
  if (frequencyPenalty !== undefined) req.frequency_penalty = frequencyPenalty;
  if (Array.isArray(config.stopSequences)) req.stop = config.stopSequences.filter((s): s is string => typeof s === 'string');
  if (config.responseMimeType === 'application/json') {
    const schema = isObject(config.responseJsonSchema) ? config.responseJsonSchema : isObject(config.responseSchema) ? schemaToJsonSchema(config.responseSchema) : undefined;
    req.response_format = isObject(schema) ? { type: 'json_schema', json_schema: { name: 'response', schema } } : { type: 'json_object' };
  }
}

function toHub(rawBody: unknown, ctx: ClientContext): HubRequest {
  if (!isObject(rawBody)) {
    throw invalid(
      `The request body must be a JSON object (a Gemini GenerateContentRequest), got ${Array.isArray(rawBody) ? 'an array' : typeof rawBody}.`,
      'Send {"contents": [{"role": "user", "parts": [{"text": "Hello"}]}]}.',
    );
  }
  const body = camelizeRequest(rawBody) as Json;
  const model = ctx.pathModel ?? (typeof body.model === 'string' ? body.model : undefined);
  if (!model) {
    throw new ApiError('model_required', 'The model is missing from the URL.', 'Call POST /v1beta/models/{model}:generateContent, e.g. /v1beta/models/gemini-2.5-flash:generateContent.');
  }
  if (!Array.isArray(body.contents) || body.contents.length === 0) {
    throw invalid('contents is required: a non-empty array of {"role", "parts"} turns.', 'Send {"contents": [{"role": "user", "parts": [{"text": "Hello"}]}]}.');
  }
  const messages = contentsToMessages(body.contents);
  const system = systemMessage(body.systemInstruction);
  if (system) messages.unshift(system);
  const req: HubRequest = { model: stripModelsPrefix(model), messages };
  if (ctx.pathStream) req.stream = true;
  const { choice, tools } = toolChoiceToHub(body.toolConfig, toolsToHub(body.tools));
  if (tools?.length) req.tools = tools;
  if (choice && tools?.length) req.tool_choice = choice;
  generationConfigToHub(body.generationConfig, req);
  return req;
}

// ---------------------------------------------------------------------------------------------------------------
// Client side: hub responses and streams as Gemini's

function responseParts(message: { content?: string | null | HubContentPart[]; reasoning_content?: string; tool_calls?: HubToolCall[] }): GeminiPart[] {
  const parts: GeminiPart[] = [];
  if (message.reasoning_content) parts.push({ text: message.reasoning_content, thought: true });
  const text = contentText(message.content);
  if (text) parts.push({ text });
  for (const tc of message.tool_calls ?? []) parts.push({ functionCall: callPart(tc.id, tc.function.name, tc.function.arguments) });
  return parts;
}

function callPart(id: string | undefined, name: string, args: string): NonNullable<GeminiPart['functionCall']> {
  return id ? { id, name, args: argsObject(args) } : { name, args: argsObject(args) };
}

function candidateOf(index: number, parts: GeminiPart[], finish: FinishReason | null): GeminiCandidate {
  const candidate: GeminiCandidate = {};
  // A blocked reply has no content in Gemini; any other reply keeps at least an empty text part.
  if (parts.length || finish !== 'content_filter') candidate.content = { parts: parts.length ? parts : [{ text: '' }], role: 'model' };
  if (finish) candidate.finishReason = geminiFinish(finish);
  candidate.index = index;
  return candidate;
}

function fromHubResponse(res: HubResponse, ctx: ClientContext & { model: string }): GeminiResponse {
  const out: GeminiResponse = {
    candidates: res.choices.map((c) => candidateOf(c.index, responseParts(c.message), c.finish_reason ?? 'stop')),
  };
  if (res.usage) out.usageMetadata = geminiUsage(res.usage);
  out.modelVersion = res.model || ctx.model;
  out.responseId = res.id;
  return out;
}

type CandidateStream = {
  calls: { id?: string; name: string; args: string }[];
  finish: FinishReason | null;
  /** The final event (tool calls, finishReason) went out. */
  closed: boolean;
};

/** Hub chunks as Gemini stream events, framed as SSE (`alt=sse`) or as one JSON array written piece by piece. */
class GeminiStreamEncoder implements StreamEncoder {
  readonly contentType: string;
  private readonly sse: boolean;
  private readonly candidates = new Map<number, CandidateStream>();
  private usage: HubUsage | undefined;
  private responseId = '';
  private modelVersion: string;
  private events = 0;
  private done = false;

  constructor(ctx: ClientContext & { model: string }) {
    this.sse = ctx.query?.get('alt') === 'sse';
    this.contentType = this.sse ? 'text/event-stream' : 'application/json';
    this.modelVersion = ctx.model;
  }

  private frame(event: unknown): string {
    const json = JSON.stringify(event);
    if (this.sse) return `data: ${json}\r\n\r\n`;
    return (this.events++ === 0 ? '[' : ',\r\n') + json;
  }

  private event(candidates: GeminiCandidate[], usage?: HubUsage): string {
    const e: GeminiResponse = { candidates };
    if (usage) e.usageMetadata = geminiUsage(usage);
    e.modelVersion = this.modelVersion;
    e.responseId = this.responseId;
    return this.frame(e);
  }

  private state(index: number): CandidateStream {
    let s = this.candidates.get(index);
    if (!s) this.candidates.set(index, (s = { calls: [], finish: null, closed: false }));
    return s;
  }

  /** The final events: each candidate's whole tool calls and finishReason; usage rides on the last one. */
  private flushFinals(all: boolean): string {
    const ready = [...this.candidates.entries()].filter(([, s]) => !s.closed && (all || s.finish));
    let out = '';
    ready.forEach(([index, s], k) => {
      s.closed = true;
      const parts = s.calls.filter(Boolean).map((c) => ({ functionCall: callPart(c.id, c.name, c.args) }));
      out += this.event([candidateOf(index, parts, s.finish ?? (parts.length ? 'tool_calls' : 'stop'))], k === ready.length - 1 ? this.usage : undefined);
    });
    return out;
  }

  chunk(c: HubChunk): string {
    if (this.done) return '';
    this.responseId ||= c.id;
    if (c.model) this.modelVersion = c.model;
    if (c.usage) this.usage = c.usage;
    let out = '';
    for (const choice of c.choices) {
      const s = this.state(choice.index);
      const d = choice.delta;
      if (d.reasoning_content) out += this.event([{ content: { parts: [{ text: d.reasoning_content, thought: true }], role: 'model' }, index: choice.index }]);
      if (typeof d.content === 'string' && d.content !== '') out += this.event([{ content: { parts: [{ text: d.content }], role: 'model' }, index: choice.index }]);
      for (const tc of d.tool_calls ?? []) bufferCall(s, tc);
      if (choice.finish_reason) s.finish = choice.finish_reason;
    }
    // Hold the final event for the usage chunk that OpenAI-style streams send after the finish chunk.
    if (c.usage) out += this.flushFinals(false);
    return out;
  }

  end(): string {
    if (this.done) return '';
    this.done = true;
    const out = this.flushFinals(true);
    if (this.sse) return out;
    return out + (this.events === 0 ? '[]' : ']');
  }

  error(e: WireError): string {
    if (this.done) return '';
    this.done = true;
    const body = geminiError(e);
    if (this.sse) return this.frame(body);
    return this.frame(body) + ']';
  }
}

function bufferCall(s: CandidateStream, tc: HubChunkToolCall): void {
  const slot = (s.calls[tc.index] ??= { name: '', args: '' });
  if (tc.id) slot.id = tc.id;
  if (tc.function?.name) slot.name += tc.function.name;
  if (tc.function?.arguments) slot.args += tc.function.arguments;
}

// ---------------------------------------------------------------------------------------------------------------
// Provider side: the hub request as a Gemini request body

function userParts(content: string | HubContentPart[], field: string): GeminiPart[] {
  if (typeof content === 'string') return content === '' ? [] : [{ text: content }];
  return content.flatMap((p, j): GeminiPart[] => {
    if (p.type === 'text') return p.text === '' ? [] : [{ text: p.text }];
    const url = p.image_url.url;
    const data = parseDataUrl(url);
    if (data) return [{ inlineData: { mimeType: data.mediaType, data: data.data } }];
    if (url.startsWith('data:')) {
      throw invalid(`${field}[${j}].image_url.url is a data: URL without base64 data.`, 'Send images as data:<type>;base64,<data> or as an https URL.');
    }
    const mimeType = mimeFromUrl(url);
    return [{ fileData: mimeType ? { mimeType, fileUri: url } : { fileUri: url } }];
  });
}

function fromHubRequest(req: HubRequest): GeminiRequest {
  const contents: GeminiContent[] = [];
  const system: GeminiPart[] = [];
  const callNames = new Map<string, string>();
  const signCalls = needsThoughtSignature(req.model);
  // Gemini wants user and model turns to alternate: consecutive messages of one role share a turn.
  const push = (role: 'user' | 'model', parts: GeminiPart[]): void => {
    if (!parts.length) return;
    const last = contents.at(-1);
    if (last?.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  };
  req.messages.forEach((m, i) => {
    switch (m.role) {
      case 'system':
      case 'developer': {
        const text = contentText(m.content);
        if (text) system.push({ text });
        break;
      }
      case 'user':
        push('user', userParts(m.content, `messages[${i}].content`));
        break;
      case 'assistant': {
        const parts: GeminiPart[] = [];
        const text = contentText(m.content);
        if (text) parts.push({ text });
        for (const tc of m.tool_calls ?? []) {
          callNames.set(tc.id, tc.function.name);
          const part: GeminiPart = { functionCall: { name: tc.function.name, args: argsObject(tc.function.arguments) } };
          if (signCalls) part.thoughtSignature = SKIP_THOUGHT_SIGNATURE;
          parts.push(part);
        }
        push('model', parts);
        break;
      }
      case 'tool': {
        const name = callNames.get(m.tool_call_id) ?? m.name;
        if (!name) {
          throw invalid(
            `messages[${i}].tool_call_id "${m.tool_call_id}" matches no tool call of an earlier assistant message, and Gemini needs the function's name.`,
            'Send the assistant message holding that tool call before its result, or set name on the tool message.',
          );
        }
        push('user', [{ functionResponse: { name, response: responseObject(contentText(m.content)) } }]);
        break;
      }
    }
  });
  const body: GeminiRequest = { contents };
  if (system.length) body.systemInstruction = { parts: system };
  if (req.tools?.length) {
    body.tools = [
      {
        functionDeclarations: req.tools.map((t) => {
          const d: { name: string; description?: string; parametersJsonSchema?: Json } = { name: t.function.name };
          if (t.function.description !== undefined) d.description = t.function.description;
          if (t.function.parameters) d.parametersJsonSchema = t.function.parameters;
          return d;
        }),
      },
    ];
    const choice = req.tool_choice;
    if (choice === 'auto') body.toolConfig = { functionCallingConfig: { mode: 'AUTO' } };
    else if (choice === 'none') body.toolConfig = { functionCallingConfig: { mode: 'NONE' } };
    else if (choice === 'required') body.toolConfig = { functionCallingConfig: { mode: 'ANY' } };
    else if (choice && typeof choice === 'object') body.toolConfig = { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.function.name] } };
  }
  const config: Json = {};
  if (req.temperature !== undefined) config.temperature = req.temperature;
  if (req.top_p !== undefined) config.topP = req.top_p;
  const maxTokens = req.max_completion_tokens ?? req.max_tokens;
  if (maxTokens !== undefined) config.maxOutputTokens = maxTokens;
  if (req.stop !== undefined) config.stopSequences = Array.isArray(req.stop) ? req.stop : [req.stop];
  if (req.n !== undefined) config.candidateCount = req.n;
  if (req.seed !== undefined) config.seed = req.seed;
  if (req.presence_penalty !== undefined) config.presencePenalty = req.presence_penalty;
  if (req.frequency_penalty !== undefined) config.frequencyPenalty = req.frequency_penalty;
  const format = req.response_format;
  if (format?.type === 'json_object' || format?.type === 'json_schema') {
    config.responseMimeType = 'application/json';
    if (format.type === 'json_schema' && format.json_schema?.schema) config.responseJsonSchema = format.json_schema.schema;
  }
  if (Object.keys(config).length) body.generationConfig = config;
  return body;
}

// ---------------------------------------------------------------------------------------------------------------
// Provider side: Gemini responses and streams as the hub's

function toHubResponse(rawBody: unknown, model: string): HubResponse {
  const err = errorOf(rawBody);
  if (err) throw upstreamError(err);
  const body = (isObject(rawBody) ? rawBody : {}) as GeminiResponse;
  const candidates = Array.isArray(body.candidates) ? body.candidates : [];
  const choices: HubResponse['choices'] = candidates.map((c, k) => {
    let text = '';
    let reasoning = '';
    const calls: HubToolCall[] = [];
    for (const p of c.content?.parts ?? []) {
      if (p.functionCall) calls.push(hubCall(p.functionCall));
      else if (typeof p.text === 'string') {
        if (p.thought) reasoning += p.text;
        else text += p.text;
      }
    }
    const message: HubResponse['choices'][0]['message'] = { role: 'assistant', content: text === '' ? null : text };
    if (calls.length) message.tool_calls = calls;
    if (reasoning) message.reasoning_content = reasoning;
    return { index: c.index ?? k, message, finish_reason: hubFinish(c.finishReason, calls.length > 0) };
  });
  if (!choices.length) {
    // No candidate: the prompt itself was blocked (promptFeedback.blockReason).
    choices.push({ index: 0, message: { role: 'assistant', content: null }, finish_reason: body.promptFeedback?.blockReason ? 'content_filter' : 'stop' });
  }
  const res: HubResponse = {
    id: body.responseId || newId('chatcmpl-'),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: body.modelVersion || model,
    choices,
  };
  const usage = hubUsage(body.usageMetadata);
  if (usage) res.usage = usage;
  return res;
}

function hubCall(fc: NonNullable<GeminiPart['functionCall']>): HubToolCall {
  return { id: fc.id || newId('call_'), type: 'function', function: { name: fc.name, arguments: JSON.stringify(fc.args ?? {}) } };
}

/** Raw text kept when a stream is not SSE (Gemini may answer a JSON error body); bounded. */
const MAX_STRAY_CHARS = 64 * 1024;

/** Reads Gemini's `alt=sse` stream; each functionCall part becomes one tool call delta with complete arguments. */
class GeminiStreamDecoder implements StreamDecoder {
  private readonly parser: EventSourceParser;
  private readonly queue: EventSourceMessage[] = [];
  private stray = '';
  private started = false;
  private id = '';
  private readonly created = Math.floor(Date.now() / 1000);
  private modelName: string;
  private readonly callCount = new Map<number, number>();
  private readonly finished = new Set<number>();
  private readonly seen = new Set<number>();
  private usage: HubUsage | undefined;
  private usageSent = false;

  constructor(model: string) {
    this.modelName = model;
    this.parser = createParser({
      onEvent: (e) => this.queue.push(e),
      onError: (e) => {
        if (e.type === 'unknown-field' && e.line !== undefined && this.stray.length < MAX_STRAY_CHARS) this.stray += `${e.line}\n`;
      },
    });
  }

  private chunk(choices: HubChunk['choices'], usage?: HubUsage): HubChunk {
    const c: HubChunk = { id: this.id, object: 'chat.completion.chunk', created: this.created, model: this.modelName, choices };
    if (usage) c.usage = usage;
    return c;
  }

  private drain(): HubChunk[] {
    const out: HubChunk[] = [];
    for (const e of this.queue.splice(0)) {
      if (e.data.trim() === '' || e.data === '[DONE]') continue;
      let data: unknown;
      try {
        data = JSON.parse(e.data);
      } catch {
        throw new UpstreamStreamError(`Gemini sent a stream event that is not JSON: ${e.data.slice(0, 200)}`);
      }
      const err = errorOf(data);
      if (err) throw upstreamError(err);
      if (isObject(data)) out.push(...this.read(data as GeminiResponse));
    }
    return out;
  }

  private read(event: GeminiResponse): HubChunk[] {
    const out: HubChunk[] = [];
    if (!this.started) {
      this.started = true;
      this.id = event.responseId || newId('chatcmpl-');
      if (event.modelVersion) this.modelName = event.modelVersion;
      out.push(this.chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]));
    }
    const usage = hubUsage(event.usageMetadata);
    if (usage) this.usage = usage;
    const candidates = Array.isArray(event.candidates) ? event.candidates : [];
    let finishing = false;
    candidates.forEach((c, k) => {
      const index = c.index ?? k;
      this.seen.add(index);
      for (const p of c.content?.parts ?? []) {
        if (p.functionCall) {
          const n = this.callCount.get(index) ?? 0;
          this.callCount.set(index, n + 1);
          const call = hubCall(p.functionCall);
          const tc: HubChunkToolCall = { index: n, id: call.id, type: 'function', function: call.function };
          out.push(this.chunk([{ index, delta: { tool_calls: [tc] }, finish_reason: null }]));
        } else if (typeof p.text === 'string' && p.text !== '') {
          const delta = p.thought ? { reasoning_content: p.text } : { content: p.text };
          out.push(this.chunk([{ index, delta, finish_reason: null }]));
        }
      }
      if (c.finishReason && !this.finished.has(index)) {
        this.finished.add(index);
        finishing = true;
        out.push(this.chunk([{ index, delta: {}, finish_reason: hubFinish(c.finishReason, (this.callCount.get(index) ?? 0) > 0) }]));
      }
    });
    if (!candidates.length && event.promptFeedback?.blockReason && !this.finished.has(0)) {
      this.finished.add(0);
      finishing = true;
      out.push(this.chunk([{ index: 0, delta: {}, finish_reason: 'content_filter' }]));
    }
    if (finishing && this.usage) {
      out.at(-1)!.usage = this.usage;
      this.usageSent = true;
    } else if (this.usageSent && usage) {
      out.push(this.chunk([], usage)); // usage that changed after the finish
    }
    return out;
  }

  /** Gemini can answer with, or break into the stream with, a plain JSON error body outside SSE framing. */
  private throwStrayError(): void {
    const text = this.stray.trim();
    if (!text.endsWith('}') && !text.endsWith(']')) return;
    const err = errorOf(text.slice(Math.max(0, text.search(/[[{]/))));
    if (err) throw upstreamError(err);
  }

  push(text: string): HubChunk[] {
    const strayBefore = this.stray.length;
    this.parser.feed(text);
    const out = this.drain();
    if (this.stray.length !== strayBefore) this.throwStrayError();
    return out;
  }

  end(): HubChunk[] {
    this.parser.reset({ consume: true });
    const out = this.drain();
    this.throwStrayError();
    if (!this.started) throw new UpstreamStreamError('Gemini ended the stream without sending a response.');
    // A stream that ended without a finishReason still ends its candidates.
    const open = [...this.seen].filter((i) => !this.finished.has(i));
    open.forEach((index, k) => {
      const chunk = this.chunk([{ index, delta: {}, finish_reason: (this.callCount.get(index) ?? 0) > 0 ? 'tool_calls' : 'stop' }]);
      if (k === open.length - 1 && this.usage && !this.usageSent) chunk.usage = this.usage;
      out.push(chunk);
    });
    return out;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// countTokens, the model list, provider URLs

/** Gemini's token count for a small image; an estimate for any inline or file media part. */
const TOKENS_PER_MEDIA_PART = 258;

/**
 * `:countTokens` answered locally: an ESTIMATE, not the model's tokenizer. A quarter of the characters of every
 * text, function call, function response, system instruction and function declaration, rounded up, plus 258 per
 * inline or file media part (Gemini's count for an image up to 384 px). Reads `contents` or
 * `generateContentRequest`, in either casing.
 */
export function countTokens(rawBody: unknown): { totalTokens: number } {
  if (!isObject(rawBody)) {
    throw invalid('The countTokens body must be a JSON object with contents.', 'Send {"contents": [{"role": "user", "parts": [{"text": "…"}]}]}.');
  }
  const body = camelizeRequest(rawBody) as Json;
  const request = isObject(body.generateContentRequest) ? body.generateContentRequest : body;
  let chars = 0;
  let media = 0;
  const countParts = (parts: unknown): void => {
    if (!Array.isArray(parts)) return;
    for (const p of parts) {
      if (!isObject(p)) continue;
      if (typeof p.text === 'string') chars += p.text.length;
      if (p.functionCall !== undefined) chars += JSON.stringify(p.functionCall).length;
      if (p.functionResponse !== undefined) chars += JSON.stringify(p.functionResponse).length;
      if (p.inlineData !== undefined || p.fileData !== undefined) media++;
    }
  };
  if (Array.isArray(request.contents)) for (const c of request.contents) if (isObject(c)) countParts(c.parts);
  if (typeof request.systemInstruction === 'string') chars += request.systemInstruction.length;
  else if (isObject(request.systemInstruction)) countParts(request.systemInstruction.parts);
  if (Array.isArray(request.tools)) {
    for (const t of request.tools) if (isObject(t) && t.functionDeclarations !== undefined) chars += JSON.stringify(t.functionDeclarations).length;
  }
  return { totalTokens: Math.ceil(chars / 4) + media * TOKENS_PER_MEDIA_PART };
}

/** Limits shown in the model list: the router does not know each provider's, so Gemini 2.5's are shown. */
const LISTED_INPUT_TOKEN_LIMIT = 1_048_576;
const LISTED_OUTPUT_TOKEN_LIMIT = 65_536;

/** `GET /v1beta/models`: the routable model ids in Gemini's ListModelsResponse shape. */
export function geminiModelList(ids: string[]): unknown {
  return {
    models: ids.map((raw) => {
      const id = stripModelsPrefix(raw);
      return {
        name: `models/${id}`,
        version: '001',
        displayName: id,
        inputTokenLimit: LISTED_INPUT_TOKEN_LIMIT,
        outputTokenLimit: LISTED_OUTPUT_TOKEN_LIMIT,
        supportedGenerationMethods: ['generateContent', 'streamGenerateContent', 'countTokens'],
      };
    }),
  };
}

/** The path below a Gemini provider's base_url (…/v1beta) for a chat call; streams ask for SSE. */
export function geminiChatPath(model: string, stream: boolean): string {
  const id = encodeURIComponent(stripModelsPrefix(model));
  return stream ? `/models/${id}:streamGenerateContent?alt=sse` : `/models/${id}:generateContent`;
}

// ---------------------------------------------------------------------------------------------------------------

export const geminiFormat: ClientFormat & ProviderFormat = {
  name: 'gemini',
  requestToHub: toHub,
  responseFromHub: fromHubResponse,
  streamEncoder: (ctx) => new GeminiStreamEncoder(ctx),
  errorBody: geminiError,
  requestFromHub: fromHubRequest,
  responseToHub: toHubResponse,
  streamDecoder: (model) => new GeminiStreamDecoder(model),
  errorMessage(body) {
    const message = errorOf(body)?.message;
    return typeof message === 'string' ? message : undefined;
  },
};
