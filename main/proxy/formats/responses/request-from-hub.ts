// Provider side: the hub request as a Responses request to a provider that speaks Responses natively.
import { contentText, paramsFromHub } from '../hub/index.ts';
import type { HubContentPart, HubMessage, HubRequest, HubTool, HubToolChoice, Json } from '../hub/index.ts';
import { RESPONSES_PARAMS } from './common.ts';

function partsFromHub(content: string | HubContentPart[]): string | Json[] {
  if (typeof content === 'string') return content;
  return content.map((p) =>
    p.type === 'text'
      ? { type: 'input_text', text: p.text }
      : { type: 'input_image', image_url: p.image_url.url, detail: p.image_url.detail ?? 'auto' },
  );
}

/** Hub messages as input items: an assistant turn is its text message, then one function_call item per call. */
function itemsFromHub(messages: HubMessage[]): Json[] {
  const input: Json[] = [];
  for (const m of messages) {
    switch (m.role) {
      case 'system':
      case 'developer':
      case 'user':
        input.push({ type: 'message', role: m.role, content: partsFromHub(m.content) });
        break;
      case 'assistant': {
        const text = contentText(m.content);
        if (text) input.push({ type: 'message', role: 'assistant', content: text });
        for (const { id, function: fn } of m.tool_calls ?? []) {
          input.push({ type: 'function_call', call_id: id, name: fn.name, arguments: fn.arguments });
        }
        break;
      }
      case 'tool': {
        const textOnly = typeof m.content === 'string' || m.content.every((p) => p.type === 'text');
        const output = textOnly ? contentText(m.content) : partsFromHub(m.content);
        input.push({ type: 'function_call_output', call_id: m.tool_call_id, output });
        break;
      }
    }
  }
  return input;
}

/** Tools with an explicit `strict`: Responses defaults it to true, chat to false. */
function toolsFromHub(tools: HubTool[]): Json[] {
  return tools.map((t) => ({
    type: 'function',
    name: t.function.name,
    ...(t.function.description !== undefined ? { description: t.function.description } : {}),
    parameters: t.function.parameters ?? null,
    strict: t.function.strict ?? false,
  }));
}

function toolChoiceFromHub(choice: HubToolChoice): unknown {
  return typeof choice === 'string' ? choice : { type: 'function', name: choice.function.name };
}

function textFormatFromHub(rf: HubRequest['response_format']): Json | undefined {
  if (rf?.type === 'json_object') return { format: { type: 'json_object' } };
  if (rf?.type !== 'json_schema' || !rf.json_schema) return undefined;
  const { name, schema, strict } = rf.json_schema;
  return {
    format: { type: 'json_schema', name, ...(schema ? { schema } : {}), ...(strict !== undefined ? { strict } : {}) },
  };
}

/**
 * stop, n, seed and the penalties have no Responses field and are dropped; the hub's reasoning effort is
 * `reasoning.effort`; `store: false` keeps nothing upstream.
 */
export function requestFromHub(req: HubRequest): Json {
  const out: Json = { model: req.model, input: itemsFromHub(req.messages) };
  if (req.tools?.length) out.tools = toolsFromHub(req.tools);
  if (req.tool_choice !== undefined) out.tool_choice = toolChoiceFromHub(req.tool_choice);
  if (req.parallel_tool_calls !== undefined) out.parallel_tool_calls = req.parallel_tool_calls;
  paramsFromHub(RESPONSES_PARAMS, req, out);
  const text = textFormatFromHub(req.response_format);
  if (text) out.text = text;
  if (req.user !== undefined) out.user = req.user;
  if (req.reasoning_effort !== undefined) out.reasoning = { effort: req.reasoning_effort };
  out.store = false;
  if (req.stream) out.stream = true;
  return out;
}
