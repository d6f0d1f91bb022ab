// Shapes of the admin API (/admin/v1): provider status, request log entries, route explanations.
import { z } from 'zod';
import type { GuardRecord } from './insight.ts';
import { CONFIG_BACKUP_ID_RE, type Config } from './config.ts';
import { PortFollowSchema } from './connect.ts';

export { CONFIG_BACKUP_ID_RE };

export const ProviderStateSchema = z.enum(['ok', 'failed', 'unknown', 'disabled']);
export type ProviderState = z.infer<typeof ProviderStateSchema>;
export type CircuitState = 'closed' | 'open' | 'half_open';

export type ProviderStatus = {
  name: string;
  type: string;
  base_url: string;
  enabled: boolean;
  state: ProviderState;
  circuit: CircuitState;
  consecutive_failures: number;
  last_error: string | null;
  last_latency_ms: number | null;
  last_checked_at: string | null;
  last_ok_at: string | null;
  circuit_opens_until: string | null;
};

export type AttemptLog = {
  provider: string;
  status: number | null;
  error: string | null;
  latency_ms: number;
  /** Request fields left out for this provider, each with why (the provider/model quirks table's: "field=value: why"). */
  dropped?: string[];
};

export type RequestLogEntry = {
  id: string;
  time: string;
  method: string;
  path: string;
  app: string | null;
  app_source: AppSource | null;
  requested_model: string | null;
  routed_model: string | null;
  provider: string | null;
  route: string | null;
  attempts: AttemptLog[];
  status: number;
  error_code: string | null;
  stream: boolean;
  latency_ms: number;
  ttfb_ms: number | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  /** Prompt tokens read from and written to the provider's cache (within prompt_tokens); null: not said. */
  cache_read_tokens?: number | null;
  cache_write_tokens?: number | null;
  /**
   * Within cache_write_tokens, the writes kept 5 minutes and 1 hour, when the provider tells them apart (Anthropic's
   * cache_creation); null: not said.
   */
  cache_write_5m_tokens?: number | null;
  cache_write_1h_tokens?: number | null;
  /** Completion tokens spent on reasoning (within completion_tokens); null: not said. */
  reasoning_tokens?: number | null;
  /**
   * The coding session the request belongs to, from its tool's header (Claude Code's X-Claude-Code-Session-Id, Codex's
   * session_id…: main/proxy/session-id.ts), at most 128 characters; null: none sent. Absent from older entries.
   */
  session?: string | null;
  /**
   * Gateway mode: the credential's name (a gateway key's or PAT's `--name`, a JWT's `sub`: what `limits.per_key` and
   * `budgets[].key` name); null when none was checked. Absent in local mode and from older entries.
   */
  key?: string | null;
  /** Store "redis": the instance that served it (SWITCHBOARD_INSTANCE, else host:port). Absent otherwise. */
  instance?: string | null;
  /** What the secret guard found and did (docs/insight.md, "Secret guard"); absent when it found nothing or was off. */
  guard?: GuardRecord;
  /** The log id of the captured request this one replays (POST /admin/v1/replay); absent for any other request. */
  replay_of?: string;
  /** Whether its bodies were captured (config.json `capture`): GET /admin/v1/logs/:id/body has them. */
  captured?: true;
};

export type AppSource = 'header' | 'x-title' | 'api-key' | 'process' | 'user-agent';

export type RouteCandidate = {
  provider: string;
  reason: string;
};
export type RouteSkip = { provider: string; reason: string };

export type RouteExplanation = {
  requested_model: string;
  model: string;
  app: string | null;
  app_rule: { app: string; default_provider?: string; model_override?: string } | null;
  candidates: RouteCandidate[];
  skipped: RouteSkip[];
  steps: string[];
  /** The admin API's answer: the order the candidates would be tried in now, each with why (RouteDecision). */
  decisions?: RouteDecision[];
};

/** The request size the route tester explains decisions for (query or body fields; caps keep the figures sane). */
export const RouteSizeSchema = z.object({
  /** The prompt's tokens (default 1,000). */
  prompt_tokens: z.coerce.number().int().min(0).max(10_000_000).optional(),
  /** The request's max_tokens (default: none, so 1,024 expected). */
  max_tokens: z.coerce.number().int().min(1).max(10_000_000).optional(),
});
export const DEFAULT_TESTER_PROMPT_TOKENS = 1000;

/**
 * The route tester's account of one candidate for a request of a given size (docs/routing.md, "Routing strategies"), in the
 * order the candidates would be tried now: `call` (the first called), `backup` (called if those before fail), `skip`
 * (not called: its quota is spent or its circuit is open), with `why` in a sentence and what the strategy read.
 */
