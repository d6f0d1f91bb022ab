// Connect (docs/connect.md, "Connect your tools"): which tools are installed, where each points, and pointing each at
// Switchboard (or undoing it). The admin API (/admin/v1/connect*), the CLI (`switchboard connect`) and the Connect
// page all speak these shapes.
import { z } from 'zod';

/** Every tool the Connect page knows. `file` tools are written; `manual` ones are shown the values and steps. */
export const CONNECT_TOOL_IDS = [
  'claude-code',
  'codex',
  'gemini-cli',
  'continue',
  'aider',
  'opencode',
  'copilot-vscode',
  'zed',
  'cline',
  'roo-code',
  'open-webui',
  'cursor',
  'openai-compatible',
] as const;
export const ConnectToolIdSchema = z.enum(CONNECT_TOOL_IDS);
export type ConnectToolId = z.infer<typeof ConnectToolIdSchema>;

/**
 * Where a tool stands: not installed (no sign of it on this machine), installed and not pointing at Switchboard,
 * connected (its settings point here), pointing at another endpoint (shown, never silently overwritten), or its
 * settings file cannot be read (broken: the message says where and why). `manual` tools are always `manual`.
 */
export const ConnectStateSchema = z.enum([
  'not_installed',
  'not_connected',
  'connected',
  'elsewhere',
  'broken',
  'manual',
]);
export type ConnectState = z.infer<typeof ConnectStateSchema>;

/** A value to paste (a base URL, an API key placeholder, a model name), with what it is for. */
export const CopyValueSchema = z.strictObject({ label: z.string(), value: z.string() });
export type CopyValue = z.infer<typeof CopyValueSchema>;

/** One settings file a tool reads and Connect writes. */
export const ToolFileSchema = z.strictObject({
  path: z.string(),
  exists: z.boolean(),
  /** What it holds, in words: "Claude Code's user settings". */
  role: z.string(),
});

/**
 * Why a tool's model would not reach the provider meant for it (Connect's routing check): no enabled provider serves it
 * (`no_route`), a rule meant for it names a disabled provider so it goes elsewhere (`disabled`), or it would go to a
 * vendor's own API that has no such model (`wrong_vendor`, e.g. a Claude model to api.openai.com: model not found).
 */
export const RouteProblemSchema = z.strictObject({
  kind: z.enum(['no_route', 'disabled', 'wrong_vendor']),
  /** In words, with what happens to the requests, about the model without naming it ("the rule claude-* names …"). */
  message: z.string(),
  /** The provider to enable or set up (disabled), or the one that would answer wrongly (wrong_vendor). */
  provider: z.string().nullable(),
  /** The preset of the service that serves this model (shared/presets.ts), for the fix; null when none is known. */
  preset: z.string().nullable(),
  /** The pattern a rule for the fix would use (the preset's glob that matches the model), null when none. */
  pattern: z.string().nullable(),
});
export type RouteProblem = z.infer<typeof RouteProblemSchema>;

/** One of a tool's usual models and who will answer it (as the tool names itself: its app rule applies). */
export const ToolRouteSchema = z.strictObject({
  /** What the model is to the tool: "Opus tier", "Subagents", "Default model". */
  label: z.string(),
  model: z.string(),
  /** Where the name comes from: its settings ("settings.json env.ANTHROPIC_DEFAULT_OPUS_MODEL") or the tool's default. */
  source: z.string(),
  /** The provider that will answer (the route's first candidate), null when none will. */
  provider: z.string().nullable(),
  /** Why: the route's reason for it ("rule:claude-*", "default", "app:cursor"). */
  via: z.string().nullable(),
  problem: RouteProblemSchema.nullable(),
});
export type ToolRoute = z.infer<typeof ToolRouteSchema>;

