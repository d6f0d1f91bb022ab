// Every route the fuzz suite runs: the front doors (each wire format's), the gateway's endpoints, the realtime
// WebSocket upgrade, the model lists, the admin API (config, backups, logs, captures, replay, usage, notifications, Connect, Try it,
// MCP), the agent API and the UI, each with its method, path template, error family, credential, body kind, body
// limit, seed bodies and (for the APIs with zod schemas in shared/) the schema its mis-typed fields are drawn from.
// routes.test.ts checks this list against the server's own route table: a route the server serves with no entry here
// fails it.
import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import { API_BODY_BYTES } from '../../main/proxy/body.ts';
import { ConfigSchema } from '../../shared/config.ts';
import { ConnectRequestSchema, TryRequestSchema } from '../../shared/connect.ts';
import { ReplayRequestSchema } from '../../shared/insight.ts';
import { McpImportRequestSchema } from '../../shared/mcp.ts';
import {
  ApprovalDecisionSchema,
  CreateAgentSchema,
  CreateSwarmSchema,
  CreateWorkflowSchema,
  RunTaskSchema,
  RunWorkflowSchema,
  SwarmTaskSchema,
  UpdateAgentSchema,
} from '../../shared/orchestrator.ts';
import { familyOf, type Family } from './shapes.ts';
import { MAX_BODY_BYTES } from './world.ts';

/** Chat and text models: each provider type, and one no rule names (the default provider). */
const CHAT_MODELS = ['via-openai-m', 'via-anthropic-m', 'via-gemini-m', 'via-ollama-m', 'some-model'] as const;
/**
 * Embeddings: not to the Ollama mock, which (unlike Ollama) has no /api/embed, so its "404 page not found" would
 * stand for a reply no real provider gives.
 */
const EMBED_MODELS = ['via-openai-m', 'via-anthropic-m', 'via-gemini-m', 'media-model', 'some-model'] as const;
/** Images, audio, video: the media mock serves them; the others answer 404 or cannot take them (a 400). */
const MEDIA_MODELS = ['media-model', 'media-model', 'via-openai-m', 'via-anthropic-m'] as const;

/** A JSON body, or multipart form fields (with one file part), or none. */
export type BodyKind = 'json' | 'multipart' | 'none';

export type Route = {
  method: string;
  /** The path with `{param}` holes (see PARAMS) and an optional query. */
  template: string;
  family: Family;
  /** The credential it needs: none, the admin token, an agent API key. */
  auth: 'none' | 'admin' | 'agent';
  body: BodyKind;
  /** The largest body it takes (null: it reads none, so a body of any size costs nothing: Node drops it). */
  limitBytes: number | null;
  /** Whether it forwards to a provider (so a 502/503/504 may be the provider's). */
  forwards: boolean;
  /** The models a case names (in the body or the path): each routes to one of the mock providers (world.ts). */
  models: readonly string[];
  /** Bodies a client would send, as the starting point of mutations; their model is replaced by one of `models`. */
  seeds: (w: SeedRefs) => unknown[];
  /** The zod schema the route reads its body with (shared/), the source of mis-typed known fields. */
  schema?: z.ZodType;
  /** A 2xx changed the server's state in a way later cases must not inherit: restore config.json and unpause. */
  resets?: boolean;
  /** A WebSocket upgrade (the realtime route): cases carry a client's handshake headers, and 101 is its success. */
  upgrade?: boolean;
};

/** What seeds may name: the agent and workflow the world made, and config.json as the fuzz started it. */
export type SeedRefs = { config: Record<string, unknown> };

/** The names a path template's holes take (each filled by arbitraries.ts with a real value or an odd one). */
export const PARAMS = [
  'model',
  'agent',
  'task',
  'workflow',
  'swarm',
  'run',
  'backup',
  'provider',
  'key',
  'video',
  'tail',
  'tool',
  'mcp',
  'log',
] as const;
export type Param = (typeof PARAMS)[number];

type Fixture = { request?: unknown; body?: unknown };
/** A captured (or marked hand-written) request under test/fixtures/real/, each file naming its source. */
const fixture = (file: string): unknown => {
  const f = JSON.parse(readFileSync(new URL(`../fixtures/real/${file}`, import.meta.url), 'utf8')) as Fixture;
  return f.request ?? f.body;
};

