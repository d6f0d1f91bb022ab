#!/usr/bin/env node
// Captures the requests a real coding tool sends (Claude Code, Codex CLI, Gemini CLI), for the compatibility suite
// (test/fixtures/compat/, replayed by main/server/tool-versions.serve.test.ts). It starts a loopback server that
// records every request and answers in the tool's own wire format: the first turn that offers the tool's file-reading
// tool gets a call of it (sample.txt), every later turn the text "OK". Then it runs the tool once, headless, in a
// fresh temporary home and project (with a fake key: nothing leaves the machine), and writes each recorded request as
// <out>/<n>-<path>.json: method, path, headers (credentials removed) and body. Paths of the temporary folders are
// replaced by /home/user and /home/user/project, so a capture names no machine; prose of 120 characters or more (the
// vendor's prompts and tool descriptions) is replaced by filler of the same line lengths unless --keep-prose is given.
//
//   node scripts/capture-tool-requests.mjs claude-code <path to the claude bin> <out dir>
//   node scripts/capture-tool-requests.mjs codex <path to the codex bin> <out dir>
//   node scripts/capture-tool-requests.mjs gemini-cli <path to the gemini bin> <out dir> [--keep-prose]
//   (arguments after `--` go to the tool: e.g. `-- --output-schema /tmp/schema.json` for codex exec, or
//   `-- --mcp-config <file>` for Claude Code with MCP servers)
//   --sample <file>: sample.txt holds that file's text (e.g. a .env with keys of real formats, for the secret guard);
//   tool results are never filled (they are the sample's text, not the vendor's prose)
//
// The tools come from the npm registry (`npm install @anthropic-ai/claude-code@X`, `@openai/codex@X`,
// `@google/gemini-cli@X` into any folder); docs/TESTING.md says how the suite uses the captures.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';

const keepProse = process.argv.includes('--keep-prose');
const sampleAt = process.argv.indexOf('--sample');
const sampleText = sampleAt === -1 ? 'hello from sample.txt\n' : fs.readFileSync(process.argv[sampleAt + 1], 'utf8');
// Arguments after `--` go to the tool as they are (e.g. codex's --output-schema <file>).
const dashes = process.argv.indexOf('--');
const extra = dashes === -1 ? [] : process.argv.slice(dashes + 1);
const own = (dashes === -1 ? process.argv : process.argv.slice(0, dashes)).slice(2);
const [tool, bin, outDir] = own.filter(
  (a, i, all) => a !== '--keep-prose' && a !== '--sample' && all[i - 1] !== '--sample',
);
if (!['claude-code', 'codex', 'gemini-cli'].includes(tool ?? '') || !bin || !outDir) {
  console.error('usage: capture-tool-requests.mjs claude-code|codex|gemini-cli <bin> <out dir>');
  process.exit(2);
}

const PROMPT = 'Read sample.txt with your file-reading tool, then reply OK.';
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'capture-'));
const home = path.join(root, 'home');
const project = path.join(home, 'project');
fs.mkdirSync(project, { recursive: true });
fs.writeFileSync(path.join(project, 'sample.txt'), sampleText);
const sample = path.join(project, 'sample.txt');

const CREDENTIALS = new Set(['authorization', 'x-api-key', 'x-goog-api-key', 'api-key', 'cookie']);
const recorded = [];

const FILLER = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore ';

/**
 * Prose of 120 characters or more (system prompts, tool descriptions: the vendor's text, not ours to copy) becomes
 * filler with the same line lengths; keys, order, types, enums, short values and JSON-in-a-string stay as captured.
 */
function fillProse(value) {
  if (typeof value === 'string') {
    if (value.length < 120 || !value.includes(' ')) return value;
    return value
      .split('\n')
      .map((line) => FILLER.repeat(Math.ceil(line.length / FILLER.length)).slice(0, line.length))
      .join('\n');
  }
  if (Array.isArray(value)) return value.map(fillProse);
  // A tool's result is the sample's text (ours), kept as it came.
  if (value && typeof value === 'object' && value.type === 'tool_result') return value;
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillProse(v)]));
  return value;
}

/** Headers a replay recomputes (or that only describe this connection). */
const TRANSPORT = new Set(['host', 'content-length', 'connection', 'transfer-encoding', 'accept-encoding']);

/** A JSON value with the temporary folders replaced by stable paths. */
function scrub(value) {
  const text = JSON.stringify(value)
    .split(project)
    .join('/home/user/project')
    .split(home)
    .join('/home/user')
    .split(root)
    .join('/tmp/capture');
  return JSON.parse(text);
}

