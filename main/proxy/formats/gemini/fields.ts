// Every field of a GenerateContentRequest that the hub does not carry as it is, and what the translation does with
// it: refused (a 400 naming it: only Gemini can honour it, and leaving it out would change the answer) or dropped
// (the reason is given here and in DECISIONS.md). A field these tables do not list is ignored, as every format ignores
// fields it does not know (the conformance suite's rule), so a newer client's field never breaks a request. None of
// this applies to a Gemini provider: it gets the client's bytes untranslated.
import { absent, invalid, isObject, noteDropped, noteUnknownFields, type Json } from '../hub/index.ts';
import type { ClientContext } from '../hub/index.ts';

/** Said in every refusal: a Gemini provider takes the request as it is. */
export const TO_GEMINI = 'or route this model to a Gemini provider, which gets the request untranslated';

export type FieldRule =
  | { fate: 'translated' }
  | { fate: 'dropped'; why: string }
  /** Refused when `applies` says so (always when absent); `what` says what the field needs, `fix` what to do. */
  | { fate: 'refused'; what: string; fix: string; applies?: (v: unknown) => boolean };

const translated: FieldRule = { fate: 'translated' };
const dropped = (why: string): FieldRule => ({ fate: 'dropped', why });
const refused = (what: string, fix: string, applies?: (v: unknown) => boolean): FieldRule =>
  applies ? { fate: 'refused', what, fix, applies } : { fate: 'refused', what, fix };

/** The request's own fields (camelCase; snake_case is read as camelCase). */
export const REQUEST_FIELDS: Record<string, FieldRule> = {
  model: translated,
  contents: translated,
  systemInstruction: translated,
  tools: translated,
  toolConfig: translated,
  generationConfig: translated,
  safetySettings: dropped(
    "Gemini's own block thresholds; other providers apply their own content policies, and an answer that is not blocked is the same",
  ),
  cachedContent: refused(
    'refers to content cached at Google, which only Gemini can read: without it the prompt would be incomplete',
    'Send that content in "contents" instead',
    (v) => v !== '',
  ),
  labels: dropped('billing labels (Vertex AI); they do not change the answer'),
  serviceTier: dropped("Gemini's pricing tier; it does not change the answer"),
  modelArmorConfig: dropped("Vertex AI's prompt and response screening, like safetySettings"),
};

const onlyText = (v: unknown): boolean =>
  !Array.isArray(v) || v.some((m) => typeof m !== 'string' || m.toUpperCase() !== 'TEXT');
const JSON_OR_TEXT = new Set(['application/json', 'text/plain', '']);

/** generationConfig's fields. The sampling fields go through the parameter map (GEMINI_PARAMS in common.ts). */
export const GENERATION_CONFIG_FIELDS: Record<string, FieldRule> = {
  temperature: translated,
  topP: translated,
  topK: translated,
  candidateCount: translated,
  maxOutputTokens: translated,
  stopSequences: translated,
  presencePenalty: translated,
  frequencyPenalty: translated,
  seed: translated,
  responseMimeType: refused(
    'asks for output other than text or JSON (e.g. text/x.enum), which only Gemini produces',
    'Use "application/json" with a responseJsonSchema',
    (v) => typeof v !== 'string' || !JSON_OR_TEXT.has(v),
  ),
  responseSchema: translated,
  responseJsonSchema: translated,
  thinkingConfig: translated,
  mediaResolution: translated,
  responseModalities: refused(
    'asks for image or audio output, which only Gemini produces through this API',
    'Ask for ["TEXT"] only',
    onlyText,
  ),
  responseLogprobs: refused(
    'asks for log probabilities, which the translated reply cannot carry back',
    'Leave responseLogprobs out',
    (v) => v === true,
  ),
  logprobs: refused(
    'asks for log probabilities, which the translated reply cannot carry back',
    'Leave logprobs out',
    (v) => !absent(v) && v !== 0,
  ),
  speechConfig: dropped('the voice of audio output; audio output itself (responseModalities AUDIO) is refused'),
  imageConfig: dropped('the shape of image output; image output itself (responseModalities IMAGE) is refused'),
  audioTranscriptionConfig: dropped('transcripts of audio output, which is refused'),
  enableEnhancedCivicAnswers: dropped('a Gemini policy switch; other providers have their own'),
  routingConfig: dropped('which Gemini model Vertex AI picks; the route already chose the model'),
  modelSelectionConfig: dropped('which Gemini model Vertex AI picks; the route already chose the model'),
  audioTimestamp: dropped(
    'timestamps for audio input on Vertex AI; no other provider kind takes audio through the hub',
  ),
};