// Hand-written seeds (not captured), modelled on each vendor's API reference for the endpoint and the docs'
// "Wire formats: every front door" examples: the smallest request each endpoint takes.
const CHAT = { model: 'm', messages: [{ role: 'user', content: 'Say hi.' }], max_tokens: 16 };
const STREAM_CHAT = { ...CHAT, stream: true, stream_options: { include_usage: true } };
/** A tool turn: the assistant's call and the tool's result, with the tool's declaration and a forced choice. */
const TOOL_TURN = {
  model: 'm',
  messages: [
    { role: 'system', content: 'Use tools.' },
    { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }],
    },
    { role: 'tool', tool_call_id: 'call_1', content: '18°C' },
  ],
  tools: [
    {
      type: 'function',
      function: { name: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
    },
  ],
  tool_choice: { type: 'function', function: { name: 'weather' } },
  stop: ['\n\n'],
  response_format: { type: 'json_schema', json_schema: { name: 'w', schema: { type: 'object' } } },
  temperature: 0.2,
};
const ANTHROPIC = { model: 'm', max_tokens: 16, messages: [{ role: 'user', content: 'Say hi.' }] };
const GEMINI = {
  contents: [{ role: 'user', parts: [{ text: 'Say hi.' }] }],
  generationConfig: { maxOutputTokens: 16 },
};
const OLLAMA_CHAT = { model: 'm', messages: [{ role: 'user', content: 'Say hi.' }], stream: false };

const model = (family: Family, forwards = true, models: readonly string[] = CHAT_MODELS) => ({
  family,
  auth: 'none' as const,
  body: 'json' as const,
  forwards,
  models,
});
const frontDoor = (template: string, seeds: () => unknown[], models: readonly string[] = CHAT_MODELS): Route => ({
  method: 'POST',
  template,
  ...model(familyOf(template), true, models),
  limitBytes: MAX_BODY_BYTES,
  seeds,
});

/** The front doors: every wire format's chat, completions, embeddings and helper routes. */
const FRONT_DOORS: Route[] = [
  frontDoor('/v1/chat/completions', () => [
    CHAT,
    STREAM_CHAT,
    TOOL_TURN,
    fixture('openai-sdk/json-schema.hand-written.json'),
    fixture('openai-sdk/forced-tool-vision.hand-written.json'),
    fixture('continue/agent-chat.json'),
    fixture('aider/whole-edit-format.json'),
  ]),
  frontDoor('/v1/messages', () => [
    ANTHROPIC,
    { ...ANTHROPIC, stream: true },
    fixture('claude-code/title-haiku.json'),
    fixture('claude-code/request-1-with-user-id.json'),
  ]),
  {
    ...frontDoor('/v1/messages/count_tokens', () => [ANTHROPIC, fixture('claude-code/title-haiku.json')]),
    forwards: false,
  },
  frontDoor('/v1/responses', () => [
    { model: 'm', input: 'Say hi.', max_output_tokens: 16 },
    { model: 'm', input: [{ role: 'user', content: [{ type: 'input_text', text: 'Say hi.' }] }], stream: true },
    fixture('codex/local-shell-turn.json'),
  ]),
  frontDoor('/v1/completions', () => [
    { model: 'm', prompt: 'Say hi.', max_tokens: 16 },
    { model: 'm', prompt: ['a', 'b'], suffix: 'x', stream: true },
  ]),
  frontDoor(
    '/v1/embeddings',
    () => [
      { model: 'm', input: 'hi' },
      { model: 'm', input: ['a', 'b'], dimensions: 2 },
    ],
    EMBED_MODELS,
  ),
  frontDoor('/v1/engines/{model}/embeddings', () => [{ input: 'hi' }, { input: ['a', 'b'] }], EMBED_MODELS),
  frontDoor('/api/chat', () => [
    OLLAMA_CHAT,
    { ...OLLAMA_CHAT, stream: true },
    fixture('open-webui/ollama-chat-stream.json'),
    fixture('zed/ollama-chat-tools.json'),
  ]),
  frontDoor('/api/generate', () => [
    { model: 'm', prompt: 'Say hi.', stream: false },
    { model: 'm', prompt: '' },
    fixture('continue/ollama-fim.json'),
  ]),
  frontDoor(
    '/api/embed',
    () => [
      { model: 'm', input: 'hi' },
      { model: 'm', input: ['a', 'b'] },
    ],
    EMBED_MODELS,
  ),
  frontDoor('/api/embeddings', () => [{ model: 'm', prompt: 'hi' }], EMBED_MODELS),
  { ...frontDoor('/api/show', () => [{ model: 'm' }, { name: 'm' }]), forwards: false, limitBytes: API_BODY_BYTES },
  frontDoor('/v1beta/models/{model}:generateContent', () => [
    GEMINI,
    fixture('gemini-cli/tool-turn-with-thinking.json'),
  ]),
  frontDoor('/v1beta/models/{model}:streamGenerateContent?alt=sse', () => [
    GEMINI,
    fixture('gemini-cli/tool-turn-with-thinking.json'),
  ]),
  frontDoor('/v1beta/models/{model}:streamGenerateContent', () => [GEMINI]),
  { ...frontDoor('/v1beta/models/{model}:countTokens', () => [GEMINI]), forwards: false },
];

