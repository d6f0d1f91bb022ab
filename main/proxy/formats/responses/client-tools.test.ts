// Client side, request: client-run tools other than functions (custom, local_shell, shell, apply_patch, namespaces),
// their call and output items, tool_choice, and the refusal of server-run tools.
import { describe, expect, it } from 'vitest';
import { badRequest, toolCall } from '../fixtures.test-helper.ts';
import type { ClientContext } from '../hub/index.ts';
import { responsesFormat } from './index.ts';

const GRAMMAR = 'start: begin_patch hunk+ end_patch\nbegin_patch: "*** Begin Patch" LF\n';
const applyPatch = {
  type: 'custom',
  name: 'apply_patch',
  description: 'Use the `apply_patch` tool to edit files. This is a FREEFORM tool, so do not wrap the patch in JSON.',
  format: { type: 'grammar', syntax: 'lark', definition: GRAMMAR },
};

const toHub = (body: Record<string, unknown>, ctx: ClientContext = {}) =>
  responsesFormat.requestToHub({ model: 'm', input: 'Hi', ...body }, ctx);
const expectInvalid = (body: Record<string, unknown>, ...fragments: string[]) =>
  badRequest(() => toHub(body), ...fragments);

describe('responses client side: client-run tools → hub function tools', () => {
  it('makes a custom tool a function of one string "input", its description and grammar kept, and records it', () => {
    const ctx: ClientContext = {};
    const hub = toHub({ tools: [applyPatch] }, ctx);
    expect(hub.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'apply_patch',
          description:
            `${applyPatch.description}\n\nPut the raw text of the input in the one argument "input" (a string).\n\n` +
            `The input must match this Lark grammar:\n\n${GRAMMAR}`,
          parameters: {
            type: 'object',
            properties: { input: { type: 'string', description: 'The raw input of the tool, as plain text.' } },
            required: ['input'],
            additionalProperties: false,
          },
        },
      },
    ]);
    expect(ctx.clientTools).toEqual({ apply_patch: { kind: 'custom', name: 'apply_patch' } });
  });

  it('takes a custom tool with a text format or none, and a regex grammar', () => {
    const hub = toHub({
      tools: [
        { type: 'custom', name: 'a', format: { type: 'text' } },
        { type: 'custom', name: 'b' },
        { type: 'custom', name: 'c', format: { type: 'grammar', syntax: 'regex', definition: '^\\d+$' } },
      ],
    });
    const descriptions = hub.tools!.map((t) => t.function.description);
    expect(descriptions[0]).toBe('Put the raw text of the input in the one argument "input" (a string).');
    expect(descriptions[1]).toBe(descriptions[0]);
    expect(descriptions[2]).toContain('The input must match this regular expression:\n\n^\\d+$');
  });

  it.each([
    [{ type: 'custom', name: 'a', format: { type: 'grammar', syntax: 'ebnf', definition: 'x' } }, 'tools[0].format'],
    [{ type: 'custom', name: 'a', format: { type: 'json' } }, 'tools[0].format'],
    [{ type: 'custom' }, 'tools[0].name'],
  ])('refuses the custom tool %j naming the field', (tool, field) => {
    expectInvalid({ tools: [tool] }, field);
  });

  it('makes local_shell, shell (local) and apply_patch functions named after their type, and records them', () => {
    const ctx: ClientContext = {};
    const hub = toHub(
      { tools: [{ type: 'local_shell' }, { type: 'shell', environment: { type: 'local' } }, { type: 'apply_patch' }] },
      ctx,
    );
    expect(hub.tools!.map((t) => [t.function.name, Object.keys(t.function.parameters!.properties as object)])).toEqual([
      ['local_shell', ['command', 'working_directory', 'timeout_ms', 'env', 'user']],
      ['shell', ['commands', 'timeout_ms', 'max_output_length']],
      ['apply_patch', ['type', 'path', 'diff']],
    ]);
    expect(ctx.clientTools).toEqual({
      local_shell: { kind: 'local_shell', name: 'local_shell' },
      shell: { kind: 'shell', name: 'shell' },
      apply_patch: { kind: 'apply_patch', name: 'apply_patch' },
    });
  });

  it('flattens a namespace into functions named namespace__name, noting the namespace in each description', () => {
    const ctx: ClientContext = {};
    const hub = toHub(
      {
        tools: [
          {
            type: 'namespace',
            name: 'crm',
            description: 'Customer records',
            tools: [
              { type: 'function', name: 'lookup', description: 'Find a customer', parameters: { type: 'object' } },
              { type: 'custom', name: 'note' },
            ],
          },
        ],
      },
      ctx,
    );
    expect(hub.tools!.map((t) => [t.function.name, t.function.description])).toEqual([
      ['crm__lookup', 'Find a customer\n\nPart of "crm" (Customer records).'],
      [
        'crm__note',
        'Put the raw text of the input in the one argument "input" (a string).\n\nPart of "crm" (Customer records).',
      ],
    ]);
    expect(ctx.clientTools).toEqual({
      crm__lookup: { kind: 'function', name: 'lookup', namespace: 'crm' },
      crm__note: { kind: 'custom', name: 'note', namespace: 'crm' },
    });
  });

  it('leaves clientTools out when every tool is a plain function', () => {
    const ctx: ClientContext = {};
    toHub({ tools: [{ type: 'function', name: 'f', parameters: {} }] }, ctx);
    expect(ctx.clientTools).toBeUndefined();
  });

  it.each(['image_generation', 'mcp', 'tool_search', 'computer', 'file_search', 'code_interpreter'])(
    'refuses the server-run tool %s and says how to route it',
    (type) => {
      const e = expectInvalid({ tools: [{ type }] }, `tools[0].type "${type}"`, "a tool OpenAI's servers run");
      expect(e.action).toContain('"native_formats": ["responses"]');
    },
  );

  it.each(['web_search', 'web_search_preview'])(
    'leaves the server-run search tool %s out (a model answers without it) and notes it as dropped',
    (type) => {
      const ctx: ClientContext = {};
      const hub = toHub(
        {
          tools: [
            { type, external_web_access: false },
            { type: 'function', name: 'f' },
          ],
        },
        ctx,
      );
      expect(hub.tools!.map((t) => t.function.name)).toEqual(['f']);
      expect(ctx.dropped).toEqual([
        `${type}: tools[0]: a search OpenAI's servers run; the chat provider answers without it`,
      ]);
    },
  );

  it('refuses a shell tool that runs in an OpenAI container', () => {
    expectInvalid({ tools: [{ type: 'shell', environment: { type: 'container_auto' } }] }, 'tools[0].type "shell"');
  });

  it('refuses an unknown tool type and two tools of one name', () => {
    expectInvalid({ tools: [{ type: 'teleport' }] }, 'tools[0].type "teleport" is not a tool type');
    expectInvalid({ tools: [{ type: 'function', name: 'apply_patch' }, applyPatch] }, 'two tools named "apply_patch"');
  });
});

