// Client side, reply: a hub tool call goes back as the kind of item the client declared (custom_tool_call,
// local_shell_call, shell_call, apply_patch_call, a namespaced function_call), whole and streamed.
import { createParser } from 'eventsource-parser';
import { describe, expect, it } from 'vitest';
import { encodeStream, responseToChunks } from '../conformance.case.ts';
import { chunkMaker, hubReply, toolCall } from '../fixtures.test-helper.ts';
import type { ClientContext, HubChunk } from '../hub/index.ts';
import { CustomInputStream, inputFromArguments } from './client-calls.ts';
import { base, usage } from './fixtures.test-helper.ts';
import { responsesFormat } from './index.ts';

const clientTools: NonNullable<ClientContext['clientTools']> = {
  apply_patch: { kind: 'custom', name: 'apply_patch' },
  local_shell: { kind: 'local_shell', name: 'local_shell' },
  shell: { kind: 'shell', name: 'shell' },
  edit: { kind: 'apply_patch', name: 'apply_patch' },
  crm__lookup: { kind: 'function', name: 'lookup', namespace: 'crm' },
};
const ctx = { model: 'gpt-5', clientTools };
const PATCH = '*** Begin Patch\n*** Add File: a.txt\n+say "hi" \\ tab\t é 😀\n*** End Patch\n';
const PATCH_ARGS = JSON.stringify({ input: PATCH });

/** Output items without their generated ids. */
const withoutIds = (items: unknown[]) => items.map((i) => ({ ...(i as object), id: undefined }));

describe('responses client side: calls restored to the kind the client declared', () => {
  it('writes each call of a non-stream reply as its item kind', () => {
    const res = hubReply(
      base,
      {
        content: null,
        tool_calls: [
          toolCall('c1', 'apply_patch', PATCH_ARGS),
          toolCall('c2', 'local_shell', '{"command":["ls","-la"],"working_directory":"/w","timeout_ms":5000}'),
          toolCall('c3', 'shell', '{"commands":["pwd"]}'),
          toolCall('c4', 'edit', '{"type":"update_file","path":"a.txt","diff":"@@\\n-a\\n+b\\n"}'),
          toolCall('c5', 'crm__lookup', '{"id":7}'),
          toolCall('c6', 'plain', '{}'),
        ],
      },
      'tool_calls',
      usage,
    );
    const out = responsesFormat.responseFromHub(res, ctx) as { output: { id: string }[] };
    expect(out.output.map((i) => i.id.split('_')[0])).toEqual(['ctc', 'lsh', 'sh', 'apc', 'fc', 'fc']);
    expect(withoutIds(out.output)).toEqual(
      withoutIds([
        { type: 'custom_tool_call', call_id: 'c1', name: 'apply_patch', input: PATCH, status: 'completed' },
        {
          type: 'local_shell_call',
          call_id: 'c2',
          status: 'completed',
          action: {
            type: 'exec',
            command: ['ls', '-la'],
            env: {},
            timeout_ms: 5000,
            working_directory: '/w',
            user: null,
          },
        },
        {
          type: 'shell_call',
          call_id: 'c3',
          status: 'completed',
          action: { commands: ['pwd'], timeout_ms: null, max_output_length: null },
          environment: null,
        },
        {
          type: 'apply_patch_call',
          call_id: 'c4',
          status: 'completed',
          operation: { type: 'update_file', path: 'a.txt', diff: '@@\n-a\n+b\n' },
        },
        {
          type: 'function_call',
          call_id: 'c5',
          name: 'lookup',
          arguments: '{"id":7}',
          status: 'completed',
          namespace: 'crm',
        },
        { type: 'function_call', call_id: 'c6', name: 'plain', arguments: '{}', status: 'completed' },
      ]),
    );
  });

  it.each([
    [PATCH_ARGS, PATCH],
    ['{"patch":"*** Begin Patch"}', '*** Begin Patch'],
    ['{"_raw":"not json"}', 'not json'],
    ['"a JSON string"', 'a JSON string'],
    ['*** Begin Patch (no JSON)', '*** Begin Patch (no JSON)'],
    ['{"input":1,"x":2}', '{"input":1,"x":2}'],
  ])('reads the custom input out of the arguments %j', (args, input) => {
    expect(inputFromArguments(args)).toBe(input);
  });

  it('decodes the streamed input whatever the cuts, escapes included', () => {
    const args = ` { "input" : ${JSON.stringify(PATCH)} , "extra": "no"}`;
    for (let size = 1; size <= 7; size++) {
      const s = new CustomInputStream();
      let out = '';
      for (let i = 0; i < args.length; i += size) out += s.push(args.slice(i, i + size));
      expect(out).toBe(PATCH);
      expect(s.sent).toBe(PATCH);
    }
  });

  it('streams nothing for arguments of another shape', () => {
    const s = new CustomInputStream();
    expect(s.push('{"patch":"*** Begin')).toBe('');
    expect(s.push(' Patch"}')).toBe('');
  });
});