/** The gateway's endpoints (main/gateway/routes.ts): JSON, multipart uploads, video tasks and their polls. */
const GATEWAY: Route[] = [
  frontDoor('/v1/responses/compact', () => [{ model: 'm', input: [{ role: 'user', content: 'hi' }] }], MEDIA_MODELS),
  frontDoor('/v1/images/generations', () => [{ model: 'm', prompt: 'a cat', n: 1, size: '256x256' }], MEDIA_MODELS),
  frontDoor('/v1/audio/speech', () => [{ model: 'm', input: 'hello', voice: 'alloy' }], MEDIA_MODELS),
  frontDoor('/v1/rerank', () => [{ model: 'm', query: 'q', documents: ['a', 'b'] }], MEDIA_MODELS),
  frontDoor('/v1/moderations', () => [{ model: 'm', input: 'hello' }], MEDIA_MODELS),
  frontDoor('/v1/videos', () => [{ model: 'm', prompt: 'a cat', seconds: '4' }], MEDIA_MODELS),
  frontDoor('/v1/video/generations', () => [{ model: 'm', prompt: 'a cat' }], MEDIA_MODELS),
  frontDoor('/vendora/v1/videos/text2video', () => [{ model: 'm', prompt: 'a cat' }], MEDIA_MODELS),
  frontDoor('/vendora/v1/videos/image2video', () => [{ model: 'm', image: 'data:,x', prompt: 'a cat' }], MEDIA_MODELS),
  frontDoor('/vendorb/{tail}', () => [{ model: 'm', prompt: 'a cat' }], MEDIA_MODELS),
  ...['/v1/images/edits', '/v1/audio/transcriptions', '/v1/audio/translations'].map((p): Route => ({
    ...frontDoor(p, () => [{ model: 'm', prompt: 'x', language: 'en' }], MEDIA_MODELS),
    body: 'multipart',
  })),
  ...[
    '/v1/videos/{video}',
    '/v1/videos/{video}/content',
    '/v1/video/generations/{video}',
    '/vendora/v1/videos/text2video/{video}',
    '/vendora/v1/videos/image2video/{video}',
    '/vendorb/{tail}',
  ].map((p): Route => ({
    ...model('openai', true, MEDIA_MODELS),
    method: 'GET',
    template: p,
    body: 'none',
    limitBytes: null,
    seeds: () => [],
  })),
];

/** The model lists and Ollama's metadata routes (main/server/compat.ts), and Ollama's `HEAD /` (is it running?). */
const LISTS: Route[] = [
  ...['/v1/models', '/v1beta/models', '/api/tags', '/api/ps', '/api/version', '/'].map((p) => ['GET', p] as const),
  ['HEAD', '/'] as const,
].map(([method, p]): Route => ({
  ...model(familyOf(p), p.endsWith('models') || p === '/api/tags'),
  method,
  template: p,
  body: 'none',
  limitBytes: null,
  seeds: () => [],
}));

const admin = (method: string, template: string, more: Partial<Route> = {}): Route => ({
  method,
  template: `/admin/v1${template}`,
  family: 'admin',
  auth: 'admin',
  body: method === 'GET' || method === 'DELETE' ? 'none' : 'json',
  limitBytes: method === 'GET' || method === 'DELETE' ? null : API_BODY_BYTES,
  forwards: false,
  models: CHAT_MODELS,
  seeds: () => [{}],
  ...more,
});

