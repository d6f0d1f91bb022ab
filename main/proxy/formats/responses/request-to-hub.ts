// Client side: a Responses request (`POST /v1/responses`) checked and read into the hub request: the input items
// here, the tools in client-tools.ts, the other fields in request-fields.ts.
import { absent, contentText, invalid, isObject, requireModel, requireObject } from '../hub/index.ts';
import type { ClientContext, HubContentPart, HubMessage, HubRequest, HubToolCall, Json } from '../hub/index.ts';
import { callIdOf, clientCallToHub, clientOutputText } from './client-calls.ts';
import { type ClientTools, namespacedName, toolChoiceToHub, toolsToHub } from './client-tools.ts';
import { fieldsToHub } from './request-fields.ts';

type HubAssistant = Extract<HubMessage, { role: 'assistant' }>;

function partsToHub(content: unknown, where: string): HubContentPart[] {
  if (!Array.isArray(content)) {
    throw invalid(
      `${where} must be a string or an array of content parts.`,
      'Send text as a string or as [{"type":"input_text","text":"..."}].',
    );
  }
  return content.map((part, i): HubContentPart => {
    const at = `${where}[${i}]`;
    if (!isObject(part)) throw invalid(`${at} must be an object.`, 'Send {"type":"input_text","text":"..."}.');
    switch (part.type) {
      case 'input_text':
      case 'output_text':
      case 'text':
        if (typeof part.text !== 'string') throw invalid(`${at}.text must be a string.`, 'Put the text in "text".');
        return { type: 'text', text: part.text };
      case 'refusal':
        return { type: 'text', text: typeof part.refusal === 'string' ? part.refusal : '' };
      case 'input_image': {
        if (typeof part.image_url === 'string' && part.image_url) {
          const detail = typeof part.detail === 'string' && part.detail !== 'auto' ? { detail: part.detail } : {};
          return { type: 'image_url', image_url: { url: part.image_url, ...detail } };
        }
        if (!absent(part.file_id)) {
          throw invalid(
            `${at}.file_id is not supported: Switchboard does not store files and the provider it routes to ` +
              'cannot read OpenAI file ids.',
            'Send the image inline as "image_url" (an https URL or a data: URL with base64 data).',
          );
        }
        throw invalid(`${at} has no "image_url".`, 'Send the image as "image_url" (an https URL or a data: URL).');
      }
      default:
        throw invalid(
          `${at}.type "${String(part.type)}" is not supported by Switchboard's Responses endpoint.`,
          'Use "input_text" or "input_image" parts (files must be sent as text or images).',
        );
    }
  });
}

function contentToHub(content: unknown, where: string): string | HubContentPart[] {
  if (typeof content === 'string') return content;
  return partsToHub(content, where);
}

function toolOutputToHub(output: unknown, where: string): string | HubContentPart[] {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) return partsToHub(output, where);
  throw invalid(`${where} must be a string.`, 'Send the tool result as a string (JSON text is fine).');
}

const AS_RETURNED = 'Send the function_call item as the model returned it.';

function functionCallToHub(item: Json, at: string): HubToolCall {
  if (typeof item.name !== 'string' || !item.name) {
    throw invalid(`${at}.name must be the function's name.`, AS_RETURNED);
  }
  if (typeof item.call_id !== 'string' || !item.call_id) throw invalid(`${at}.call_id is required.`, AS_RETURNED);
  const args = typeof item.arguments === 'string' ? item.arguments : JSON.stringify(item.arguments ?? {});
  const ns = typeof item.namespace === 'string' && item.namespace ? item.namespace : undefined;
  const name = ns ? namespacedName(ns, item.name) : item.name;
  return { id: item.call_id, type: 'function', function: { name, arguments: args } };
}

/** A reasoning item's text: its reasoning_text content, else its summary (encrypted_content cannot be read). */
function reasoningText(item: Json): string {
  const texts = (parts: unknown): string[] =>
    Array.isArray(parts) ? parts.flatMap((p) => (isObject(p) && typeof p.text === 'string' ? [p.text] : [])) : [];
  const content = texts(item.content);
  return (content.length ? content : texts(item.summary)).join('\n\n');
}

/** Item types that only OpenAI's servers make or read (server-run tools, stored state): refused. */
const SERVER_ITEMS =
  /^(web_search_call|file_search_call|computer_call|computer_call_output|code_interpreter_call|image_generation_call|mcp_\w+|tool_search_\w+|additional_tools|program\w*|compaction\w*)$/;

/**
 * Input items as hub messages. Consecutive calls (function, custom, local_shell…) join the assistant message before
 * them; a reasoning item's text becomes the reasoning_content of the assistant message that follows it (reasoning no
 * assistant item follows before the next user or system message is dropped).
 */
