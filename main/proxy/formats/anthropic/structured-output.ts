// Provider side, both ways: structured output toward Anthropic. The hub's response_format (OpenAI's json_schema and
// json_object, Ollama's `format`, Gemini's responseJsonSchema / responseMimeType) becomes the answer tool
// (../hub/answer-tool.ts), which the model is made to call; on the way back the call's input is the assistant's
// text, and a reply whose only call was that one ends as a normal stop.
import { answerTool as answerToolOf, invalid, isAnswerTool } from '../hub/index.ts';
import type { HubRequest, HubResponseFormat } from '../hub/index.ts';
import type { AnthropicRequest, AnthropicTool } from './types.ts';

export { ANSWER_TOOL, ANSWER_VALUE_TOOL, answerText, answerTextOfJson, isAnswerTool } from '../hub/index.ts';

/** The answer tool (../hub/answer-tool.ts) for a response_format as an Anthropic tool; undefined for text. */
export function answerTool(format: HubResponseFormat | undefined): AnthropicTool | undefined {
  const tool = answerToolOf(format);
  return tool && { name: tool.name, description: tool.description, input_schema: tool.schema };
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
