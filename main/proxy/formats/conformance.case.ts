// The conformance suite every wire format runs (as Hono's routers share common.case.test.ts): a format module
// must carry each hub case through its own wire form and back without losing what the format can express.
// Use it from `<format>.case.test.ts`: `runConformance(anthropicFormat, { images: true, ... })`.
import { describe, expect, it } from 'vitest';
import {
  type ClientFormat,
  type ClientContext,
  foldChunks,
  type HubChunk,
  type HubRequest,
  type HubResponse,
  type ProviderFormat,
  UpstreamStreamError,
} from './hub/index.ts';

/** A hub response as the chunks a stream of it would carry (the suite's streams, and tests). */
export function responseToChunks(res: HubResponse): HubChunk[] {
  const base = { id: res.id, object: 'chat.completion.chunk' as const, created: res.created, model: res.model };
  const choice = res.choices[0];
  const out: HubChunk[] = [
    { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] },
  ];
  if (choice?.message.reasoning_content) {
    out.push({
      ...base,
      choices: [{ index: 0, delta: { reasoning_content: choice.message.reasoning_content }, finish_reason: null }],
    });
  }
  if (choice?.message.content) {
    const text = typeof choice.message.content === 'string' ? choice.message.content : '';
    if (text) out.push({ ...base, choices: [{ index: 0, delta: { content: text }, finish_reason: null }] });
  }
  choice?.message.tool_calls?.forEach((tc, index) => {
    out.push({
      ...base,
      choices: [
        {
          index: 0,
          delta: {
            tool_calls: [
              {
                index,
                id: tc.id,
                type: 'function',
                function: { name: tc.function.name, arguments: tc.function.arguments },
              },
            ],
          },
          finish_reason: null,
        },
      ],
    });
  });
  out.push({
    ...base,
    choices: [{ index: 0, delta: {}, finish_reason: choice?.finish_reason ?? 'stop' }],
    ...(res.usage ? { usage: res.usage } : {}),
  });
  return out;
}

export type FormatModule = ClientFormat & ProviderFormat;

export type Capabilities = {
  /** Image inputs (data: URLs). */
  images: boolean;
  /** tool_choice "none" / "required" / a named function can be expressed. */
  toolChoice: boolean;
  /** The format keeps tool call ids (Gemini and Ollama do not: ids are minted). */
  toolCallIds: boolean;
  /** Usage (token counts) survives. */
  usage: boolean;
  /** `length` as a finish reason survives. */
  lengthFinish: boolean;
  /** The client context this format needs (e.g. Gemini's model in the path). */
  context?: (req: HubRequest) => ClientContext;
};

const tools: HubRequest['tools'] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Weather for a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
];

export const REQUEST_CASES: { name: string; req: HubRequest; needs?: keyof Capabilities }[] = [
  { name: 'text', req: { model: 'm', messages: [{ role: 'user', content: 'Hello' }] } },
  {
    name: 'system prompt',
    req: {
      model: 'm',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hello' },
      ],
    },
  },
  {
    name: 'multi-turn',
    req: {
      model: 'm',
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello! How can I help?' },
        { role: 'user', content: 'Tell me a joke' },
      ],
    },
  },
  {
    name: 'image input',
    needs: 'images',
    req: {
      model: 'm',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          ],
        },
      ],
    },
  },
  {
    name: 'tool definitions (auto)',
    req: { model: 'm', messages: [{ role: 'user', content: 'Weather in Paris?' }], tools, tool_choice: 'auto' },
  },
  {
    name: 'tool_choice required',
    needs: 'toolChoice',
    req: { model: 'm', messages: [{ role: 'user', content: 'Weather?' }], tools, tool_choice: 'required' },
  },
  {
    name: 'tool_choice named',
    needs: 'toolChoice',
    req: {
      model: 'm',
      messages: [{ role: 'user', content: 'Weather?' }],
      tools,
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
    },
  },
  {
    name: 'tool call and tool result',
    req: {
      model: 'm',
      tools,
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '{"temp_c":21}' },
      ],
    },
  },
  {
    name: 'sampling parameters',
    req: {
      model: 'm',
      messages: [{ role: 'user', content: 'Hi' }],
      temperature: 0.5,
      top_p: 0.9,
      max_tokens: 64,
      stop: ['END'],
    },
  },
  { name: 'stream flag', req: { model: 'm', messages: [{ role: 'user', content: 'Hi' }], stream: true } },
];

