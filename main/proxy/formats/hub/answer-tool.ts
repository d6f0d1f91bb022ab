// Structured output through a tool, for providers that cannot give a JSON answer and call functions in one reply
// (Anthropic, whose output_config.format few models and no compatible server take; Gemini, which refuses function
// calling beside responseMimeType application/json): the hub's response_format becomes a tool whose input schema is
// the answer's, which the model is made to call (as LiteLLM and Portkey do); on the way back the call's input is the
// assistant's text, and a reply whose only call was that one ends as a normal stop. Each format writes the tool in
// its own shape (anthropic/structured-output.ts, gemini/structured-output.ts).
import { argumentsToHub } from './tool-arguments.ts';
import { isObject, type Json } from './json.ts';
import type { HubResponseFormat } from './types.ts';

/** The answer tool for a schema whose root is an object (and for json_object): its input is the answer. */
export const ANSWER_TOOL = 'switchboard_json_answer';
/** The answer tool for any other schema (an array, a string…): wrapped as {"value": …}, the answer is `value`. */
export const ANSWER_VALUE_TOOL = 'switchboard_json_value';

export const isAnswerTool = (name: unknown): name is string => name === ANSWER_TOOL || name === ANSWER_VALUE_TOOL;

const DESCRIPTION =
  'Give your answer to the user by calling this tool, once: its input is your whole answer, as JSON that follows ' +
  'the input schema. Write nothing outside it.';

/** The answer tool in no format's shape: its name, description and the JSON schema of its input. */
export type AnswerTool = { name: string; description: string; schema: Json };

/** A schema's root as an object schema (a root with properties but no type is an object), or undefined. */
function objectRoot(schema: Json): Json | undefined {
  if (schema.type === 'object') return schema;
  return schema.type === undefined && isObject(schema.properties) ? { type: 'object', ...schema } : undefined;
}

/** The answer tool for a response_format; undefined for text (or none). */
export function answerTool(format: HubResponseFormat | undefined): AnswerTool | undefined {
  if (!format || format.type === 'text') return undefined;
  const named = format.json_schema?.name && format.json_schema.name !== 'response' ? format.json_schema.name : '';
  const description = named ? `${DESCRIPTION} The answer is a ${named}.` : DESCRIPTION;
  const schema = format.type === 'json_schema' ? format.json_schema?.schema : undefined;
  if (!isObject(schema)) {
    const open = { type: 'object', properties: {}, additionalProperties: true };
    return { name: ANSWER_TOOL, description, schema: open };
  }
  const root = objectRoot(schema);
  if (root) return { name: ANSWER_TOOL, description, schema: root };
  // A tool's input schema must be an object: wrap, keeping the definitions at the root where $ref finds them.
  const { $defs, definitions, ...value } = schema;
  const wrapped: Json = { type: 'object', properties: { value }, required: ['value'] };
  if ($defs !== undefined) wrapped.$defs = $defs;
  if (definitions !== undefined) wrapped.definitions = definitions;
  return { name: ANSWER_VALUE_TOOL, description: `${description} Put it in "value".`, schema: wrapped };
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