/** The admin API (main/server/admin.ts), with the admin token. /logs/stream is an event stream (read briefly). */
const ADMIN: Route[] = [
  admin('GET', '/status'),
  admin('GET', '/config'),
  admin('PUT', '/config', { seeds: (w) => [w.config], schema: ConfigSchema, resets: true }),
  admin('GET', '/config/backups'),
  admin('GET', '/config/backups/{backup}'),
  admin('POST', '/config/backups/{backup}/restore', { resets: true, limitBytes: null }),
  admin('GET', '/logs?limit=5'),
  admin('GET', '/logs/stream'),
  // Request capture and replay (issue 38): the fuzz world captures nothing, so a log id is a 404 capture_not_found.
  admin('GET', '/logs/{log}/body'),
  admin('GET', '/usage/attribution?session=s1&from=2026-01-01T00:00:00Z'),
  admin('POST', '/replay', {
    schema: ReplayRequestSchema,
    seeds: () => [
      { log_id: '00000000-0000-4000-8000-000000000000', targets: [{ provider: 'p-openai', model: 'via-openai-m' }] },
    ],
  }),
  admin('GET', '/route?model={model}&app=code&prompt_tokens=2000&max_tokens=500'),
  admin('POST', '/route', {
    seeds: (w) => [
      { model: 'via-openai-m', app: 'code', config: w.config },
      { model: 'via-openai-m', config: w.config, prompt_tokens: 2000, max_tokens: 500 },
    ],
  }),
  admin('POST', '/pause', { seeds: () => [{ paused: false }, { paused: true }], resets: true }),
  admin('POST', '/providers/{provider}/test', { limitBytes: null }),
  admin('GET', '/providers/detect'),
  admin('GET', '/agent-keys'),
  admin('POST', '/agent-keys', { seeds: () => [{ tenant: 'fuzz-other', label: 'fuzz' }, {}] }),
  admin('POST', '/agent-keys/ui', { limitBytes: null }), // reads no body
  admin('DELETE', '/agent-keys/{key}'),
  admin('GET', '/port-check?port=1'),
  admin('GET', '/usage?range=today'),
  admin('GET', '/usage/requests?limit=5'),
  admin('GET', '/events'),
  // Connect edits the tools' files under the fuzz server's own temporary HOME (world.ts), never this machine's.
  admin('GET', '/connect'),
  admin('POST', '/connect/{tool}', { schema: ConnectRequestSchema, seeds: () => [{}, { force: true }] }),
  admin('POST', '/connect/{tool}/undo', { schema: ConnectRequestSchema, seeds: () => [{}, { force: true }] }),
  admin('POST', '/try', {
    schema: TryRequestSchema,
    seeds: () => [
      { model: 'via-openai-m', message: 'Say hi.' },
      { model: 'via-anthropic-m', message: 'Say hi.', app: 'fuzz-try' },
    ],
  }),
  admin('GET', '/mcp'),
  // The world's MCP server is a command that does not exist: a refresh fails at once, saying why.
  admin('POST', '/mcp/{mcp}/refresh', { limitBytes: null }),
  admin('POST', '/mcp/{mcp}/enable', { limitBytes: null, resets: true }),
  admin('POST', '/mcp/{mcp}/disable', { limitBytes: null, resets: true }),
  // Sources and files are read under the world's HOME and working folder; a file named by path is imported disabled.
  admin('POST', '/mcp/import', {
    schema: McpImportRequestSchema,
    seeds: () => [{ mcpServers: {} }, {}, { from: 'cursor' }, { path: 'nope.json' }],
    resets: true,
  }),
];

const agent = (method: string, template: string, more: Partial<Route> = {}): Route => ({
  method,
  template: `/api/v1${template}`,
  family: 'agent',
  auth: 'agent',
  body: method === 'GET' || method === 'DELETE' ? 'none' : 'json',
  limitBytes: method === 'GET' || method === 'DELETE' ? null : API_BODY_BYTES,
  forwards: false,
  models: CHAT_MODELS,
  seeds: () => [{}],
  ...more,
});