const base = { id: 'chatcmpl-1', object: 'chat.completion' as const, created: 1700000000, model: 'm' };
export const RESPONSE_CASES: { name: string; res: HubResponse; needs?: keyof Capabilities }[] = [
  {
    name: 'text, stop',
    res: {
      ...base,
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello there' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
    },
  },
  {
    name: 'cut at max tokens',
    needs: 'lengthFinish',
    res: {
      ...base,
      choices: [{ index: 0, message: { role: 'assistant', content: 'Once upon' }, finish_reason: 'length' }],
      usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
    },
  },
  {
    name: 'tool calls',
    res: {
      ...base,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
              { id: 'call_b', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
            ],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 20, completion_tokens: 12, total_tokens: 32 },
    },
  },
  {
    name: 'text then a tool call',
    res: {
      ...base,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Let me check.',
            tool_calls: [
              {
                id: 'call_c',
                type: 'function',
                function: { name: 'get_weather', arguments: '{"city":"Oslo","units":{"temp":"C"}}' },
              },
            ],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 20, completion_tokens: 12, total_tokens: 32 },
    },
  },
];

/** What must survive a round trip, with the format's limits applied. */
function comparableRequest(r: HubRequest): unknown {
  return {
    model: r.model,
    stream: r.stream === true,
    messages: r.messages.map((m) => {
      const content =
        typeof m.content === 'string'
          ? m.content
          : m.content == null
            ? ''
            : m.content.map((p) => (p.type === 'text' ? p.text : `[image ${p.image_url.url}]`)).join('');
      const calls =
        'tool_calls' in m && m.tool_calls
          ? m.tool_calls.map((c) => ({ name: c.function.name, args: JSON.parse(c.function.arguments) as unknown }))
          : [];
      return { role: m.role === 'developer' ? 'system' : m.role, content, calls, toolResult: m.role === 'tool' };
    }),
    tools: (r.tools ?? []).map((t) => ({
      name: t.function.name,
      description: t.function.description ?? '',
      parameters: t.function.parameters ?? {},
    })),
  };
}

function comparableResponse(r: HubResponse, caps: Capabilities): unknown {
  const c = r.choices[0]!;
  const text = typeof c.message.content === 'string' ? c.message.content : '';
  return {
    text,
    calls: (c.message.tool_calls ?? []).map((t) => ({
      ...(caps.toolCallIds ? { id: t.id } : {}),
      name: t.function.name,
      args: JSON.parse(t.function.arguments || '{}') as unknown,
    })),
    finish: c.finish_reason,
    usage: caps.usage && r.usage ? { prompt: r.usage.prompt_tokens, completion: r.usage.completion_tokens } : null,
  };
}

/** Splits text into pieces of varied sizes so decoders meet events cut anywhere. */
function splitAwkwardly(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  let size = 1;
  while (i < text.length) {
    out.push(text.slice(i, i + size));
    i += size;
    size = (size * 7) % 23 || 1;
  }
  return out;
}

export function encodeStream(format: ClientFormat, chunks: HubChunk[], ctx: ClientContext & { model: string }): string {
  const enc = format.streamEncoder(ctx);
  let text = '';
  for (const c of chunks) text += enc.chunk(c);
  return text + enc.end();
}

export function decodeStream(format: ProviderFormat, text: string, model: string): HubChunk[] {
  const dec = format.streamDecoder(model);
  const chunks: HubChunk[] = [];
  for (const piece of splitAwkwardly(text)) chunks.push(...dec.push(piece));
  chunks.push(...dec.end());
  return chunks;
}