export type RouteDecision = {
  provider: string;
  action: 'call' | 'backup' | 'skip';
  why: string;
  /** The strategy of the rule that listed it (null: a rule without one, an app rule or the default provider). */
  strategy: 'ordered' | 'cheapest' | 'fastest' | 'balanced' | null;
  /** This request's estimated price there (null: no price known, or the strategy reads none). */
  estimated_cost_usd: number | null;
  /** The expected time to answer it there (null: nothing measured recently, or the strategy reads none). */
  expected_ms: number | null;
  latency: {
    source: 'traffic' | 'health_check';
    ttfb_ms: number;
    tokens_per_s: number | null;
    samples: number;
    age_s: number;
  } | null;
  quota: {
    requests_left: number;
    requests_limit: number;
    tokens_left: number;
    read_at: string | null;
    blocked_until: string | null;
  } | null;
};

/** Where a limit in force comes from (docs/gateway.md, "Limits"). */
export type LimitSource =
  /** set in config.json, at `field` */
  | 'config'
  /** the gateway key's or PAT's own limit (gateway-keys.json, `switchboard keys create --rpm …`) */
  | 'key'
  /** not set anywhere: the gateway-mode default (GATEWAY_LIMIT_DEFAULTS) */
  | 'gateway_default'
  /** not set anywhere, local mode: no limit */
  | 'unset'
  /** limits.enabled is false */
  | 'disabled';

/** One limit in force for a scope. */
export type LimitInForce = {
  /** 0: no limit. */
  value: number;
  source: LimitSource;
  /** The config.json field that sets it (source config), or the one that would (unset, gateway_default, disabled);
   * for source key, the field inside the key's record in gateway-keys.json. */
  field: string;
};

/** The limits in force for one scope: an app (local mode) or a credential (gateway mode). */
export type ScopeLimits = {
  /** "app:<name>", "key:<name>", "pat:<name>", "jwt:<sub>"; "*" for every scope without an entry of its own. */
  scope: string;
  rpm: LimitInForce;
  tpm: LimitInForce;
  concurrency: LimitInForce;
};

/** The admin status's `limits`: the mode, why, and each scope's effective values. */
export type LimitsStatus = {
  mode: 'local' | 'gateway';
  /** Why this mode, in words (e.g. "gateway.enabled is true", "bound to 127.0.0.1 and gateway.enabled is false"). */
  mode_reason: string;
  enabled: boolean;
  /** What a scope is: each calling app (local mode) or each credential (gateway mode). */
  scope_kind: 'app' | 'credential';
  window_ms: number;
  /** Every app (local) or credential (gateway) without an entry of its own. */
  default: ScopeLimits;
  /** Scopes with entries of their own: limits.per_app (local); limits.per_key and keys' own limits (gateway). */
  scopes: ScopeLimits[];
};

export type StatusResponse = {
  version: string;
  /** The port Switchboard listens on now (with `serve --port`, that port; else config.json's listen_port). */
  listen_port: number;
  /**
   * True when this run's port was given with `serve --port` (or the desktop shell's equivalent), which overrides
   * config.json's listen_port until a start without it; absent from older servers.
   */
  listen_port_pinned?: boolean;
  config_path: string;
  config_error: string[] | null;
  paused: boolean;
  providers: ProviderStatus[];
  routing: Config['routing'];
  app_rules: Config['app_rules'];
  recent_logs: RequestLogEntry[];
  limits: LimitsStatus;
  /** Where the team gateway's shared state lives (docs/team.md, "Shared state"); absent from older servers. */
  store?: StoreStatus;
  /**
   * Where the agent API's state lives (docs/team.md, "Agents across instances"): embedded (the WAL) or the team's Redis,
   * whether it is up, and what an acknowledged change survives there; absent from older servers.
   */
  agent_store?: AgentStoreStatus;
  /**
   * Requests are being served by routing.offline's local providers because every provider of their route is out of
   * reach (docs/routing.md, "Offline fallback"): since when, and what the last one said; null when not; absent from older servers.
   */
  offline?: { since: string; detail: string } | null;
};

export type AgentStoreStatus = StoreStatus & {
  durability: {
    level: 'fsync' | 'os-crash-loses-1s' | 'replica' | 'snapshot' | 'none' | 'unknown';
    text: string;
  };
  /** Redis: this instance's name (leases say which instance holds a task). */
  instance?: string;
};

/** The admin status's `store`: embedded (this process), or Redis and whether it is up, since when. */
export type StoreStatus = {
  kind: 'embedded' | 'redis';
  /** Embedded: always true. Redis: whether the connection is up (while down, limits are counted per instance). */
  up: boolean;
  /**
   * When `state` last changed (ISO time): when the store went up or down, or (the gateway's) its breaker opened or
   * closed.
   */
  since: string;
  /** The Redis URL with its password masked (Redis only). */
  url?: string;
  /**
   * Redis (issue 36): `up`; `down` (not connected); `slow` (connected, but its calls failed or ran past the store's
   * timeout: the gateway's breaker is open and answers locally while it probes). Absent from older servers.
   */
  state?: 'up' | 'down' | 'slow';
  /** Redis: whether this process has reached Redis since it started (false: never, e.g. a wrong URL). */
  reached?: boolean;
  /** The gateway's store: whether limits and keys are being answered locally now (down or slow). */
  fail_open?: boolean;
};

// --- config.json backups (docs/config.md, "Config backups") ---