/** The agent API (main/orchestrator/api.ts, workflows-api.ts) with an agent key; /health and /metrics need none. */
const AGENT_API: Route[] = [
  agent('GET', '/health', { auth: 'none' }),
  // The same health answer at the root (issue 36), for balancers and probes: no credential, no body.
  { ...agent('GET', '/health', { auth: 'none' }), template: '/health', family: familyOf('/health') },
  agent('GET', '/metrics', { auth: 'none' }),
  agent('POST', '/agents', {
    schema: CreateAgentSchema,
    seeds: () => [{ name: 'a', model: 'via-openai-m', tools: ['calculator'], config: { max_tokens: 8 } }],
  }),
  agent('GET', '/agents?status=idle&limit=5&offset=0'),
  agent('GET', '/agents/{agent}'),
  agent('PUT', '/agents/{agent}', { schema: UpdateAgentSchema, seeds: () => [{ system_prompt: 'Be brief.' }] }),
  agent('DELETE', '/agents/{agent}'),
  agent('POST', '/agents/{agent}/run', {
    schema: RunTaskSchema,
    seeds: () => [{ message: 'Say hi.', context: { max_length: 10 } }],
  }),
  agent('GET', '/tasks?status=completed&limit=5'),
  agent('GET', '/tasks/{task}'),
  agent('POST', '/tasks/{task}/stop', { limitBytes: null }),
  agent('GET', '/tasks/{task}/wait?timeout_s=0'),
  agent('DELETE', '/tasks/{task}'),
  agent('GET', '/tasks?limit=5&offset=1'),
  agent('GET', '/threads?limit=5&offset=0'),
  agent('GET', '/threads/{task}'),
  agent('DELETE', '/threads/{task}'),
  agent('GET', '/events?last_event_id=0'),
  agent('GET', '/approvals?status=pending'),
  agent('GET', '/tasks/{task}/approvals'),
  agent('POST', '/tasks/{task}/approvals/call_1', {
    schema: ApprovalDecisionSchema,
    seeds: () => [
      { decision: 'approve', arguments: { x: 1 } },
      { decision: 'deny', reason: 'no' },
    ],
  }),
  agent('POST', '/workflows', {
    schema: CreateWorkflowSchema,
    seeds: () => [{ name: 'wf', steps: [{ name: 's', agent: 'fuzz-agent', prompt: 'Say {{input.x}}' }] }],
  }),
  agent('GET', '/workflows'),
  agent('GET', '/workflows/{workflow}'),
  agent('PUT', '/workflows/{workflow}', {
    schema: CreateWorkflowSchema,
    seeds: () => [{ steps: [{ name: 's', agent: 'fuzz-agent', prompt: 'Say {{input.x}}' }] }],
    resets: true,
  }),
  agent('DELETE', '/workflows/{workflow}', { resets: true }),
  agent('GET', '/workflows/{workflow}/runs'),
  agent('GET', '/workflows/{workflow}/runs/{run}'),
  agent('POST', '/workflows/{workflow}/run', { schema: RunWorkflowSchema, seeds: () => [{ input: { topic: 'x' } }] }),
  agent('GET', '/workflows/{workflow}/runs/{run}/wait?timeout_s=0'),
  agent('POST', '/workflows/{workflow}/runs/{run}/cancel', { limitBytes: null }),
  agent('POST', '/swarms', {
    schema: CreateSwarmSchema,
    seeds: () => [{ name: 'sw', coordinator: 'fuzz-agent', agents: ['fuzz-member'], config: { max_rounds: 1 } }],
  }),
  agent('GET', '/swarms'),
  agent('GET', '/swarms/{swarm}'),
  agent('PUT', '/swarms/{swarm}', {
    schema: CreateSwarmSchema,
    seeds: () => [{ coordinator: 'fuzz-agent', agents: ['fuzz-member'] }],
    resets: true,
  }),
  agent('DELETE', '/swarms/{swarm}', { resets: true }),
  agent('GET', '/swarms/{swarm}/tasks'),
  agent('GET', '/swarms/{swarm}/tasks/{task}'),
  agent('POST', '/swarms/{swarm}/tasks', { schema: SwarmTaskSchema, seeds: () => [{ message: 'Say hi.' }] }),
  agent('GET', '/swarms/{swarm}/tasks/{task}/wait?timeout_s=0'),
  agent('POST', '/swarms/{swarm}/tasks/{task}/stop', { limitBytes: null }),
  agent('GET', '/wal/status'),
  agent('POST', '/wal/compact', { limitBytes: null }),
];

/** The realtime WebSocket (main/gateway/realtime.ts): a client's handshake, to the world's realtime provider. */
const REALTIME: Route[] = [
  {
    ...model('openai', true, ['realtime-m']),
    method: 'GET',
    // The model is fixed: an odd one would route to a chat mock that has no realtime endpoint (a 502 of its own).
    template: '/v1/realtime?model=realtime-m',
    body: 'none',
    limitBytes: null,
    seeds: () => [],
    upgrade: true,
  },
];

/** The UI (main/server/ui.ts): the page, its assets and client-side routes; a missing asset is a plain 404. */
const UI: Route[] = ['/ui', '/ui/', '/ui/{tail}'].map((template): Route => ({
  ...model('ui', false, CHAT_MODELS),
  method: 'GET',
  template,
  body: 'none',
  limitBytes: null,
  seeds: () => [],
}));

export const ROUTES: readonly Route[] = [
  ...FRONT_DOORS,
  ...GATEWAY,
  ...REALTIME,
  ...LISTS,
  ...ADMIN,
  ...AGENT_API,
  ...UI,
];
export const BODY_ROUTES: readonly Route[] = ROUTES.filter((r) => r.body !== 'none');