/** A function declaration's fields. */
export const DECLARATION_FIELDS: Record<string, FieldRule> = {
  name: translated,
  description: translated,
  parameters: translated,
  parametersJsonSchema: translated,
  response: dropped("the schema of the function's result; the model reads the result itself"),
  responseJsonSchema: dropped("the schema of the function's result; the model reads the result itself"),
  behavior: dropped('blocking or not, for the Live API only'),
};

/** toolConfig's fields. */
export const TOOL_CONFIG_FIELDS: Record<string, FieldRule> = {
  functionCallingConfig: translated,
  retrievalConfig: dropped('the location used by the googleMaps and googleSearch tools, which are refused'),
  includeServerSideToolInvocations: dropped("server-side tools' calls, which are refused"),
};

/** Part fields that only a Gemini model can have produced or can read (each refused). */
const REFUSED_PARTS: Record<string, string> = {
  executableCode: "is code from Gemini's codeExecution tool, which only Gemini runs",
  codeExecutionResult: "is a result of Gemini's codeExecution tool, which only Gemini runs",
  toolCall: "is a call of one of Gemini's server-side tools, which only Gemini runs",
  toolResponse: "is a result of one of Gemini's server-side tools, which only Gemini runs",
  videoMetadata: 'clips or samples a video, which no other provider kind can be told',
};

function refusal(path: string, what: string, fix: string) {
  return invalid(`"${path}" ${what}.`, `${fix}, ${TO_GEMINI}.`);
}

/**
 * Checks an object's fields against a table: a refused one is a 400 naming the field's path; a dropped one, and one
 * the table does not list (a newer client's field), is noted on `ctx`.
 */
export function checkFields(obj: Json, table: Record<string, FieldRule>, at: string, ctx?: ClientContext): void {
  noteUnknownFields(ctx, obj, table, at);
  for (const [key, v] of Object.entries(obj)) {
    const rule = table[key];
    if (!rule || absent(v)) continue;
    const path = at ? `${at}.${key}` : key;
    if (rule.fate === 'refused' && (!rule.applies || rule.applies(v))) throw refusal(path, rule.what, rule.fix);
    if (rule.fate === 'dropped') noteDropped(ctx, path, rule.why);
  }
}

/** The request's fields, generationConfig's, toolConfig's, and each tool's (only functionDeclarations translate). */
export function checkRequestFields(body: Json, ctx?: ClientContext): void {
  checkFields(body, REQUEST_FIELDS, '', ctx);
  const config = body.generationConfig;
  if (!absent(config) && !isObject(config)) {
    throw invalid('"generationConfig" must be an object.', 'Send e.g. "generationConfig": {"temperature": 0.7}.');
  }
  if (config) checkFields(config, GENERATION_CONFIG_FIELDS, 'generationConfig', ctx);
  if (isObject(body.toolConfig)) checkFields(body.toolConfig, TOOL_CONFIG_FIELDS, 'toolConfig', ctx);
  if (!Array.isArray(body.tools)) return;
  body.tools.forEach((tool, i) => {
    if (!isObject(tool)) return;
    for (const key of Object.keys(tool)) {
      if (key === 'functionDeclarations') continue;
      throw refusal(
        `tools[${i}].${key}`,
        "is one of Gemini's own tools (search, code execution, URL context, maps…), which only Gemini runs",
        'Remove it and offer it as a function declaration',
      );
    }
    const decls = tool.functionDeclarations;
    if (Array.isArray(decls)) {
      decls.forEach(
        (d, j) => isObject(d) && checkFields(d, DECLARATION_FIELDS, `tools[${i}].functionDeclarations[${j}]`, ctx),
      );
    }
  });
}

/** Why a part's thoughtSignature is left out when the request is translated. */
export const THOUGHT_SIGNATURE_DROPPED =
  "Gemini's signature of its own reasoning, which no other provider can read (a Gemini provider gets it untouched)";

/**
 * A part of a turn: refuses what only Gemini can read (code execution, server-side tools, video clipping), and notes
 * what the hub cannot carry (a thoughtSignature).
 */
export function checkPart(p: Json, field: string, ctx?: ClientContext): void {
  for (const [key, what] of Object.entries(REFUSED_PARTS)) {
    if (!absent(p[key])) throw refusal(`${field}.${key}`, what, 'Leave that part out');
  }
  if (!absent(p.thoughtSignature)) noteDropped(ctx, 'contents[].parts[].thoughtSignature', THOUGHT_SIGNATURE_DROPPED);
  if (isObject(p.functionResponse) && !absent(p.functionResponse.parts)) {
    throw refusal(
      `${field}.functionResponse.parts`,
      'holds media returned by a function, which the translated request cannot carry',
      'Return the function result as JSON in "response"',
    );
  }
}
