// Client side, request: the tools a Responses client declares, as hub function tools. Client-run tools of other
// kinds (custom/freeform, local_shell, shell, apply_patch, and the functions and custom tools inside a namespace) become
// functions a chat provider can call, and each is recorded in `clientTools` (ClientContext) so the reply restores its
// calls to the kind the client declared (`client-calls.ts`). Server-run tools are refused (only a provider that serves
// the Responses API natively runs them: the request then passes through to one), but for web search, which a model
// can do without: it is left out and reported as dropped. See DECISIONS.md.
import { absent, invalid, isObject, noteDropped } from '../hub/index.ts';
import type { ClientContext, HubTool, HubToolChoice, Json } from '../hub/index.ts';

export type ClientTools = NonNullable<ClientContext['clientTools']>;

/**
 * Server-run tools a model may use but does not need: toward a chat provider they are left out (and reported as
 * dropped) rather than refused, since the model can answer without searching. Codex sends web_search by default.
 */
const OPTIONAL_SERVER_TOOLS = new Set([
  'web_search',
  'web_search_preview',
  'web_search_preview_2025_03_11',
  'web_search_2025_08_26',
]);

/** Tools run by OpenAI's servers: a chat provider cannot run them. */
const SERVER_TOOLS = new Set([
  'web_search',
  'web_search_preview',
  'web_search_preview_2025_03_11',
  'web_search_2025_08_26',
  'file_search',
  'computer',
  'computer_use',
  'computer_use_preview',
  'code_interpreter',
  'image_generation',
  'mcp',
  'tool_search',
  'programmatic_tool_calling',
]);

const CUSTOM_PARAMETERS = {
  type: 'object',
  properties: { input: { type: 'string', description: 'The raw input of the tool, as plain text.' } },
  required: ['input'],
  additionalProperties: false,
};

const customFunction = (name: string): HubTool['function'] => ({ name, parameters: CUSTOM_PARAMETERS });

/** The function each built-in client-run tool becomes (named after its type). */
const BUILT_IN: Record<'local_shell' | 'shell' | 'apply_patch', HubTool['function']> = {
  local_shell: {
    name: 'local_shell',
    description: "Runs a command on the user's machine and returns its output.",
    parameters: {
      type: 'object',
      properties: {
        command: {
          type: 'array',
          items: { type: 'string' },
          description: 'The program and its arguments, e.g. ["bash", "-lc", "ls -la"].',
        },
        working_directory: { type: 'string', description: 'The directory to run it in.' },
        timeout_ms: { type: 'integer', description: 'How long it may run, in milliseconds.' },
        env: { type: 'object', additionalProperties: { type: 'string' }, description: 'Environment variables.' },
        user: { type: 'string', description: 'The user to run it as.' },
      },
      required: ['command'],
    },
  },
  shell: {
    name: 'shell',
    description: "Runs shell commands on the user's machine and returns their output.",
    parameters: {
      type: 'object',
      properties: {
        commands: { type: 'array', items: { type: 'string' }, description: 'The shell commands, run in order.' },
        timeout_ms: { type: 'integer', description: 'How long they may run, in milliseconds.' },
        max_output_length: { type: 'integer', description: 'The most output characters to return.' },
      },
      required: ['commands'],
    },
  },
  apply_patch: {
    name: 'apply_patch',
    description: 'Creates, updates or deletes a file on the user\'s machine. For updates, "diff" is a V4A diff.',
    parameters: {
      type: 'object',
      properties: {
        type: { type: 'string', enum: ['create_file', 'update_file', 'delete_file'] },
        path: { type: 'string', description: 'The path of the file.' },
        diff: { type: 'string', description: 'The diff to apply (create_file and update_file).' },
      },
      required: ['type', 'path'],
    },
  },
};

/** The hub function name of a tool inside a namespace (chat providers have no namespaces). */
export const namespacedName = (namespace: string, name: string): string => `${namespace}__${name}`;

