// Test support: one real HTTP server playing a provider of each kind (openai, anthropic, gemini, ollama) whose every
// reply stops before its end and then closes cleanly: a stream without its terminal event (no finish_reason or
// [DONE], no message_stop, no finishReason, no `"done": true`), a whole reply whose JSON stops midway, each with
// a proper end of the HTTP body (the last chunk of a chunked reply), as a proxy in front of a provider that died
// sends it. A model whose name contains "tool" is cut inside a tool call's arguments, any other inside its text.
//
// Base URLs (a provider config's base_url): `${root}/openai/v1`, `${root}/anthropic/v1`, `${root}/gemini/v1beta`,
// `${root}/ollama`.
import type http from 'node:http';
import { type MockHttp, startMockHttp } from './mock-http.ts';

export type CutKind = 'openai' | 'anthropic' | 'gemini' | 'ollama';

export type CutProvider = {
  baseUrl: Record<CutKind, string>;
  /** Requests answered, by kind. */
  count: Record<CutKind, number>;
  close(): Promise<void>;
};

/** The arguments a cut tool call had begun: `{"file_path":"/home/u`. */
export const CUT_ARGUMENTS = '{"file_path":"/home/u';

const sse = (data: unknown, event?: string): string =>
  `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;

/** OpenAI chat: a stream's first events, or a whole reply's first bytes. */
function openaiReply(tool: boolean, stream: boolean): string {
  const head = { id: 'chatcmpl-cut', object: 'chat.completion.chunk', created: 1700000000, model: 'cut-model' };
  const chunk = (delta: object) => sse({ ...head, choices: [{ index: 0, delta, finish_reason: null }] });
  if (stream) {
    const start = chunk({ role: 'assistant', content: '' });
    if (!tool) return start + chunk({ content: 'Hel' }) + chunk({ content: 'lo' });
    const call = { index: 0, id: 'call_cut', type: 'function', function: { name: 'Read', arguments: '' } };
    return (
      start +
      chunk({ tool_calls: [call] }) +
      chunk({ tool_calls: [{ index: 0, function: { arguments: CUT_ARGUMENTS } }] })
    );
  }
  const whole = JSON.stringify({
    id: 'chatcmpl-cut',
    object: 'chat.completion',
    created: 1700000000,
    model: 'cut-model',
    choices: [
      {
        index: 0,
        message: tool
          ? {
              role: 'assistant',
              content: null,
              tool_calls: [
                {
                  id: 'call_cut',
                  type: 'function',
                  function: { name: 'Read', arguments: '{"file_path":"/home/u/a.ts"}' },
                },
              ],
            }
          : { role: 'assistant', content: 'Hello there' },
        finish_reason: tool ? 'tool_calls' : 'stop',
      },
    ],
  });
  return cutWhole(whole, tool ? '/home/u' : 'Hel');
}

/** A whole reply's JSON up to (and including) the first occurrence of `at`: cut inside the text or the arguments. */
function cutWhole(whole: string, at: string): string {
  return whole.slice(0, whole.indexOf(at) + at.length);
}

function anthropicReply(tool: boolean, stream: boolean): string {
  if (stream) {
    const start = sse(
      {
        type: 'message_start',
        message: {
          id: 'msg_cut',
          type: 'message',
          role: 'assistant',
          model: 'cut-model',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 10, output_tokens: 1 },
        },
      },
      'message_start',
    );
    if (!tool)
      return (
        start +
        sse(
          { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
          'content_block_start',
        ) +
        sse(
          { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hel' } },
          'content_block_delta',
        )
      );
    return (
      start +
      sse(
        {
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'tool_use', id: 'toolu_cut', name: 'Read', input: {} },
        },
        'content_block_start',
      ) +
      sse(
        { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: CUT_ARGUMENTS } },
        'content_block_delta',
      )
    );
  }
  const whole = JSON.stringify({
    id: 'msg_cut',
    type: 'message',
    role: 'assistant',
    model: 'cut-model',
    content: tool
      ? [{ type: 'tool_use', id: 'toolu_cut', name: 'Read', input: { file_path: '/home/u/a.ts' } }]
      : [{ type: 'text', text: 'Hello there' }],
    stop_reason: tool ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 5 },
  });
  return cutWhole(whole, tool ? '/home/u' : 'Hel');
}

function geminiReply(tool: boolean, stream: boolean): string {
  const part = tool ? { functionCall: { name: 'Read', args: { file_path: '/home/u/a.ts' } } } : { text: 'Hello there' };
  if (stream) {
    const ev = (o: unknown) => `data: ${JSON.stringify(o)}\r\n\r\n`;
    const usage = { promptTokenCount: 10, totalTokenCount: 10 };
    const first = ev({
      candidates: [{ content: { parts: [{ text: tool ? '' : 'Hel' }], role: 'model' }, index: 0 }],
      usageMetadata: usage,
      modelVersion: 'cut-model',
      responseId: 'cut',
    });
    if (!tool) return first;
    // Gemini sends a call whole in one event: the cut lands inside that event's bytes.
    const call = ev({
      candidates: [{ content: { parts: [part], role: 'model' }, index: 0 }],
      usageMetadata: usage,
      modelVersion: 'cut-model',
      responseId: 'cut',
    });
    return first + cutWhole(call, '/home/u');
  }
  const whole = JSON.stringify({
    candidates: [{ content: { parts: [part], role: 'model' }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 3, totalTokenCount: 13 },
    modelVersion: 'cut-model',
    responseId: 'cut',
  });
  return cutWhole(whole, tool ? '/home/u' : 'Hel');
}

function ollamaReply(tool: boolean, stream: boolean): string {
  const head = { model: 'cut-model', created_at: '2025-01-01T00:00:00Z' };
  if (stream) {
    const line = (message: object) => `${JSON.stringify({ ...head, message, done: false })}\n`;
    const first = line({ role: 'assistant', content: tool ? '' : 'Hel' });
    if (!tool) return first + line({ role: 'assistant', content: 'lo' });
    // Ollama sends calls whole in one line: the cut lands inside that line.
    const call = line({
      role: 'assistant',
      content: '',
      tool_calls: [{ function: { name: 'Read', arguments: { file_path: '/home/u/a.ts' } } }],
    });
    return first + cutWhole(call, '/home/u');
  }
  const whole = JSON.stringify({
    ...head,
    message: tool
      ? {
          role: 'assistant',
          content: '',
          tool_calls: [{ function: { name: 'Read', arguments: { file_path: '/home/u/a.ts' } } }],
        }
      : { role: 'assistant', content: 'Hello there' },
    done: true,
    done_reason: 'stop',
  });
  return cutWhole(whole, tool ? '/home/u' : 'Hel');
}

function kindOf(url: string): CutKind | null {
  const first = url.split('/')[1];
  return first === 'openai' || first === 'anthropic' || first === 'gemini' || first === 'ollama' ? first : null;
}

export async function startCutProvider(): Promise<CutProvider> {
  const count: Record<CutKind, number> = { openai: 0, anthropic: 0, gemini: 0, ollama: 0 };
  const handle = (req: http.IncomingMessage, res: http.ServerResponse, chunks: Buffer[]): void => {
    const url = req.url ?? '';
    const kind = kindOf(url);
    if (req.method !== 'POST' || !kind) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      return;
    }
    count[kind]++;
    let body: { model?: string; stream?: boolean } = {};
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof body;
    } catch {
      // A Gemini body has no model: it is in the path.
    }
    const model = kind === 'gemini' ? decodeURIComponent(/models\/([^:]+):/.exec(url)?.[1] ?? '') : (body.model ?? '');
    const tool = model.includes('tool');
    const stream =
      kind === 'gemini'
        ? url.includes(':streamGenerateContent')
        : kind === 'ollama'
          ? body.stream !== false
          : body.stream === true;
    const text = { openai: openaiReply, anthropic: anthropicReply, gemini: geminiReply, ollama: ollamaReply }[kind](
      tool,
      stream,
    );
    const type = !stream
      ? 'application/json'
      : kind === 'ollama'
        ? 'application/x-ndjson'
        : 'text/event-stream; charset=utf-8';
    // No content-length: a chunked reply whose last chunk ends it cleanly, as a proxy that lost its upstream sends.
    res.writeHead(200, { 'content-type': type });
    res.write(text);
    res.end();
  };
  const server: MockHttp = await startMockHttp(undefined, handle);
  const root = `http://127.0.0.1:${server.port}`;
  return {
    baseUrl: {
      openai: `${root}/openai/v1`,
      anthropic: `${root}/anthropic/v1`,
      gemini: `${root}/gemini/v1beta`,
      ollama: `${root}/ollama`,
    },
    count,
    close: () => server.close(),
  };
}
