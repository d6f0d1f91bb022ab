// Provider side: structured output toward Gemini. A JSON response_format goes as responseMimeType application/json
// (with responseJsonSchema), except beside function tools: Gemini 2.5 refuses function calling with a JSON response
// mime type ("Function calling with a response mime type: 'application/json' is unsupported"), so there the answer
// tool (../hub/answer-tool.ts) is declared as one more function and the model is made to call a function, as toward
// Anthropic; its call comes back as the assistant's text (response-to-hub.ts, stream-decoder.ts).
import { answerTool, invalid, isAnswerTool, writePath } from '../hub/index.ts';
import type { HubRequest, Json } from '../hub/index.ts';
import type { GeminiRequest } from './types.ts';

/**
 * The request's response_format on the Gemini body (after toolsFromHub):
 * - no function tools: responseMimeType application/json, and the schema as responseJsonSchema;
 * - function tools with tool_choice auto (or none given): the answer tool is declared beside them and mode ANY makes
 *   the model call a function: one of the client's, or the answer tool for its final answer;
 * - function tools with tool_choice "none": mode ANY allows the answer tool alone;
 * - the client forces a function itself (required, or a named one): that reply is a call, so the format has nothing
 *   to shape and nothing is sent for it.
 * A client function may not take an answer tool's name (its calls would come back as text).
 */
export function structuredOutputFromHub(req: HubRequest, body: GeminiRequest): void {
  const format = req.response_format;
  if (format?.type !== 'json_object' && format?.type !== 'json_schema') return;
  const declarations = body.tools?.flatMap((t) => t.functionDeclarations ?? []) ?? [];
  if (declarations.length === 0) {
    const wire = body as Json;
    writePath(wire, 'generationConfig.responseMimeType', 'application/json');
    const schema = format.type === 'json_schema' ? format.json_schema?.schema : undefined;
    if (schema) writePath(wire, 'generationConfig.responseJsonSchema', schema);
    return;
  }
  const clash = declarations.find((d) => isAnswerTool(d.name));
  if (clash) {
    throw invalid(
      `The function name "${clash.name}" is reserved by Switchboard for structured output beside tools.`,
      'Rename the function.',
    );
  }
  const choice = req.tool_choice;
  if (choice === 'required' || typeof choice === 'object') return;
  const tool = answerTool(format)!;
  declarations.push({ name: tool.name, description: tool.description, parametersJsonSchema: tool.schema });
  body.tools = [{ functionDeclarations: declarations }];
  const only = choice === 'none' ? { allowedFunctionNames: [tool.name] } : {};
  body.toolConfig = { functionCallingConfig: { mode: 'ANY', ...only } };
}