/** A custom tool's description for a chat model: its own, then the one argument and the format its text follows. */
function customDescription(tool: Json, at: string): string {
  const own = typeof tool.description === 'string' ? tool.description : '';
  const lines = [own, 'Put the raw text of the input in the one argument "input" (a string).'];
  const f = tool.format;
  if (isObject(f) && f.type === 'grammar') {
    if (typeof f.definition !== 'string' || (f.syntax !== 'lark' && f.syntax !== 'regex')) {
      throw invalid(
        `${at}.format must have "syntax" "lark" or "regex" and the grammar as "definition".`,
        'Send {"type":"grammar","syntax":"lark","definition":"..."}, or {"type":"text"}.',
      );
    }
    lines.push(`The input must match this ${f.syntax === 'lark' ? 'Lark grammar' : 'regular expression'}:`);
    lines.push(f.definition);
  } else if (!absent(f) && !(isObject(f) && f.type === 'text')) {
    throw invalid(`${at}.format must be {"type":"text"} or a grammar.`, 'Send {"type":"text"}, or leave it out.');
  }
  return lines.filter(Boolean).join('\n\n');
}

function requireName(tool: Json, at: string): string {
  if (typeof tool.name !== 'string' || !tool.name) throw invalid(`${at}.name is required.`, 'Name the tool.');
  return tool.name;
}

function functionTool(tool: Json, name: string, description: unknown): HubTool {
  const fn: HubTool['function'] = { name };
  if (typeof description === 'string' && description) fn.description = description;
  if (isObject(tool.parameters)) fn.parameters = tool.parameters;
  if (typeof tool.strict === 'boolean') fn.strict = tool.strict;
  return { type: 'function', function: fn };
}

function serverTool(type: string, at: string): Error {
  // The message is what a client shows (and what passthrough's "would need it translated" repeats): the Codex setting
  // that leaves web_search out goes there.
  const codex = type.startsWith('web_search')
    ? ' (Codex sends it unless ~/.codex/config.toml says web_search = "disabled")'
    : '';
  return invalid(
    `${at}.type "${type}" is a tool OpenAI's servers run${codex}; the chat provider this model is routed to cannot ` +
      'run it.',
    'Remove the tool, or route the model to a provider that serves the Responses API natively ' +
      '(OpenAI, or a provider with "native_formats": ["responses"]).',
  );
}

/** One declared tool (or a namespace's tools) as hub tools, recording the ones that are not plain functions. */
function toolToHub(tool: unknown, at: string, kinds: ClientTools, ctx?: ClientContext, namespace?: string): HubTool[] {
  if (!isObject(tool)) throw invalid(`${at} must be an object.`, 'Send {"type":"function","name":"...",...}.');
  const type = String(tool.type);
  switch (type) {
    case 'function':
    case 'custom': {
      const name = requireName(tool, at);
      const hubName = namespace ? namespacedName(namespace, name) : name;
      if (type === 'custom' || namespace) kinds[hubName] = { kind: type, name, ...(namespace ? { namespace } : {}) };
      if (type === 'function') return [functionTool(tool, hubName, tool.description)];
      return [{ type: 'function', function: { ...customFunction(hubName), description: customDescription(tool, at) } }];
    }
    case 'namespace': {
      const ns = requireName(tool, at);
      if (namespace || !Array.isArray(tool.tools)) {
        throw invalid(`${at}.tools must be a list of function and custom tools.`, 'Put the tools in "tools".');
      }
      const about = typeof tool.description === 'string' && tool.description ? ` (${tool.description})` : '';
      return tool.tools.flatMap((inner, i) =>
        toolToHub(inner, `${at}.tools[${i}]`, kinds, ctx, ns).map((t) => {
          const note = `Part of "${ns}"${about}.`;
          const description = t.function.description ? `${t.function.description}\n\n${note}` : note;
          return { ...t, function: { ...t.function, description } };
        }),
      );
    }
    case 'local_shell':
    case 'shell':
    case 'apply_patch': {
      const env = tool.environment;
      if (type === 'shell' && !absent(env) && !(isObject(env) && env.type === 'local')) throw serverTool(type, at);
      kinds[type] = { kind: type, name: type };
      return [{ type: 'function', function: BUILT_IN[type] }];
    }
    default:
      if (OPTIONAL_SERVER_TOOLS.has(type)) {
        noteDropped(ctx, type, `${at}: a search OpenAI's servers run; the chat provider answers without it`);
        return [];
      }
      if (SERVER_TOOLS.has(type)) throw serverTool(type, at);
      throw invalid(
        `${at}.type "${type}" is not a tool type Switchboard knows.`,
        'Use function, custom, namespace, local_shell, shell or apply_patch tools.',
      );
  }
}