/** Why a backup was kept: the config it holds was replaced by a save (admin API, UI), a restore, an edit of the file
 * picked up by the watcher (by hand or another program), or the start-up upgrade of an older file. */
export const ConfigBackupReasonSchema = z.enum(['save', 'restore', 'edit', 'upgrade']);
export type ConfigBackupReason = z.infer<typeof ConfigBackupReasonSchema>;

/** One backup, summarised: never its keys. */
export const ConfigBackupInfoSchema = z.strictObject({
  id: z.string().regex(CONFIG_BACKUP_ID_RE),
  /** When it was kept (the time the config it holds was replaced), ISO 8601. */
  saved_at: z.string(),
  reason: ConfigBackupReasonSchema,
  /** Bytes. */
  size: z.number().int().min(0),
  /** Whether it is a valid config (a restore of one that is not is refused). */
  valid: z.boolean(),
  providers: z.number().int().min(0),
  provider_names: z.array(z.string()),
  rules: z.number().int().min(0),
  /** Set when the file was not read (a symbolic link, not a regular file, over 4 MB): why. It cannot be restored. */
  problem: z.string().optional(),
});
export type ConfigBackupInfo = z.infer<typeof ConfigBackupInfoSchema>;

/** `GET /admin/v1/config/backups`: newest first. */
export const ConfigBackupListSchema = z.strictObject({
  dir: z.string(),
  /** How many backups are kept whatever their age (the newest); older ones are kept one a day for `days` days. */
  keep: z.number().int().min(1),
  /** Past the newest `keep`, the newest backup of each day is kept this many days (absent from older servers). */
  days: z.number().int().min(0).optional(),
  /** Never more than this many (absent from older servers). */
  max: z.number().int().min(1).optional(),
  /** The policy in words: "the newest 20, then one a day for 30 days (100 at most)". */
  policy: z.string().optional(),
  data: z.array(ConfigBackupInfoSchema),
});
export type ConfigBackupList = z.infer<typeof ConfigBackupListSchema>;

/** `GET /admin/v1/config/backups/:id`: the summary and the config it holds, keys masked as GET /config masks them. */
export const ConfigBackupDocumentSchema = ConfigBackupInfoSchema.extend({ config: z.unknown() });
export type ConfigBackupDocument = z.infer<typeof ConfigBackupDocumentSchema>;

/**
 * What a save or restore that changed listen_port (or listen_host) did to the port Switchboard listens on: `moved`
 * (it listens on the new port now, answered once bound; the old port is released), `next_start` (this run's port was
 * given with `serve --port`, so listen_port applies at the next start without it) or `failed` (the new port could
 * not be bound; the old one stays). `ui_url`: the UI at the port now listened on, as the caller reached it (no token).
 */
export const ListenChangeSchema = z.strictObject({
  outcome: z.enum(['moved', 'next_start', 'failed']),
  /** The port Switchboard listens on after the save. */
  port: z.number().int(),
  /** The port it listened on before. */
  previous_port: z.number().int(),
  /** listen_port as saved in config.json. */
  listen_port: z.number().int(),
  ui_url: z.string(),
  message: z.string(),
  /** After a move: each tool Connect had pointed at the old port, rewritten to the new one or left (and why). */
  tools: z.array(PortFollowSchema).optional(),
});
export type ListenChange = z.infer<typeof ListenChangeSchema>;

/** `PUT /admin/v1/config`: the config as saved (keys masked), and the backup of the one it replaced. */
export const ConfigSaveResultSchema = z.strictObject({
  path: z.string(),
  config: z.unknown(),
  error: z.null(),
  /** The backup of the config this save replaced; null when nothing changed. */
  backup: ConfigBackupInfoSchema.nullable(),
  /** Said when the save left no providers where there were some: how to get them back. */
  warning: z.string().optional(),
  /** What the saved config does that is likely not meant (configWarnings in shared/config.ts): saved anyway. */
  warnings: z.array(z.strictObject({ path: z.string(), value: z.unknown(), message: z.string() })),
  /** Present when the save changed listen_port or listen_host: what happened to the port (ListenChangeSchema). */
  listen: ListenChangeSchema.optional(),
  /**
   * Present with the Redis store (a team of instances): config.json is per instance, so this save changed this
   * instance's copy only (issue 36's decision; docs/team.md). The UI says it on every save.
   */
  team_note: z.string().optional(),
});
export type ConfigSaveResult = z.infer<typeof ConfigSaveResultSchema>;

/** `POST /admin/v1/config/backups/:id/restore`: the config now in force (keys masked), what was restored, and the
 * backup of the config the restore replaced (null when it was the same bytes). */
export const ConfigRestoreResultSchema = z.strictObject({
  path: z.string(),
  config: z.unknown(),
  error: z.null(),
  restored: ConfigBackupInfoSchema,
  backup: ConfigBackupInfoSchema.nullable(),
  /** Present when the restore changed listen_port or listen_host (ListenChangeSchema). */
  listen: ListenChangeSchema.optional(),
});
export type ConfigRestoreResult = z.infer<typeof ConfigRestoreResultSchema>;
