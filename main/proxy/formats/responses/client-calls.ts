// Client-run tool calls both ways. Request: the call and output items of earlier turns (custom_tool_call,
// local_shell_call, shell_call, apply_patch_call and their outputs) as hub tool calls and tool results. Reply: a hub
// tool call as the item kind the client declared (`clientTools`, filled by client-tools.ts), and a custom tool's raw
// input read out of the function arguments, also while they stream (CustomInputStream). See DECISIONS.md.
import { absent, argumentsFromHub, invalid, isObject } from '../hub/index.ts';
import type { HubToolCall, Json } from '../hub/index.ts';
import { namespacedName, type ClientTools } from './client-tools.ts';
import type { ItemStatus, OutputItem } from './types.ts';

type ClientTool = ClientTools[string];

const AS_RETURNED = 'Send the item as the model returned it.';

/** The call id of a call or output item (`call_id`; a local_shell_call_output names its call by `id`). */
export function callIdOf(item: Json, at: string, alsoId = false): string {
  const id = item.call_id ?? (alsoId ? item.id : undefined);
  if (typeof id !== 'string' || !id) throw invalid(`${at}.call_id is required.`, AS_RETURNED);
  return id;
}

/** An object's fields without the ones left out (null or undefined), as JSON arguments. */
const argsOf = (fields: Json): string =>
  JSON.stringify(Object.fromEntries(Object.entries(fields).filter(([, v]) => !absent(v))));

function objectAt(v: unknown, where: string): Json {
  if (!isObject(v)) throw invalid(`${where} must be an object.`, AS_RETURNED);
  return v;
}

/** A client-run call item of an earlier turn as a hub tool call (its arguments as the function tool takes them). */
export function clientCallToHub(item: Json, at: string): HubToolCall {
  const call = (name: string, args: string): HubToolCall => ({
    id: callIdOf(item, at, item.type === 'local_shell_call'),
    type: 'function',
    function: { name, arguments: args },
  });
  switch (item.type) {
    case 'custom_tool_call': {
      if (typeof item.name !== 'string' || !item.name) throw invalid(`${at}.name is required.`, AS_RETURNED);
      if (typeof item.input !== 'string') throw invalid(`${at}.input must be a string.`, AS_RETURNED);
      const ns = typeof item.namespace === 'string' && item.namespace ? item.namespace : undefined;
      return call(ns ? namespacedName(ns, item.name) : item.name, JSON.stringify({ input: item.input }));
    }
    case 'local_shell_call': {
      const { type: _exec, ...action } = objectAt(item.action, `${at}.action`);
      return call('local_shell', argsOf(action));
    }
    case 'shell_call':
      return call('shell', argsOf(objectAt(item.action, `${at}.action`)));
    default:
      return call('apply_patch', argsOf(objectAt(item.operation, `${at}.operation`)));
  }
}

/** A client-run output item's result as the text of a hub tool message (structured results as their JSON). */
export function clientOutputText(item: Json, at: string): unknown {
  if (item.type === 'shell_call_output') {
    if (!Array.isArray(item.output)) throw invalid(`${at}.output must be a list of command results.`, AS_RETURNED);
    return JSON.stringify(item.output);
  }
  if (item.type === 'apply_patch_call_output') {
    return JSON.stringify({ status: item.status, ...(typeof item.output === 'string' ? { output: item.output } : {}) });
  }
  return item.output; // custom_tool_call_output and local_shell_call_output: a string (or content parts)
}

const JSON_ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f' };

/**
 * A custom tool's input: the "input" argument the function tool asked for; else the one string argument of an
 * object (a model that named it otherwise, or `{"_raw": …}`); else the arguments text as it came.
 */
export function inputFromArguments(args: string): string {
  try {
    const v: unknown = JSON.parse(args);
    if (typeof v === 'string') return v;
    if (isObject(v)) {
      if (typeof v.input === 'string') return v.input;
      const values = Object.values(v);
      if (values.length === 1 && typeof values[0] === 'string') return values[0];
    }
  } catch {
    // not JSON: the text itself
  }
  return args;
}