/**
 * The declared tools as hub tools; `kinds` receives every tool that is not a plain function, and `ctx.dropped` the
 * optional server-run tools left out.
 */
export function toolsToHub(tools: unknown, kinds: ClientTools, ctx?: ClientContext): HubTool[] | undefined {
  if (absent(tools)) return undefined;
  if (!Array.isArray(tools)) {
    throw invalid('"tools" must be an array.', 'Send tools as [{"type":"function","name":"...","parameters":{...}}].');
  }
  const out = tools.flatMap((tool, i) => toolToHub(tool, `tools[${i}]`, kinds, ctx));
  const seen = new Set<string>();
  for (const t of out) {
    if (seen.has(t.function.name)) {
      throw invalid(`"tools" has two tools named "${t.function.name}".`, 'Give every tool its own name.');
    }
    seen.add(t.function.name);
  }
  return out;
}

const CHOICES = 'Use "auto", "none", "required", {"type":"function","name":"..."} or {"type":"custom","name":"..."}.';

/** The hub function a tool_choice entry names: a function, a custom tool, or a built-in client-run tool. */
function chosenName(choice: Json, at: string): string {
  const t = String(choice.type);
  if ((t === 'function' || t === 'custom') && typeof choice.name === 'string' && choice.name) return choice.name;
  if (t === 'local_shell' || t === 'shell' || t === 'apply_patch') return t;
  if (SERVER_TOOLS.has(t)) throw serverTool(t, at);
  throw invalid(`${at} ${JSON.stringify(choice)} is not supported.`, CHOICES);
}

/**
 * tool_choice as the hub's; `allowed_tools` narrows the hub tools to the ones it lists (a chat provider has no such
 * field) and keeps its mode. Returns the choice and the tools to send.
 */
export function toolChoiceToHub(
  choice: unknown,
  tools: HubTool[] | undefined,
): { choice?: HubToolChoice; tools: HubTool[] | undefined } {
  if (absent(choice)) return { tools };
  if (choice === 'auto' || choice === 'none' || choice === 'required') return { choice, tools };
  if (!isObject(choice)) throw invalid(`"tool_choice" ${JSON.stringify(choice)} is not supported.`, CHOICES);
  if (choice.type === 'allowed_tools') {
    if (!Array.isArray(choice.tools) || (choice.mode !== 'auto' && choice.mode !== 'required')) {
      throw invalid('"tool_choice" allowed_tools needs "mode" ("auto" or "required") and "tools".', CHOICES);
    }
    const names = new Set(
      choice.tools.map((t, i) => {
        if (!isObject(t)) throw invalid(`"tool_choice.tools[${i}]" must be an object.`, CHOICES);
        return chosenName(t, `"tool_choice.tools[${i}]"`);
      }),
    );
    return { choice: choice.mode, tools: tools?.filter((t) => names.has(t.function.name)) };
  }
  return { choice: { type: 'function', function: { name: chosenName(choice, '"tool_choice"') } }, tools };
}
