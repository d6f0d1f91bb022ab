// Client side: a Gemini GenerateContentRequest (camelCase or snake_case) as the hub request.
import { ApiError } from '../../../errors.ts';
import { invalid, isObject, paramsToHub } from '../hub/index.ts';
import type { ClientContext, HubContentPart, HubMessage, HubRequest, HubTool, HubToolChoice } from '../hub/index.ts';
import type { Json } from '../hub/index.ts';
import { GEMINI_PARAMS } from './common.ts';
import { contentsToHub, partsOf, partsToHub } from './contents-to-hub.ts';
import { checkRequestFields } from './fields.ts';
import { camelizeRequest, schemaToJsonSchema } from './schema.ts';
import { thinkingToHub } from './thinking.ts';
import { geminiModelId } from './urls.ts';

const EXAMPLE_BODY = '{"contents": [{"role": "user", "parts": [{"text": "Hello"}]}]}';

function systemToHub(instruction: unknown): HubMessage | undefined {
  if (instruction === undefined || instruction === null) return undefined;
  if (typeof instruction === 'string') return { role: 'system', content: instruction };
  const parts = partsOf(instruction, 'systemInstruction')
    .filter((p) => typeof p.text === 'string')
    .map((p): HubContentPart => ({ type: 'text', text: p.text as string }));
  return parts.length ? { role: 'system', content: partsToHub(parts) } : undefined;
}

/** A function declaration's parameters: JSON Schema as it is, Gemini's Schema converted. */
function parametersToHub(d: Json): Json | undefined {
  if (isObject(d.parametersJsonSchema)) return d.parametersJsonSchema;
  const converted = isObject(d.parameters) ? schemaToJsonSchema(d.parameters) : undefined;
  return isObject(converted) ? converted : undefined;
}

function toolsToHub(tools: unknown): HubTool[] | undefined {
  if (tools === undefined || tools === null) return undefined;
  if (!Array.isArray(tools)) {
    throw invalid('tools must be an array of {"functionDeclarations": […]}.', 'Send tools as a JSON array.');
  }
  const out: HubTool[] = [];
  tools.forEach((tool, i) => {
    const decls = isObject(tool) ? tool.functionDeclarations : undefined;
    if (decls === undefined) return; // googleSearch, codeExecution…: nothing the hub can carry
    if (!Array.isArray(decls)) {
      throw invalid(
        `tools[${i}].functionDeclarations must be an array.`,
        'Send a list of {"name", "description", "parameters"}.',
      );
    }
    decls.forEach((d, j) => {
      if (!isObject(d) || typeof d.name !== 'string' || d.name === '') {
        throw invalid(
          `tools[${i}].functionDeclarations[${j}].name must be the function's name.`,
          'Give every function declaration a name.',
        );
      }
      const fn: HubTool['function'] = { name: d.name };
      if (typeof d.description === 'string') fn.description = d.description;
      const parameters = parametersToHub(d);
      if (parameters) fn.parameters = parameters;
      out.push({ type: 'function', function: fn });
    });
  });
  return out;
}

/** toolConfig as tool_choice; several allowed names narrow the tools instead (the hub has no "one of these"). */
function toolChoiceToHub(
  toolConfig: unknown,
  tools: HubTool[] | undefined,
): { choice?: HubToolChoice; tools?: HubTool[] | undefined } {
  const fcc = isObject(toolConfig) ? toolConfig.functionCallingConfig : undefined;
  const config = isObject(fcc) ? fcc : undefined;
  if (!config || config.mode === undefined) return { tools };
  const mode = typeof config.mode === 'string' ? config.mode.toUpperCase() : config.mode;
  const names = Array.isArray(config.allowedFunctionNames) ? config.allowedFunctionNames : [];
  const allowed = names.filter((n): n is string => typeof n === 'string');
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
      // Several allowed names: offer only those tools and require a call.
      return {
        choice: 'required',
        tools: allowed.length > 1 && tools ? tools.filter((t) => allowed.includes(t.function.name)) : tools,
      };
    default:
      throw invalid(
        'toolConfig.functionCallingConfig.mode must be AUTO, ANY, NONE or VALIDATED, ' +
          `got ${JSON.stringify(config.mode)}.`,
        'Set mode to one of AUTO, ANY, NONE, VALIDATED.',
      );
  }
}