describe('responses client side: tool_choice', () => {
  const tools = [applyPatch, { type: 'function', name: 'exec', parameters: {} }, { type: 'local_shell' }];

  it.each([
    [{ type: 'custom', name: 'apply_patch' }, 'apply_patch'],
    [{ type: 'function', name: 'exec' }, 'exec'],
    [{ type: 'local_shell' }, 'local_shell'],
  ])('names the hub function for %j', (choice, name) => {
    expect(toHub({ tools, tool_choice: choice }).tool_choice).toEqual({ type: 'function', function: { name } });
  });

  it('narrows the tools to the allowed ones and keeps the mode', () => {
    const hub = toHub({
      tools,
      tool_choice: { type: 'allowed_tools', mode: 'required', tools: [{ type: 'custom', name: 'apply_patch' }] },
    });
    expect(hub.tool_choice).toBe('required');
    expect(hub.tools!.map((t) => t.function.name)).toEqual(['apply_patch']);
  });

  it.each([
    [{ type: 'web_search_preview' }, "a tool OpenAI's servers run"],
    [{ type: 'mcp', server_label: 'x' }, "a tool OpenAI's servers run"],
    [{ type: 'allowed_tools', mode: 'sometimes', tools: [] }, 'allowed_tools'],
    ['any', 'tool_choice'],
  ])('refuses %j', (choice, fragment) => {
    expectInvalid({ tools, tool_choice: choice }, fragment);
  });
});