/**
 * Reads a custom tool's raw input out of its streamed function arguments while they arrive, when they take the usual
 * shape `{"input": "…"`: each push returns the decoded input text it completed. Arguments of another shape stream
 * nothing here; the call's done event carries the whole input then.
 */
export class CustomInputStream {
  private buf = '';
  private state: 'prefix' | 'string' | 'off' = 'prefix';
  /** The input text handed out so far. */
  sent = '';

  push(delta: string): string {
    if (this.state === 'off') return '';
    this.buf += delta;
    if (this.state === 'prefix') {
      const compact = this.buf.replace(/\s+/g, '');
      const head = '{"input":"';
      if (!compact.startsWith(head)) {
        if (!head.startsWith(compact)) this.state = 'off';
        return '';
      }
      this.buf = this.buf.slice(this.buf.indexOf('"', this.buf.indexOf(':')) + 1);
      this.state = 'string';
    }
    let out = '';
    let i = 0;
    while (i < this.buf.length) {
      const c = this.buf[i]!;
      if (c === '"') {
        this.state = 'off'; // the string is complete: the rest of the arguments is not input
        break;
      }
      if (c !== '\\') {
        out += c;
        i++;
        continue;
      }
      const e = this.buf[i + 1];
      if (e === undefined) break; // an escape cut in two: wait for the rest
      if (e === 'u') {
        if (i + 6 > this.buf.length) break;
        out += String.fromCharCode(parseInt(this.buf.slice(i + 2, i + 6), 16));
        i += 6;
        continue;
      }
      out += JSON_ESCAPES[e] ?? e;
      i += 2;
    }
    this.buf = this.buf.slice(i);
    this.sent += out;
    return out;
  }
}

const ITEM_PREFIX: Record<string, string> = {
  custom: 'ctc_',
  local_shell: 'lsh_',
  shell: 'sh_',
  apply_patch: 'apc_',
};

/** The id prefix of the output item a call of this tool becomes. */
export const itemPrefix = (tool: ClientTool | undefined): string => (tool && ITEM_PREFIX[tool.kind]) ?? 'fc_';

const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.map((s) => (typeof s === 'string' ? s : JSON.stringify(s))) : typeof v === 'string' ? [v] : [];
const orNull = (v: unknown): unknown => (absent(v) ? null : v);

/**
 * A hub tool call as the output item the client declared its tool as: function_call (with its namespace), or
 * custom_tool_call, local_shell_call, shell_call, apply_patch_call built from the function's arguments.
 */
export function callItemFromHub(
  tool: ClientTool | undefined,
  ids: { itemId: string; callId: string },
  name: string,
  args: string,
  status: ItemStatus,
): OutputItem {
  const head = { id: ids.itemId, call_id: ids.callId };
  const ns = tool?.namespace ? { namespace: tool.namespace } : {};
  switch (tool?.kind) {
    case 'custom':
      return { type: 'custom_tool_call', ...head, name: tool.name, input: inputFromArguments(args), status, ...ns };
    case 'local_shell': {
      const a = argumentsFromHub(args);
      const action = {
        type: 'exec',
        command: strings(a.command),
        env: isObject(a.env) ? a.env : {},
        timeout_ms: orNull(a.timeout_ms),
        working_directory: orNull(a.working_directory),
        user: orNull(a.user),
      };
      return { type: 'local_shell_call', ...head, status, action };
    }
    case 'shell': {
      const a = argumentsFromHub(args);
      const action = {
        commands: strings(a.commands),
        timeout_ms: orNull(a.timeout_ms),
        max_output_length: orNull(a.max_output_length),
      };
      return { type: 'shell_call', ...head, status, action, environment: null };
    }
    case 'apply_patch': {
      const a = argumentsFromHub(args);
      const op = isObject(a.operation) ? a.operation : a;
      const operation = { type: op.type, path: op.path, ...(typeof op.diff === 'string' ? { diff: op.diff } : {}) };
      return { type: 'apply_patch_call', ...head, status: status === 'incomplete' ? 'in_progress' : status, operation };
    }
    default:
      return { type: 'function_call', ...head, name: tool?.name ?? name, arguments: args, status, ...ns };
  }
}