const sse = (res, events) => {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const [event, data] of events) res.write(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
  res.end();
};
const json = (res, status, body) => {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
};

/** Anthropic Messages: a Read call on the first turn that offers Read, else "OK". */
function anthropic(body, res) {
  const tools = (body.tools ?? []).map((t) => t.name);
  const last = body.messages?.at(-1);
  const answered = Array.isArray(last?.content) && last.content.some((b) => b.type === 'tool_result');
  const call = tools.includes('Read') && !answered;
  const message = {
    id: `msg_capture${recorded.length}`,
    type: 'message',
    role: 'assistant',
    model: body.model,
    content: call
      ? [{ type: 'tool_use', id: 'toolu_capture1', name: 'Read', input: { file_path: sample } }]
      : [{ type: 'text', text: 'OK' }],
    stop_reason: call ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 100, output_tokens: 5 },
  };
  if (!body.stream) return json(res, 200, message);
  const block = message.content[0];
  const start = block.type === 'text' ? { type: 'text', text: '' } : { ...block, input: {} };
  const delta =
    block.type === 'text'
      ? { type: 'text_delta', text: 'OK' }
      : { type: 'input_json_delta', partial_json: JSON.stringify(block.input) };
  sse(res, [
    ['message_start', { type: 'message_start', message: { ...message, content: [], stop_reason: null } }],
    ['content_block_start', { type: 'content_block_start', index: 0, content_block: start }],
    ['content_block_delta', { type: 'content_block_delta', index: 0, delta }],
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    [
      'message_delta',
      {
        type: 'message_delta',
        delta: { stop_reason: message.stop_reason, stop_sequence: null },
        usage: { output_tokens: 5 },
      },
    ],
    ['message_stop', { type: 'message_stop' }],
  ]);
}

/** OpenAI Responses (Codex): a shell call of `cat sample.txt` on the first turn, else "OK". */
function responses(body, res) {
  const input = Array.isArray(body.input) ? body.input : [];
  const answered = input.some((i) => i.type === 'function_call_output' || i.type === 'custom_tool_call_output');
  const names = (body.tools ?? []).map((t) => t.name);
  const shell = ['exec_command', 'shell_command', 'shell'].find((n) => names.includes(n));
  const id = `resp_capture${recorded.length}`;
  const base = { id, object: 'response', created_at: 1700000000, model: body.model, status: 'in_progress', output: [] };
  let item;
  if (shell && !answered) {
    const args =
      shell === 'exec_command'
        ? { cmd: 'cat sample.txt' }
        : shell === 'shell'
          ? { command: ['cat', 'sample.txt'] }
          : { command: 'cat sample.txt' };
    item = {
      type: 'function_call',
      id: 'fc_capture1',
      call_id: 'call_capture1',
      name: shell,
      arguments: JSON.stringify(args),
      status: 'completed',
    };
  } else {
    item = {
      type: 'message',
      id: 'msg_capture1',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: 'OK', annotations: [] }],
    };
  }
  const usage = {
    input_tokens: 100,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 5,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 105,
  };
  let seq = 0;
  const ev = (type, fields) => [type, { type, sequence_number: seq++, ...fields }];
  sse(res, [
    ev('response.created', { response: base }),
    ev('response.output_item.added', { output_index: 0, item }),
    ev('response.output_item.done', { output_index: 0, item }),
    ev('response.completed', { response: { ...base, status: 'completed', output: [item], usage } }),
  ]);
}