describe('responses client side: call and output items of earlier turns', () => {
  const patch = '*** Begin Patch\n*** Update File: a.txt\n@@\n-old\n+new "quoted" \\ back\n*** End Patch\n';

  it('reads custom, local_shell, shell and apply_patch calls and their outputs as hub calls and tool results', () => {
    const hub = responsesFormat.requestToHub(
      {
        model: 'm',
        input: [
          { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'fix it' }] },
          { type: 'custom_tool_call', status: 'completed', call_id: 'c1', name: 'apply_patch', input: patch },
          {
            type: 'local_shell_call',
            call_id: 'c2',
            status: 'completed',
            action: { type: 'exec', command: ['ls', '-a'], timeout_ms: null, working_directory: '/w', env: {} },
          },
          { type: 'shell_call', call_id: 'c3', action: { commands: ['pwd'], timeout_ms: 1000 } },
          { type: 'apply_patch_call', call_id: 'c4', operation: { type: 'delete_file', path: 'b.txt' } },
          { type: 'custom_tool_call_output', call_id: 'c1', output: 'Exit code: 0\nOutput:\nSuccess.' },
          { type: 'local_shell_call_output', id: 'c2', output: '{"output":"a\\n"}' },
          {
            type: 'shell_call_output',
            call_id: 'c3',
            output: [{ stdout: '/w\n', stderr: '', outcome: { type: 'exit', exit_code: 0 } }],
          },
          { type: 'apply_patch_call_output', call_id: 'c4', status: 'failed', output: 'no such file' },
        ],
      },
      {},
    );
    expect(hub.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'fix it' }] },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          toolCall('c1', 'apply_patch', JSON.stringify({ input: patch })),
          toolCall('c2', 'local_shell', '{"command":["ls","-a"],"working_directory":"/w","env":{}}'),
          toolCall('c3', 'shell', '{"commands":["pwd"],"timeout_ms":1000}'),
          toolCall('c4', 'apply_patch', '{"type":"delete_file","path":"b.txt"}'),
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'Exit code: 0\nOutput:\nSuccess.' },
      { role: 'tool', tool_call_id: 'c2', content: '{"output":"a\\n"}' },
      {
        role: 'tool',
        tool_call_id: 'c3',
        content: '[{"stdout":"/w\\n","stderr":"","outcome":{"type":"exit","exit_code":0}}]',
      },
      { role: 'tool', tool_call_id: 'c4', content: '{"status":"failed","output":"no such file"}' },
    ]);
  });

  it('names a namespaced call as its hub function', () => {
    const hub = toHub({
      input: [
        { type: 'function_call', call_id: 'c1', namespace: 'crm', name: 'lookup', arguments: '{}' },
        { type: 'custom_tool_call', call_id: 'c2', namespace: 'crm', name: 'note', input: 'hi' },
      ],
    });
    expect(hub.messages[0]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [toolCall('c1', 'crm__lookup', '{}'), toolCall('c2', 'crm__note', '{"input":"hi"}')],
    });
  });

  it.each([
    [{ type: 'custom_tool_call', name: 'x', input: 'i' }, 'input[0].call_id'],
    [{ type: 'custom_tool_call', call_id: 'c', name: 'x', input: 3 }, 'input[0].input'],
    [{ type: 'local_shell_call', call_id: 'c' }, 'input[0].action'],
    [{ type: 'custom_tool_call_output', output: 'x' }, 'input[0].call_id'],
    [{ type: 'shell_call_output', call_id: 'c', output: 'x' }, 'input[0].output'],
    [{ type: 'web_search_call', id: 'ws_1' }, "only OpenAI's servers"],
    [{ type: 'compaction', encrypted_content: 'gAAA' }, "only OpenAI's servers"],
    [{ type: 'mcp_call', id: 'x' }, "only OpenAI's servers"],
    [{ type: 'hologram' }, 'not an input item Switchboard knows'],
  ])('refuses the item %j naming the field', (item, fragment) => {
    expectInvalid({ input: [item] }, fragment);
  });
});

describe('responses client side: reasoning items of earlier turns', () => {
  const reasoning = (fields: Record<string, unknown>) => ({ type: 'reasoning', id: 'rs_1', summary: [], ...fields });

  it('carries reasoning text as the reasoning_content of the assistant turn that follows it', () => {
    const hub = toHub({
      input: [
        { role: 'user', content: 'go' },
        reasoning({ content: [{ type: 'reasoning_text', text: 'Look first.' }], encrypted_content: null }),
        { type: 'function_call', call_id: 'c1', name: 'exec', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c1', output: 'ok' },
        reasoning({
          summary: [
            { type: 'summary_text', text: '**Plan**' },
            { type: 'summary_text', text: 'Done.' },
          ],
        }),
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'All set.' }] },
      ],
    });
    expect(hub.messages).toEqual([
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [toolCall('c1', 'exec', '{}')],
        reasoning_content: 'Look first.',
      },
      { role: 'tool', tool_call_id: 'c1', content: 'ok' },
      { role: 'assistant', content: 'All set.', reasoning_content: '**Plan**\n\nDone.' },
    ]);
  });

  it('drops reasoning that is only encrypted, and reasoning no assistant turn follows', () => {
    const hub = toHub({
      input: [
        { role: 'user', content: 'go' },
        reasoning({ encrypted_content: 'gAAAAB...' }),
        { role: 'assistant', content: 'Hi.' },
        reasoning({ content: [{ type: 'reasoning_text', text: 'unused' }] }),
        { role: 'user', content: 'bye' },
      ],
    });
    expect(hub.messages).toEqual([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: 'Hi.' },
      { role: 'user', content: 'bye' },
    ]);
  });
});