/** SSE text as the events' payloads. */
function events(text: string): any[] {
  const out: any[] = [];
  const parser = createParser({ onEvent: (e) => out.push(JSON.parse(e.data)) });
  parser.feed(text);
  return out;
}

/** A tool call streamed as providers do: the name first, the arguments in pieces of `size`. */
function streamedCall(name: string, args: string, size: number): HubChunk[] {
  const chunk = chunkMaker(base);
  const out = [chunk({ role: 'assistant', content: '' })];
  out.push(chunk({ tool_calls: [{ index: 0, id: 'call_9', type: 'function', function: { name, arguments: '' } }] }));
  for (let i = 0; i < args.length; i += size) {
    out.push(chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(i, i + size) } }] }));
  }
  out.push(chunk({}, 'tool_calls', usage));
  return out;
}

describe('responses client side: streamed calls of client-run tools', () => {
  it('streams a custom call as custom_tool_call_input deltas and done, as OpenAI does', () => {
    const list = events(encodeStream(responsesFormat, streamedCall('apply_patch', PATCH_ARGS, 9), ctx));
    const types = list.map((e) => e.type);
    expect(types.filter((t) => t.includes('function_call'))).toEqual([]);
    const added = list.find((e) => e.type === 'response.output_item.added');
    expect(added.item).toMatchObject({ type: 'custom_tool_call', call_id: 'call_9', name: 'apply_patch', input: '' });
    const itemId = added.item.id as string;
    expect(itemId).toMatch(/^ctc_/);
    const deltas = list.filter((e) => e.type === 'response.custom_tool_call_input.delta');
    expect(deltas.length).toBeGreaterThan(5);
    expect(deltas.every((d) => d.item_id === itemId && d.output_index === 0)).toBe(true);
    expect(deltas.map((d) => d.delta).join('')).toBe(PATCH);
    const done = list.find((e) => e.type === 'response.custom_tool_call_input.done');
    expect(done).toMatchObject({ item_id: itemId, output_index: 0, input: PATCH });
    const itemDone = list.find((e) => e.type === 'response.output_item.done');
    expect(itemDone.item).toEqual({
      type: 'custom_tool_call',
      id: itemId,
      call_id: 'call_9',
      name: 'apply_patch',
      input: PATCH,
      status: 'completed',
    });
    expect(types.indexOf('response.custom_tool_call_input.done')).toBeLessThan(
      types.indexOf('response.output_item.done'),
    );
    expect(list.at(-1).response.output).toEqual([itemDone.item]);
  });

  it('sends the whole input in one delta before done when the arguments take another shape', () => {
    const list = events(encodeStream(responsesFormat, streamedCall('apply_patch', '{"patch":"P1\\nP2"}', 4), ctx));
    const deltas = list.filter((e) => e.type === 'response.custom_tool_call_input.delta').map((e) => e.delta);
    expect(deltas).toEqual(['P1\nP2']);
    expect(list.find((e) => e.type === 'response.custom_tool_call_input.done').input).toBe('P1\nP2');
  });

  it('announces a local_shell call and closes it with its action (no argument deltas)', () => {
    const args = '{"command":["bash","-lc","ls"],"timeout_ms":1000}';
    const list = events(encodeStream(responsesFormat, streamedCall('local_shell', args, 5), ctx));
    expect(list.filter((e) => e.type.includes('arguments') || e.type.includes('input'))).toEqual([]);
    const added = list.find((e) => e.type === 'response.output_item.added').item;
    expect(added).toMatchObject({ type: 'local_shell_call', call_id: 'call_9', status: 'in_progress' });
    const done = list.find((e) => e.type === 'response.output_item.done').item;
    expect(done).toMatchObject({
      type: 'local_shell_call',
      id: added.id,
      call_id: 'call_9',
      status: 'completed',
      action: { type: 'exec', command: ['bash', '-lc', 'ls'], env: {}, timeout_ms: 1000 },
    });
  });

  it('streams a namespaced function under its own name and namespace', () => {
    const list = events(encodeStream(responsesFormat, streamedCall('crm__lookup', '{"id":7}', 3), ctx));
    expect(list.find((e) => e.type === 'response.output_item.added').item).toMatchObject({
      type: 'function_call',
      name: 'lookup',
      namespace: 'crm',
    });
    expect(list.find((e) => e.type === 'response.function_call_arguments.done')).toMatchObject({
      name: 'lookup',
      arguments: '{"id":7}',
    });
  });

  it('keeps plain function calls as they were without clientTools', () => {
    const res = hubReply(
      base,
      { content: null, tool_calls: [toolCall('c1', 'apply_patch', PATCH_ARGS)] },
      'tool_calls',
    );
    const list = events(encodeStream(responsesFormat, responseToChunks(res), { model: 'm' }));
    expect(list.find((e) => e.type === 'response.output_item.done').item).toMatchObject({
      type: 'function_call',
      name: 'apply_patch',
      arguments: PATCH_ARGS,
    });
  });
});