/** JSON output (responseMimeType application/json) as response_format, with its schema when one is given. */
function responseFormatToHub(config: unknown, req: HubRequest): void {
  if (!isObject(config) || config.responseMimeType !== 'application/json') return;
  const schema = isObject(config.responseJsonSchema)
    ? config.responseJsonSchema
    : isObject(config.responseSchema)
      ? schemaToJsonSchema(config.responseSchema)
      : undefined;
  req.response_format = isObject(schema)
    ? { type: 'json_schema', json_schema: { name: 'response', schema } }
    : { type: 'json_object' };
}

/** generationConfig.mediaResolution as the detail of every image (OpenAI's `detail`: how finely it is read). */
const DETAIL_OF: Record<string, string | undefined> = {
  MEDIA_RESOLUTION_UNSPECIFIED: undefined,
  MEDIA_RESOLUTION_LOW: 'low',
  MEDIA_RESOLUTION_MEDIUM: 'auto',
  MEDIA_RESOLUTION_HIGH: 'high',
};

function mediaResolutionToHub(config: unknown, messages: HubMessage[]): void {
  const v = isObject(config) ? config.mediaResolution : undefined;
  if (v === undefined || v === null) return;
  if (typeof v !== 'string' || !Object.hasOwn(DETAIL_OF, v)) {
    throw invalid(
      `"generationConfig.mediaResolution" must be one of ${Object.keys(DETAIL_OF).join(', ')}; got ${JSON.stringify(v)}.`,
      'Send one of those values, or leave it out.',
    );
  }
  const detail = DETAIL_OF[v];
  if (!detail) return;
  for (const m of messages) {
    if (m.role !== 'user' || typeof m.content === 'string') continue;
    for (const part of m.content) if (part.type === 'image_url') part.image_url.detail = detail;
  }
}

export function requestToHub(rawBody: unknown, ctx: ClientContext): HubRequest {
  if (!isObject(rawBody)) {
    const got = Array.isArray(rawBody) ? 'an array' : typeof rawBody;
    throw invalid(
      `The request body must be a JSON object (a Gemini GenerateContentRequest), got ${got}.`,
      `Send ${EXAMPLE_BODY}.`,
    );
  }
  const body = camelizeRequest(rawBody) as Json;
  checkRequestFields(body, ctx);
  const model = ctx.pathModel ?? (typeof body.model === 'string' ? body.model : undefined);
  if (!model) {
    throw new ApiError(
      'model_required',
      'The model is missing from the URL.',
      'Call POST /v1beta/models/{model}:generateContent, e.g. /v1beta/models/gemini-2.5-flash:generateContent.',
    );
  }
  if (!Array.isArray(body.contents) || body.contents.length === 0) {
    throw invalid('contents is required: a non-empty array of {"role", "parts"} turns.', `Send ${EXAMPLE_BODY}.`);
  }
  const messages = contentsToHub(body.contents, ctx);
  const system = systemToHub(body.systemInstruction);
  if (system) messages.unshift(system);
  const req: HubRequest = { model: geminiModelId(model), messages };
  if (ctx.pathStream) {
    req.stream = true;
    // Gemini ends every stream with usageMetadata (Gemini CLI compresses its chat by promptTokenCount): ask
    // OpenAI-style providers for usage.
    req.stream_options = { include_usage: true };
  }
  const { choice, tools } = toolChoiceToHub(body.toolConfig, toolsToHub(body.tools));
  if (tools?.length) req.tools = tools;
  if (choice && tools?.length) req.tool_choice = choice;
  paramsToHub(GEMINI_PARAMS, body, req, { numericStrings: true, stopAsArray: true });
  responseFormatToHub(body.generationConfig, req);
  if (isObject(body.generationConfig)) thinkingToHub(body.generationConfig.thinkingConfig, req);
  mediaResolutionToHub(body.generationConfig, messages);
  return req;
}