export function runConformance(format: FormatModule, caps: Capabilities): void {
  const ctxFor = (req: HubRequest): ClientContext => caps.context?.(req) ?? {};

  describe(`${format.name}: requests survive hub → ${format.name} → hub`, () => {
    for (const c of REQUEST_CASES) {
      if (c.needs && !caps[c.needs]) continue;
      it(c.name, () => {
        const wire = format.requestFromHub(c.req);
        const back = format.requestToHub(JSON.parse(JSON.stringify(wire)), ctxFor(c.req));
        expect(comparableRequest(back)).toEqual(comparableRequest(c.req));
        if (c.req.temperature !== undefined) expect(back.temperature).toBe(c.req.temperature);
        if (c.req.max_tokens !== undefined)
          expect(back.max_tokens ?? back.max_completion_tokens).toBe(c.req.max_tokens);
        if (c.req.tool_choice !== undefined && caps.toolChoice) expect(back.tool_choice).toEqual(c.req.tool_choice);
      });
    }
    it('ignores fields it does not know instead of failing', () => {
      const wire = format.requestFromHub(REQUEST_CASES[0]!.req) as Record<string, unknown>;
      const back = format.requestToHub({ ...wire, some_future_field: { x: 1 } }, ctxFor(REQUEST_CASES[0]!.req));
      expect(comparableRequest(back)).toEqual(comparableRequest(REQUEST_CASES[0]!.req));
    });
    it('refuses a request that is not an object with a clear error', () => {
      expect(() => format.requestToHub('nonsense', ctxFor(REQUEST_CASES[0]!.req))).toThrow();
    });
  });

  describe(`${format.name}: responses survive hub → ${format.name} → hub`, () => {
    for (const c of RESPONSE_CASES) {
      if (c.needs && !caps[c.needs]) continue;
      it(c.name, () => {
        const wire = format.responseFromHub(c.res, { ...ctxFor({ model: 'm', messages: [] }), model: 'm' });
        const back = format.responseToHub(JSON.parse(JSON.stringify(wire)), 'm');
        expect(comparableResponse(back, caps)).toEqual(comparableResponse(c.res, caps));
      });
    }
  });

  describe(`${format.name}: streams survive hub chunks → ${format.name} stream → hub chunks`, () => {
    for (const c of RESPONSE_CASES) {
      if (c.needs && !caps[c.needs]) continue;
      it(`${c.name} (tool arguments never lost)`, () => {
        const chunks = responseToChunks(c.res);
        // Split tool arguments into several deltas, as providers stream them.
        const split: HubChunk[] = [];
        for (const ch of chunks) {
          const tc = ch.choices[0]?.delta.tool_calls?.[0];
          if (tc?.function?.arguments && tc.function.arguments.length > 4) {
            const args = tc.function.arguments;
            const head = {
              ...ch,
              choices: [
                {
                  ...ch.choices[0]!,
                  delta: { tool_calls: [{ ...tc, function: { name: tc.function.name, arguments: args.slice(0, 3) } }] },
                },
              ],
            };
            const rest = {
              ...ch,
              choices: [
                {
                  ...ch.choices[0]!,
                  delta: { tool_calls: [{ index: tc.index, function: { arguments: args.slice(3) } }] },
                },
              ],
            };
            split.push(head, rest);
          } else split.push(ch);
        }
        const text = encodeStream(format, split, { ...ctxFor({ model: 'm', messages: [], stream: true }), model: 'm' });
        const back = foldChunks(decodeStream(format, text, 'm'), 'm');
        expect(comparableResponse(back, caps)).toEqual(comparableResponse(c.res, caps));
      });
    }
  });

  describe(`${format.name}: errors`, () => {
    const e = {
      status: 503,
      code: 'upstream_error',
      type: 'upstream_error',
      message: 'Provider "x" failed mid-stream: boom.',
    };
    it('an HTTP error body carries the message the provider side reads back', () => {
      expect(format.errorMessage(format.errorBody(e))).toBe(e.message);
    });
    it('a stream whose bytes stop before its end (a clean close, no terminal event) is raised, never finished', () => {
      const ctx = { ...ctxFor({ model: 'm', messages: [], stream: true }), model: 'm' };
      for (const c of RESPONSE_CASES) {
        if (c.needs && !caps[c.needs]) continue;
        // Everything but the finish chunk, then no end(): outside and (for calls) inside a tool call.
        const chunks = responseToChunks(c.res).filter((ch) => !ch.choices[0]?.finish_reason);
        const enc = format.streamEncoder(ctx);
        let text = '';
        for (const ch of chunks) text += enc.chunk(ch);
        const dec = format.streamDecoder('m');
        const got: HubChunk[] = [];
        expect(() => {
          for (const piece of splitAwkwardly(text)) got.push(...dec.push(piece));
          got.push(...dec.end());
        }, c.name).toThrow(UpstreamStreamError);
        expect(
          got.some((ch) => ch.choices.some((x) => x.finish_reason !== null)),
          c.name,
        ).toBe(false);
      }
    });
    it('a mid-stream error event ends the stream and the decoder raises it', () => {
      const enc = format.streamEncoder({ ...ctxFor({ model: 'm', messages: [], stream: true }), model: 'm' });
      const first = responseToChunks(RESPONSE_CASES[0]!.res);
      let text = enc.chunk(first[0]!) + enc.chunk(first[1]!);
      text += enc.error(e);
      const dec = format.streamDecoder('m');
      expect(() => {
        for (const piece of splitAwkwardly(text)) dec.push(piece);
        dec.end();
      }).toThrow(UpstreamStreamError);
    });
  });
}