function itemsToHub(input: unknown[]): HubMessage[] {
  const messages: HubMessage[] = [];
  let reasoning = '';
  const assistant = (m: HubAssistant): HubAssistant => {
    if (reasoning) m.reasoning_content = (m.reasoning_content ? m.reasoning_content + '\n\n' : '') + reasoning;
    reasoning = '';
    return m;
  };
  const addCall = (call: HubToolCall): void => {
    const last = messages.at(-1);
    if (last?.role !== 'assistant')
      return void messages.push(assistant({ role: 'assistant', content: null, tool_calls: [call] }));
    (last.tool_calls ??= []).push(call);
    assistant(last);
  };
  input.forEach((item, i) => {
    const at = `input[${i}]`;
    if (!isObject(item)) throw invalid(`${at} must be an object.`, 'Send {"role":"user","content":"..."}.');
    const type = String(item.type ?? 'message');
    switch (type) {
      case 'message': {
        const role = item.role;
        const content = contentToHub(item.content, `${at}.content`);
        if (role === 'user' || role === 'system' || role === 'developer') reasoning = ''; // no assistant turn took it
        if (role === 'user') messages.push({ role: 'user', content });
        else if (role === 'system' || role === 'developer') messages.push({ role: 'system', content });
        else if (role === 'assistant') messages.push(assistant({ role: 'assistant', content: contentText(content) }));
        else throw invalid(`${at}.role must be "user", "assistant", "system" or "developer".`, 'Set the message role.');
        return;
      }
      case 'function_call':
        return addCall(functionCallToHub(item, at));
      case 'custom_tool_call':
      case 'local_shell_call':
      case 'shell_call':
      case 'apply_patch_call':
        return addCall(clientCallToHub(item, at));
      case 'function_call_output':
      case 'custom_tool_call_output':
      case 'local_shell_call_output':
      case 'shell_call_output':
      case 'apply_patch_call_output': {
        const id = callIdOf(item, at, type === 'local_shell_call_output');
        const output = type === 'function_call_output' ? item.output : clientOutputText(item, at);
        messages.push({ role: 'tool', tool_call_id: id, content: toolOutputToHub(output, `${at}.output`) });
        return;
      }
      case 'reasoning':
        reasoning += (reasoning ? '\n\n' : '') + reasoningText(item);
        return;
      case 'item_reference':
        throw invalid(
          `${at} is an item_reference: Switchboard does not store responses, so it cannot look items up.`,
          'Send the full item instead of a reference to it.',
        );
      default:
        if (SERVER_ITEMS.test(type)) {
          throw invalid(
            `${at}.type "${type}" is an item only OpenAI's servers make or read; the chat provider this model is ` +
              'routed to cannot take it.',
            'Route the model to a provider that serves the Responses API natively, or start a new conversation.',
          );
        }
        throw invalid(
          `${at}.type "${type}" is not an input item Switchboard knows.`,
          'Send messages, reasoning items, and function, custom, local_shell, shell and apply_patch calls and outputs.',
        );
    }
  });
  return messages;
}

/**
 * The request as the hub's. `ctx.clientTools` receives the client's tools that travel as plain functions under another
 * shape (custom, local_shell…), so the reply restores their calls (ClientContext).
 */
export function requestToHub(json: unknown, ctx: ClientContext = {}): HubRequest {
  const body = requireObject(json, '{"model": "...", "input": "..."}');
  const model = requireModel(body.model, '"gpt-4o-mini"');
  const messages: HubMessage[] = [];
  const hub: HubRequest = { model, messages };
  fieldsToHub(body, hub, ctx);

  if (typeof body.instructions === 'string' && body.instructions) {
    messages.push({ role: 'system', content: body.instructions });
  }
  if (typeof body.input === 'string') messages.push({ role: 'user', content: body.input });
  else if (Array.isArray(body.input)) messages.push(...itemsToHub(body.input));
  else if (!absent(body.input)) {
    throw invalid(
      '"input" must be a string or an array of items.',
      'Send "input": "..." or "input": [{"role":"user","content":"..."}].',
    );
  }
  if (messages.length === 0) throw invalid('The request has no "input".', 'Send "input": "..." with the prompt.');
  const clientTools: ClientTools = {};
  const chosen = toolChoiceToHub(body.tool_choice, toolsToHub(body.tools, clientTools, ctx));
  if (chosen.tools?.length) hub.tools = chosen.tools;
  if (chosen.choice !== undefined) hub.tool_choice = chosen.choice;
  if (Object.keys(clientTools).length) ctx.clientTools = clientTools;
  return hub;
}
