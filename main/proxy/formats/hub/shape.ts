// The types a translated hub request must have. Every format's reader builds its hub request, so it has them, but the
// OpenAI front door's request is the hub itself, checked only for a model and messages with a role (shared/openai.ts)
// so that an OpenAI-compatible provider gets exactly what the client sent. Before such a request is translated for
// another kind of provider, the fields the translations read are checked here: content that is not text or parts, a
// tool call without a function, arguments that are not text... made them throw (a 500); now they are refused with a
// 400 naming the field (found by the fuzz suite, test/fuzz/). Plain loops: this runs on every translated request.
import { isObject } from './json.ts';
import type { Refusal } from './accepted.ts';
import type { HubRequest } from './types.ts';

const PARTS = 'Send content as a string, or as parts such as [{"type": "text", "text": "..."}].';

function refusal(field: string, value: unknown, why: string, fix: string): Refusal {
  return { field, value, why: `${why} (as in an OpenAI chat request)`, fix };
}

const isText = (v: unknown): v is string => typeof v === 'string';
const absent = (v: unknown): boolean => v === undefined || v === null;

function contentRefusal(content: unknown, path: string, optional: boolean): Refusal | null {
  if (isText(content) || (optional && absent(content))) return null;
  if (!Array.isArray(content)) {
    const why = optional ? 'content must be a string, an array of parts or null' : 'content must be text or parts';
    return refusal(path, content, why, PARTS);
  }
  for (let j = 0; j < content.length; j++) {
    const part: unknown = content[j];
    const at = `${path}[${j}]`;
    if (!isObject(part)) return refusal(at, part, 'a content part must be an object with a "type"', PARTS);
    if (part.type === 'text' && !isText(part.text)) return refusal(`${at}.text`, part.text, 'must be text', PARTS);
    if (part.type === 'image_url' && !(isObject(part.image_url) && isText(part.image_url.url))) {
      const fix = 'Send {"type": "image_url", "image_url": {"url": "https://… or data:…"}}.';
      return refusal(`${at}.image_url`, part.image_url, 'must be an object with a "url"', fix);
    }
  }
  return null;
}

function toolCallsRefusal(calls: unknown, path: string): Refusal | null {
  if (absent(calls)) return null;
  const fix = 'Send tool_calls as [{"id": "...", "type": "function", "function": {"name": "...", "arguments": "{}"}}].';
  if (!Array.isArray(calls)) return refusal(path, calls, 'must be an array of tool calls', fix);
  for (let k = 0; k < calls.length; k++) {
    const call: unknown = calls[k];
    if (!isObject(call) || !isText(call.id)) {
      return refusal(`${path}[${k}].id`, isObject(call) ? call.id : call, 'must be text (a tool result names it)', fix);
    }
    const fn = call.function;
    if (!isObject(fn)) return refusal(`${path}[${k}].function`, fn, 'must be an object with a name and arguments', fix);
    if (!isText(fn.name)) return refusal(`${path}[${k}].function.name`, fn.name, 'must be text', fix);
    if (!isText(fn.arguments)) {
      return refusal(`${path}[${k}].function.arguments`, fn.arguments, 'must be JSON text, as the model wrote it', fix);
    }
  }
  return null;
}

function messagesRefusal(messages: readonly unknown[]): Refusal | null {
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as Record<string, unknown>;
    const path = `messages[${i}]`;
    const assistant = m.role === 'assistant';
    const content = contentRefusal(m.content, `${path}.content`, assistant);
    if (content) return content;
    if (assistant) {
      const calls = toolCallsRefusal(m.tool_calls, `${path}.tool_calls`);
      if (calls) return calls;
    }
    if (m.role === 'tool' && !isText(m.tool_call_id)) {
      const fix = 'Send the id of the tool call this message answers.';
      return refusal(`${path}.tool_call_id`, m.tool_call_id, 'must be text', fix);
    }
  }
  return null;
}

function toolsRefusal(req: HubRequest): Refusal | null {
  const tools: unknown = req.tools;
  const fix = 'Send tools as [{"type": "function", "function": {"name": "...", "parameters": {...}}}].';
  if (!absent(tools)) {
    if (!Array.isArray(tools)) return refusal('tools', tools, 'must be an array of tools', fix);
    for (let i = 0; i < tools.length; i++) {
      const t: unknown = tools[i];
      if (!isObject(t)) return refusal(`tools[${i}]`, t, 'must be an object', fix);
      const fn = t.function;
      if (isObject(fn) && !isText(fn.name)) return refusal(`tools[${i}].function.name`, fn.name, 'must be text', fix);
      if (isObject(fn) && !absent(fn.parameters) && !isObject(fn.parameters)) {
        return refusal(`tools[${i}].function.parameters`, fn.parameters, 'must be a JSON Schema object', fix);
      }
    }
  }
  const choice: unknown = req.tool_choice;
  if (
    !absent(choice) &&
    !(choice === 'auto' || choice === 'none' || choice === 'required') &&
    !(isObject(choice) && isObject(choice.function) && isText(choice.function.name))
  ) {
    const why = 'must be "auto", "none", "required" or {"type": "function", "function": {"name": "..."}}';
    return refusal('tool_choice', choice, why, 'Send {"type": "function", "function": {"name": "..."}}, or "auto".');
  }
  return null;
}

function otherRefusal(req: HubRequest): Refusal | null {
  const effort: unknown = req.reasoning_effort;
  if (!absent(effort) && !isText(effort)) {
    const fix = 'Send "reasoning_effort": "low", "medium" or "high".';
    return refusal('reasoning_effort', effort, 'must be a level such as "low"', fix);
  }
  const stop: unknown = req.stop;
  if (!absent(stop) && !isText(stop) && !(Array.isArray(stop) && stop.every(isText))) {
    return refusal('stop', stop, 'must be text or an array of texts', 'Send "stop": ["..."].');
  }
  const format: unknown = req.response_format;
  if (absent(format)) return null;
  const fix = 'Send {"type": "json_schema", "json_schema": {"name": "...", "schema": {...}}}, or {"type": "text"}.';
  if (!isObject(format) || !isText(format.type))
    return refusal('response_format', format, 'must be an object with a "type"', fix);
  const js = format.json_schema;
  if (
    !absent(js) &&
    !(isObject(js) && (absent(js.schema) || isObject(js.schema)) && (absent(js.name) || isText(js.name)))
  ) {
    return refusal('response_format.json_schema', js, 'must be an object with a "name" and a "schema" object', fix);
  }
  return null;
}

/** The first field of a hub request whose type a translation cannot read, as a refusal; null when all are right. */
export function shapeRefusal(req: HubRequest): Refusal | null {
  return messagesRefusal(req.messages) ?? toolsRefusal(req) ?? otherRefusal(req);
}