/** Gemini generateContent: a read_file call on the first turn that offers it, else "OK". */
function gemini(body, url, res) {
  const decls = (body.tools ?? []).flatMap((t) => t.functionDeclarations ?? []);
  const read = decls.find((d) => d.name === 'read_file');
  const answered = (body.contents ?? []).some((c) => (c.parts ?? []).some((p) => p.functionResponse));
  let part = { text: 'OK' };
  if (read && !answered) {
    const schema = read.parametersJsonSchema ?? read.parameters ?? {};
    const key = (schema.required ?? [])[0] ?? 'absolute_path';
    part = { functionCall: { name: 'read_file', args: { [key]: sample } } };
  }
  const reply = {
    candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 5, totalTokenCount: 105 },
    modelVersion: 'gemini-capture',
    responseId: `capture${recorded.length}`,
  };
  if (url.includes(':streamGenerateContent')) return sse(res, [[null, reply]]);
  if (url.includes(':countTokens')) return json(res, 200, { totalTokens: 100 });
  return json(res, 200, reply);
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const raw = Buffer.concat(chunks).toString('utf8');
    let body;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = raw;
    }
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(([k]) => !CREDENTIALS.has(k) && !TRANSPORT.has(k)),
    );
    const url = req.url ?? '';
    recorded.push({ method: req.method, path: url, headers, body: keepProse ? body : fillProse(body) });
    if (req.method === 'POST' && url.includes('/messages') && !url.includes('count_tokens'))
      return anthropic(body, res);
    if (req.method === 'POST' && url.includes('count_tokens')) return json(res, 200, { input_tokens: 100 });
    if (req.method === 'POST' && url.includes('/responses')) return responses(body, res);
    if (req.method === 'POST' && url.includes('/models/')) return gemini(body, url, res);
    if (req.method === 'GET' && url.includes('/models'))
      return json(res, 200, { object: 'list', data: [], models: [] });
    json(res, 404, { error: { message: `not captured: ${req.method} ${url}` } });
  });
});

await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const port = server.address().port;
const origin = `http://127.0.0.1:${port}`;

const env = {
  PATH: process.env.PATH,
  HOME: home,
  TERM: 'dumb',
  NO_COLOR: '1',
  CI: '1',
  DISABLE_TELEMETRY: '1',
  DISABLE_ERROR_REPORTING: '1',
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
};
let args;
if (tool === 'claude-code') {
  Object.assign(env, {
    ANTHROPIC_BASE_URL: origin,
    ANTHROPIC_API_KEY: 'sk-ant-capture-not-a-key',
    CLAUDE_CONFIG_DIR: path.join(home, '.claude'),
  });
  args = ['-p', PROMPT, '--allowedTools', 'Read', '--output-format', 'json', ...extra];
} else if (tool === 'codex') {
  Object.assign(env, { CODEX_HOME: path.join(home, '.codex'), CAPTURE_API_KEY: 'sk-capture-not-a-key' });
  fs.mkdirSync(env.CODEX_HOME, { recursive: true });
  args = [
    'exec',
    '--skip-git-repo-check',
    '--dangerously-bypass-approvals-and-sandbox',
    '-c',
    `model_providers.capture={name="capture",base_url="${origin}/v1",env_key="CAPTURE_API_KEY",wire_api="responses"}`,
    '-c',
    'model_provider="capture"',
    '-m',
    'gpt-5.4',
    ...extra,
    PROMPT,
  ];
} else {
  Object.assign(env, {
    GEMINI_API_KEY: 'capture-not-a-key',
    GOOGLE_GEMINI_BASE_URL: origin,
    GEMINI_CLI_NO_RELAUNCH: 'true',
  });
  // An API key as the auth method (both settings layouts), and the project trusted (else --yolo is refused).
  const dir = path.join(home, '.gemini');
  fs.mkdirSync(dir, { recursive: true });
  const auth = { selectedAuthType: 'gemini-api-key', security: { auth: { selectedType: 'gemini-api-key' } } };
  fs.writeFileSync(path.join(dir, 'settings.json'), JSON.stringify(auth));
  fs.writeFileSync(path.join(dir, 'trustedFolders.json'), JSON.stringify({ [project]: 'TRUST_FOLDER' }));
  args = ['-p', PROMPT, '-m', 'gemini-2.5-pro', '--yolo', ...extra];
}

const child = spawn(bin, args, { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'] });
let output = '';
child.stdout.on('data', (d) => (output += d));
child.stderr.on('data', (d) => (output += d));
const killer = setTimeout(() => child.kill('SIGKILL'), 120_000);
const code = await new Promise((resolve) => child.on('exit', resolve));
clearTimeout(killer);
server.close();
fs.mkdirSync(outDir, { recursive: true });
recorded.forEach((r, i) => {
  const name = `${String(i + 1).padStart(2, '0')}-${r.method}-${r.path.split('?')[0].replace(/[^a-zA-Z0-9]+/g, '_')}.json`;
  fs.writeFileSync(path.join(outDir, name.slice(0, 120)), `${JSON.stringify(scrub(r), null, 2)}\n`);
});
console.log(`${tool}: exit ${code}, ${recorded.length} requests recorded in ${outDir}`);
if (code !== 0) console.log(output.slice(-2000));
fs.rmSync(root, { recursive: true, force: true });