export const ToolStatusSchema = z.strictObject({
  id: ConnectToolIdSchema,
  name: z.string(),
  kind: z.enum(['file', 'manual']),
  installed: z.boolean(),
  state: ConnectStateSchema,
  /** The app name Switchboard sees for this tool's requests (app rules, usage), e.g. "claude-code". */
  app: z.string(),
  /** The wire format it speaks to Switchboard. */
  format: z.enum(['openai', 'anthropic', 'gemini', 'ollama', 'responses']),
  files: z.array(ToolFileSchema),
  /** Where it points now, when its settings say (a base URL), else null. */
  current: z.string().nullable(),
  /** One sentence: why this state ("ANTHROPIC_BASE_URL is https://api.example.com"; "line 3: unexpected '}'"). */
  detail: z.string(),
  /** A connect of this tool can be undone (a backup of the files as they were is kept). */
  can_undo: z.boolean(),
  /** The values and steps to do it by hand: always for manual tools, also for file tools (what Connect writes). */
  values: z.array(CopyValueSchema),
  steps: z.array(z.string()),
  /** The tool's usual models and who answers each (empty for tools Switchboard knows no usual model of). */
  routes: z.array(ToolRouteSchema),
});
export type ToolStatus = z.infer<typeof ToolStatusSchema>;

/** The base URL a client of each wire format is given (OpenAI /v1, Anthropic root, Gemini /v1beta, Ollama root). */
export const BaseUrlsSchema = z.strictObject({
  openai: z.string(),
  anthropic: z.string(),
  gemini: z.string(),
  ollama: z.string(),
});
export type BaseUrls = z.infer<typeof BaseUrlsSchema>;

/** GET /admin/v1/connect */
export const ConnectOverviewSchema = z.strictObject({
  base_urls: BaseUrlsSchema,
  tools: z.array(ToolStatusSchema),
});
export type ConnectOverview = z.infer<typeof ConnectOverviewSchema>;

/** POST /admin/v1/connect/:tool body. `force`: overwrite a tool that points elsewhere (its old value is backed up). */
export const ConnectRequestSchema = z.strictObject({ force: z.boolean().optional() }).default({});
export type ConnectRequest = z.infer<typeof ConnectRequestSchema>;

/** A file Connect changed (or Undo restored), and where its previous bytes are kept. */
export const ChangedFileSchema = z.strictObject({
  path: z.string(),
  /** created: did not exist before; modified: existed; restored / removed: by Undo. */
  action: z.enum(['created', 'modified', 'restored', 'removed']),
  backup: z.string().nullable(),
});

/** POST /admin/v1/connect/:tool and POST /admin/v1/connect/:tool/undo */
export const ConnectResultSchema = z.strictObject({
  tool: ToolStatusSchema,
  changed: z.array(ChangedFileSchema),
  message: z.string(),
});
export type ConnectResult = z.infer<typeof ConnectResultSchema>;

/** POST /admin/v1/try: one message through the current routes, as a client of `format` would send it. */
export const TryRequestSchema = z.strictObject({
  model: z.string().min(1, 'must name a model, e.g. "gpt-4o-mini" or "claude-sonnet-4"'),
  message: z.string().min(1, 'must not be empty').max(10_000),
  app: z.string().optional(),
});
export type TryRequest = z.infer<typeof TryRequestSchema>;

export const TryResultSchema = z.strictObject({
  ok: z.boolean(),
  status: z.number().int(),
  /** The answer's text (ok), or the error's message. */
  answer: z.string(),
  provider: z.string().nullable(),
  model: z.string().nullable(),
  /** Why this provider: the route explanation's steps. */
  why: z.array(z.string()),
  latency_ms: z.number(),
  prompt_tokens: z.number().nullable(),
  completion_tokens: z.number().nullable(),
  cost_usd: z.number().nullable(),
});
export type TryResult = z.infer<typeof TryResultSchema>;

/**
 * What a port change did to a tool Connect had pointed at Switchboard (issue 34: Connect follows the port): its
 * setting rewritten to the new port (`moved`; the first backup is kept, so Undo still puts back the file as it was
 * before Connect), or left (`left`: it no longer pointed at the old port, or its file could not be read or written).
 */
export const PortFollowSchema = z.strictObject({
  tool: ConnectToolIdSchema,
  name: z.string(),
  path: z.string(),
  outcome: z.enum(['moved', 'left']),
  /** In words: what was changed, or why it was left. */
  message: z.string(),
});
export type PortFollow = z.infer<typeof PortFollowSchema>;
