// Provider side, both ways: structured output toward Anthropic. The hub's response_format (OpenAI's json_schema and
// json_object, Ollama's `format`, Gemini's responseJsonSchema / responseMimeType) becomes a tool whose input schema
// is the answer's schema, which the model is made to call (as LiteLLM and Portkey do); on the way back the call's
// input is the assistant's text, and a reply whose only call was that one ends as a normal stop.
import { argumentsToHub, invalid, isObject } from '../hub/index.ts';
import type { HubRequest, HubResponseFormat, Json } from '../hub/index.ts';
import type { AnthropicRequest, AnthropicTool } from './types.ts';

/** The answer tool for a schema whose root is an object (and for json_object): its input is the answer. */
export const ANSWER_TOOL = 'switchboard_json_answer';
/** The answer tool for any other schema (an array, a string…): wrapped as {"value": …}, the answer is `value`. */
export const ANSWER_VALUE_TOOL = 'switchboard_json_value';

export const isAnswerTool = (name: unknown): name is string => name === ANSWER_TOOL || name === ANSWER_VALUE_TOOL;

const DESCRIPTION =
  'Give your answer to the user by calling this tool, once: its input is your whole answer, as JSON that follows ' +
  'the input schema. Write nothing outside it.';

/** A schema's root as an object schema (a root with properties but no type is an object), or undefined. */
function objectRoot(schema: Json): Json | undefined {
  if (schema.type === 'object') return schema;
  return schema.type === undefined && isObject(schema.properties) ? { type: 'object', ...schema } : undefined;
}

/** The answer tool for a response_format; undefined for text (or none). */
export function answerTool(format: HubResponseFormat | undefined): AnthropicTool | undefined {
  if (!format || format.type === 'text') return undefined;
  const named = format.json_schema?.name && format.json_schema.name !== 'response' ? format.json_schema.name : '';
  const description = named ? `${DESCRIPTION} The answer is a ${named}.` : DESCRIPTION;
  const schema = format.type === 'json_schema' ? format.json_schema?.schema : undefined;
  if (!isObject(schema)) {
    const open = { type: 'object', properties: {}, additionalProperties: true };
    return { name: ANSWER_TOOL, description, input_schema: open };
  }
  const root = objectRoot(schema);
  if (root) return { name: ANSWER_TOOL, description, input_schema: root };
  // Anthropic's input schema must be an object: wrap, keeping the definitions at the root where $ref finds them.
  const { $defs, definitions, ...value } = schema;
  const input_schema: Json = { type: 'object', properties: { value }, required: ['value'] };
  if ($defs !== undefined) input_schema.$defs = $defs;
  if (definitions !== undefined) input_schema.definitions = definitions;
  return { name: ANSWER_VALUE_TOOL, description: `${description} Put it in "value".`, input_schema };
}

/**
 * Adds the answer tool for the request's response_format and forces it, beside the client's tools:
 * - no client tools, or tool_choice "none": tool_choice {"type": "tool"} names the answer tool;
 * - client tools with tool_choice auto (or none given): {"type": "any"}: the model calls the client's tools, or
 *   answers through the answer tool (OpenAI's meaning: tools first, and the final answer in the format);
 * - the client forces a tool itself (required, or a named function): that reply is a tool call, so the format has
 *   nothing to shape and the answer tool is not added.
 * A client tool may not take an answer tool's name (its calls would come back as text). Returns whether the request
 * now forces a tool (thinking gives way to that: thinking.ts).
 */
export function structuredOutputFromHub(req: HubRequest, out: AnthropicRequest): boolean {
  const clash = out.tools?.find((t) => isAnswerTool(t.name));
  if (clash) {
    throw invalid(
      `The tool name "${clash.name}" is reserved by Switchboard for structured output toward Anthropic providers.`,
      'Rename the tool.',
    );
  }
  const choice = req.tool_choice;
  const clientTools = (out.tools?.length ?? 0) > 0;
  const clientForces = clientTools && (choice === 'required' || typeof choice === 'object');
  const tool = answerTool(req.response_format);
  if (!tool || clientForces) return clientForces;
  const parallel = out.tool_choice?.disable_parallel_tool_use ? { disable_parallel_tool_use: true } : {};
  out.tool_choice = clientTools && choice !== 'none' ? { type: 'any', ...parallel } : { type: 'tool', name: tool.name };
  out.tools = [...(out.tools ?? []), tool];
  return true;
}

/** The assistant's text for an answer tool's whole input. */
export function answerText(name: string, input: unknown): string {
  if (name === ANSWER_VALUE_TOOL && isObject(input) && 'value' in input) return JSON.stringify(input.value);
  return argumentsToHub(input);
}

/** The assistant's text for an answer tool's input streamed as JSON text (the value tool's, once it is whole). */
export function answerTextOfJson(name: string, json: string): string {
  if (name !== ANSWER_VALUE_TOOL) return json;
  try {
    return answerText(name, JSON.parse(json));
  } catch {
    return json; // cut or not JSON: the text as it came, never lost
  }
}
