// config.json: the zod schema every reader and writer shares (engine, CLI, desktop shell, UI), with defaults.
import { BudgetSchema, NOTIFICATION_DEFAULTS, NotificationsConfigSchema, PriceOverrideSchema } from './usage.ts';
import { USAGE_DEFAULTS, UsageConfigSchema } from './usage.ts';
import { z } from 'zod';
import { bareAppName } from './app-name.ts';
import { CAPTURE_DEFAULTS, CaptureConfigSchema, SECRET_GUARD_DEFAULTS, SecretGuardConfigSchema } from './insight.ts';

export const PROVIDER_TYPES = ['openai', 'anthropic', 'gemini', 'ollama'] as const;
export type ProviderType = (typeof PROVIDER_TYPES)[number];

const httpUrl = z.string().refine((v) => {
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}, 'must be a full http:// or https:// address, e.g. "https://api.openai.com/v1" or "http://127.0.0.1:8080/v1"');

const positiveMs = z.number().int().min(1, 'must be a positive number of milliseconds');

/** The wire formats a provider can declare in `native_formats` (besides its type's own). */
export const NATIVE_FORMATS = ['responses'] as const;

export const TimeoutsSchema = z.strictObject({
  connect_ms: positiveMs.default(5_000),
  first_byte_ms: positiveMs.default(120_000),
  idle_ms: positiveMs.default(120_000),
});
export type Timeouts = z.infer<typeof TimeoutsSchema>;

export const ProviderSchema = z
  .strictObject({
    name: z
      .string()
      .min(1, 'must not be empty')
      .regex(/^[A-Za-z0-9._-]+$/, 'may use letters, digits, ".", "_" and "-" only (it appears in headers and logs)'),
    base_url: httpUrl,
    api_key: z.string().default(''),
    /**
     * A pool of keys for the same account or several (docs/routing.md, "Key pools"): each may be `env:NAME`. A session is pinned
     * to one key; a key answering 401, 403 or 429 is benched and its sessions move. Set this or api_key, not both.
     */
    api_keys: z
      .array(
        z
          .string()
          .min(1, 'must not be empty (a key, or "env:NAME")')
          .max(4096, 'is longer than any API key (4,096 characters at most)'),
      )
      .min(1, 'must list at least one key (or leave api_keys out and set api_key)')
      .max(64, 'lists more than 64 keys')
      .optional(),
    enabled: z.boolean().default(true),
    type: z.enum(PROVIDER_TYPES).optional(),
    headers: z.record(z.string(), z.string()).optional(),
    timeouts: TimeoutsSchema.partial().optional(),
    /**
     * Wire formats the provider serves natively besides its type's own, whose requests then pass through to it
     * untranslated (docs/formats.md, "Wire formats"). Today only "responses": POST <base_url>/responses (<base_url>/v1/responses
     * for type ollama), as OpenRouter, Ollama, vLLM and LM Studio serve. Left out, only api.openai.com is taken to serve
     * it; [] says this provider does not.
     */
    native_formats: z
      .array(z.enum(NATIVE_FORMATS, { message: 'the only format a provider can declare today is "responses"' }))
      .optional(),
  })
  .superRefine((p, ctx) => {
    if (p.api_keys !== undefined && p.api_key !== '')
      ctx.addIssue({
        code: 'custom',
        path: ['api_keys'],
        message: 'and api_key are both set: put every key in api_keys and leave api_key out (or "")',
      });
    // Masked keys (the admin API's copy, checked by the UI before a save) may share a mask: only keys in full count.
    const full = (p.api_keys ?? []).filter((k) => !isMaskedKey(k));
    if (new Set(full).size !== full.length)
      ctx.addIssue({ code: 'custom', path: ['api_keys'], message: 'lists a key twice' });
  });
export type ProviderConfig = z.infer<typeof ProviderSchema>;

/**
 * Offline and outage fallback (docs/routing.md, "Offline fallback"): when every provider of a route fails as unreachable (cannot
 * connect, DNS, timeout, circuit open, 5xx or 529), the request goes to these local providers, its model renamed by the
 * first glob of `model_map` that matches it (a model no glob matches is not served locally).
 */
export const OfflineSchema = z.strictObject({
  enabled: z.boolean().default(false),
  providers: z.array(z.string().min(1, 'must name a provider')).max(16, 'lists more than 16 providers').default([]),
  model_map: z
    .record(
      z.string().min(1, 'must be a glob on the model name').max(200, 'is longer than 200 characters'),
      z.string().min(1, 'must name the local model').max(200, 'is longer than 200 characters'),
    )
    .refine((m) => Object.keys(m).length <= 100, 'maps more than 100 patterns')
    .default({}),
  /**
   * Each local model's context window in tokens: a request that does not fit is refused naming the model and the
   * tokens (never truncated), and an Ollama provider is sent `num_ctx` for the request's size up to it.
   */
  context_windows: z
    .record(
      z.string().min(1, 'must name a local model').max(200, 'is longer than 200 characters'),
      z.number().int().min(512, 'must be at least 512 tokens').max(10_000_000, 'must be at most 10,000,000 tokens'),
    )
    .refine((m) => Object.keys(m).length <= 100, 'names more than 100 models')
    .optional(),
});
export type OfflineConfig = z.infer<typeof OfflineSchema>;

/**
 * How a rule's providers are tried (docs/routing.md, "Routing strategies"): absent, in listed order as always; `ordered`, in
 * listed order skipping a provider whose upstream rate-limit headers say its window is spent; `cheapest`, `fastest`
 * and `balanced` reorder them per request (by price, by measured speed, by both), skipping spent ones too.
 */
export const STRATEGIES = ['ordered', 'cheapest', 'fastest', 'balanced'] as const;
export type Strategy = (typeof STRATEGIES)[number];

/**
 * A routing rule: a glob on the model name, and where its requests go: `providers`, an ordered list (the first is
 * the primary, the rest its backups, tried in order), or `provider`, one name (a list of one; older files, and what
 * the UI writes for a rule with one provider). Exactly one of the two. `strategy` chooses among them per request.
 */
export const RuleSchema = z
  .strictObject({
    pattern: z.string().min(1, 'must not be empty (use "*" to match every model)'),
    provider: z.string().min(1, 'must name a provider').optional(),
    providers: z
      .array(z.string().min(1, 'must name a provider'))
      .min(1, 'must list at least one provider (the first is the primary, the rest its backups)')
      .optional(),
    strategy: z
      .enum(STRATEGIES, {
        message:
          'must be "ordered" (the list, skipping spent quotas), "cheapest", "fastest" or "balanced"; leave it out for the list as it is',
      })
      .optional(),
    /**
     * A stream cut after its text started is continued on the next provider (docs/routing.md, "Mid-stream continuation").
     * Off by default.
     */
    continue_on_cut: z.boolean().optional(),
  })
  .superRefine((r, ctx) => {
    if (r.provider !== undefined && r.providers !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['providers'],
        message:
          'is set and so is provider: give the ordered list in providers only (a single provider may stay in provider)',
      });
    else if (r.provider === undefined && r.providers === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['provider'],
        message: 'must name a provider (or list several in providers: the first is the primary, the rest its backups)',
      });
    const list = r.providers ?? [];
    list.forEach((name, i) => {
      if (list.indexOf(name) !== i)
        ctx.addIssue({
          code: 'custom',
          path: ['providers', i],
          message: `names "${name}" twice; list each provider once`,
        });
    });
  });
export type RoutingRule = z.infer<typeof RuleSchema>;

/** A rule's providers in order (primary first): its `providers`, or its one `provider`. */
export function ruleProviders(rule: { provider?: string; providers?: string[] }): string[] {
  return rule.providers ?? (rule.provider !== undefined ? [rule.provider] : []);
}

/** A rule as the UI writes it: `provider` for one, `providers` for an ordered list of several. */
export function ruleWith(pattern: string, providers: string[]): RoutingRule {
  return providers.length === 1 ? { pattern, provider: providers[0]! } : { pattern, providers };
}

/** Where a rule's provider at `index` of its list is in config.json (`…provider` for a single one). */
export function ruleProviderPath(rule: { providers?: string[] }, i: number, index: number): string {
  return rule.providers ? `routing.rules[${i}].providers[${index}]` : `routing.rules[${i}].provider`;
}

/** An app rule: the app's own provider (used when no routing rule matches), a model override, or both. */
export const AppRuleSchema = z
  .strictObject({
    app: z.string().min(1, 'must name an application, e.g. "code" or "cursor"'),
    default_provider: z.string().min(1, 'must name a provider (or leave the field out)').optional(),
    model_override: z.string().min(1, 'must name a model (or leave the field out)').optional(),
  })
  .refine((r) => r.default_provider !== undefined || r.model_override !== undefined, {
    path: ['default_provider'],
    message: 'is not set and neither is model_override: the rule would do nothing; set either, or remove the rule',
  });
export type AppRule = z.infer<typeof AppRuleSchema>;

/** The agent API's settings (docs/agents.md, "Agents"). */
export const ORCHESTRATOR_DEFAULTS = {
  queue_capacity: 100,
  workers: 4,
  event_retention: 10_000,
  run_window_ms: 15_000,
  sse_heartbeat_ms: 15_000,
  event_flush_ms: 50,
  http_get: { allow_private: false, allow_hosts: [] as string[], max_bytes: 1_000_000, timeout_ms: 10_000 },
  workspace_root: '',
  approvals: {} as Record<string, ApprovalPolicy>,
  approval_timeout_s: 600,
  retention: { finished_days: 30, max_finished_tasks: 10_000 },
  lease_ms: 15_000,
  wait_replicas: 0,
};

/** What happens when an agent calls a tool (docs/agents.md, "Approval"): run it, ask a person first, or refuse it. */
export const APPROVAL_POLICIES = ['auto', 'ask', 'deny'] as const;
export type ApprovalPolicy = (typeof APPROVAL_POLICIES)[number];
/** Tool name or glob (`write_file`, `github.*`, `*`) → policy; in config.json's orchestrator and in each agent. */
export const ApprovalsSchema = z.record(
  z.string().min(1, 'must name a tool or a glob, e.g. "write_file" or "github.*"').max(200),
  z.enum(APPROVAL_POLICIES, { message: 'must be "auto", "ask" or "deny"' }),
);
export const OrchestratorConfigSchema = z.strictObject({
  queue_capacity: z.number().int().min(1).max(100_000).default(ORCHESTRATOR_DEFAULTS.queue_capacity),
  workers: z.number().int().min(1).max(256).default(ORCHESTRATOR_DEFAULTS.workers),
  event_retention: z.number().int().min(1).max(10_000_000).default(ORCHESTRATOR_DEFAULTS.event_retention),
  run_window_ms: z.number().int().min(0).default(ORCHESTRATOR_DEFAULTS.run_window_ms),
  sse_heartbeat_ms: z.number().int().min(100).default(ORCHESTRATOR_DEFAULTS.sse_heartbeat_ms),
  /** Output and thinking deltas go to the WAL at most this often, several per record (0: one record per delta). */
  event_flush_ms: z.number().int().min(0).max(1000).default(ORCHESTRATOR_DEFAULTS.event_flush_ms),
  http_get: z
    .strictObject({
      allow_private: z.boolean().default(false),
      allow_hosts: z.array(z.string().min(1)).default([]),
      max_bytes: z.number().int().min(1).default(1_000_000),
      timeout_ms: z.number().int().min(1).default(10_000),
    })
    .default(ORCHESTRATOR_DEFAULTS.http_get),
  workspace_root: z.string().default(''),
  approvals: ApprovalsSchema.default({}),
  approval_timeout_s: z.number().int().min(1).max(604_800).default(ORCHESTRATOR_DEFAULTS.approval_timeout_s),
  /**
   * How long finished work is kept: finished tasks, workflow runs and swarm tasks, and threads without a change, for
   * `finished_days` (0: no limit); and at most the last `max_finished_tasks` finished tasks (0: no cap).
   */
  retention: z
    .strictObject({
      finished_days: z.number().min(0).max(36_500).default(ORCHESTRATOR_DEFAULTS.retention.finished_days),
      max_finished_tasks: z
        .number()
        .int()
        .min(0)
        .max(10_000_000)
        .default(ORCHESTRATOR_DEFAULTS.retention.max_finished_tasks),
    })
    .default(ORCHESTRATOR_DEFAULTS.retention),
  /**
   * Store "redis": how long an instance holds a task, workflow run or swarm task without renewing it before another
   * instance takes it over (renewed every third of it while the instance lives).
   */
  lease_ms: z.number().int().min(300).max(600_000).default(ORCHESTRATOR_DEFAULTS.lease_ms),
  /** Store "redis": every change waits for this many replicas to have it (Redis WAIT) before it is acknowledged. */
  wait_replicas: z.number().int().min(0).max(10).default(ORCHESTRATOR_DEFAULTS.wait_replicas),
});
export type OrchestratorConfig = z.infer<typeof OrchestratorConfigSchema>;

/**
 * `mcp_servers` (docs/agents.md, "MCP tools"): by name, a stdio server ({command, args, env, cwd}) or a streamable HTTP one
 * ({url, headers}). Names become the prefix of their tools (`fs.read_file`, `fs__read_file` on the wire), so they
 * take letters, digits, "-" and single "_" only.
 */
export const MCP_SERVER_NAME = /^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$/;
export const MCP_DEFAULTS = { idle_timeout_s: 300, call_timeout_s: 60 };
/** An MCP server's URL: http(s), checked with each `${VAR}` standing for its default (or a host). */
const mcpUrl = z
  .string()
  .refine(
    (v) =>
      httpUrl.safeParse(
        v.replace(/\$\{(?:env:)?[A-Za-z_][A-Za-z0-9_]*(?::-([^}]*))?\}/g, (_m, d?: string) => d ?? 'http://x'),
      ).success,
    'must be a full http:// or https:// address, e.g. "http://127.0.0.1:3001/mcp" (${VAR} references are allowed)',
  );
export const McpServerSchema = z
  .strictObject({
    command: z.string().min(1, 'must name the program to start, e.g. "npx"').optional(),
    args: z.array(z.string()).optional(),
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().min(1).optional(),
    url: mcpUrl.optional(),
    headers: z.record(z.string(), z.string()).optional(),
    /**
     * The variables of Switchboard's environment this server may have: its `${VAR}` references expand only for these,
     * and a stdio server's environment gets them. A provider key's variable is refused even when listed.
     */
    env_passthrough: z
      .array(
        z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'must be an environment variable name, e.g. "GITHUB_TOKEN"'),
      )
      .max(64)
      .optional(),
    enabled: z.boolean().default(true),
    /** Stop the server after this long without a call (0: keep it running until Switchboard stops). */
    idle_timeout_s: z.number().int().min(0).default(MCP_DEFAULTS.idle_timeout_s),
    /** A call that takes longer is cancelled and the model told so. */
    call_timeout_s: z.number().int().min(1).max(86_400).default(MCP_DEFAULTS.call_timeout_s),
    /** Every tool of this server only reads: approval policy `auto` by default, as a tool marked readOnlyHint. */
    read_only: z.boolean().default(false),
  })
  .superRefine((s, ctx) => {
    if ((s.command === undefined) === (s.url === undefined))
      ctx.addIssue({
        code: 'custom',
        path: ['command'],
        message: 'a server needs either "command" (a program started over stdio) or "url" (streamable HTTP), not both',
      });
    if (s.url !== undefined)
      for (const f of ['args', 'env', 'cwd'] as const)
        if (s[f] !== undefined)
          ctx.addIssue({ code: 'custom', path: [f], message: 'applies to a "command" server only, not a "url" one' });
    if (s.command !== undefined && s.headers !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['headers'],
        message: 'applies to a "url" server only, not a "command" one',
      });
  });
export type McpServerConfig = z.infer<typeof McpServerSchema>;
export const McpServersSchema = z.record(z.string(), McpServerSchema).superRefine((servers, ctx) => {
  for (const name of Object.keys(servers))
    if (name.length > 32 || !MCP_SERVER_NAME.test(name))
      ctx.addIssue({
        code: 'custom',
        path: [name],
        message:
          'is not a usable server name: at most 32 letters, digits, "-" and single "_" (it prefixes its tools\' names)',
      });
});

/**
 * Rate limits (docs/gateway.md, "Limits"). A value left out means "no limit" in local mode and GATEWAY_LIMIT_DEFAULTS in
 * gateway mode; 0 always means "no limit". `per_app` applies to calling apps (local mode), `per_key` to credentials.
 */
const limitValue = z.number().int().min(0, 'must be 0 (no limit) or a positive whole number');
export const LimitValuesSchema = z.strictObject({
  rpm: limitValue.optional(),
  tpm: limitValue.optional(),
  concurrency: limitValue.optional(),
});
export type LimitValues = z.infer<typeof LimitValuesSchema>;
export const LIMIT_NAMES = ['rpm', 'tpm', 'concurrency'] as const;
export type LimitName = (typeof LIMIT_NAMES)[number];
/** What each credential gets in gateway mode when config.json sets nothing (the hosted gateway's limits). */
export const GATEWAY_LIMIT_DEFAULTS: Readonly<Record<LimitName, number>> = { rpm: 60, tpm: 100_000, concurrency: 10 };
export const LIMITS_DEFAULTS = { enabled: true, window_ms: 60_000, per_app: {}, per_key: {} };
export const LimitsConfigSchema = z.strictObject({
  enabled: z.boolean().default(true),
  rpm: limitValue.optional(),
  tpm: limitValue.optional(),
  concurrency: limitValue.optional(),
  /** The "minute" of RPM and TPM (shorter only in tests). */
  window_ms: z.number().int().min(100).default(60_000),
  per_app: z.record(z.string(), LimitValuesSchema).default({}),
  per_key: z.record(z.string(), LimitValuesSchema).default({}),
});
export type LimitsConfig = z.infer<typeof LimitsConfigSchema>;
/** The shortest HMAC secret per JWT algorithm, in bytes: at least the hash's size (RFC 7518 §3.2). */
export const JWT_HMAC_MIN_BYTES = { HS256: 32, HS384: 48, HS512: 64 } as const;
/** gateway.jwt.max_lifetime_s by default: a JWT may live a day at most (exp - iat). */
export const JWT_MAX_LIFETIME_DEFAULT_S = 86_400;
export const JWT_SECRET_FIX = 'make one with `openssl rand -base64 48`, or give it as env:NAME';
const jwtSecret = z
  .string()
  .refine((s) => s === '' || s.startsWith('env:') || new TextEncoder().encode(s).length >= JWT_HMAC_MIN_BYTES.HS256, {
    message:
      `must be at least ${JWT_HMAC_MIN_BYTES.HS256} bytes (HS256; ${JWT_HMAC_MIN_BYTES.HS384} for HS384, ` +
      `${JWT_HMAC_MIN_BYTES.HS512} for HS512): a shorter secret is guessed offline in moments; ${JWT_SECRET_FIX}`,
  });
/** Gateway mode (docs/gateway.md, "Gateway mode"): keys required; JWTs verified with `jwt.secret` or `jwt.public_key`. */
export const GatewayConfigSchema = z.strictObject({
  enabled: z.boolean().default(false),
  jwt: z
    .strictObject({
      secret: jwtSecret.optional(),
      public_key: z.string().optional(),
      issuer: z.string().optional(),
      audience: z.string().optional(),
      max_lifetime_s: z.number().int().min(60).max(31_536_000).default(JWT_MAX_LIFETIME_DEFAULT_S),
    })
    .optional(),
});

/**
 * Where the team gateway's shared state lives (docs/team.md, "Shared state"): in this process (embedded, the default) or in
 * Redis, shared by every instance pointed at it. SWITCHBOARD_REDIS_URL, when set, wins over this field (see
 * `effectiveStore`).
 */
export const STORE_DEFAULT_PREFIX = 'switchboard:';
const redisUrl = z.string().refine((v) => {
  try {
    const u = new URL(v);
    return u.protocol === 'redis:' || u.protocol === 'rediss:';
  } catch {
    return false;
  }
}, 'must be a redis:// or rediss:// address, e.g. "redis://127.0.0.1:6379" or "rediss://:password@redis.internal:6380/0"');
/**
 * Redis's budget on the hot path (issue 36): each call (an admission, a key looked up…) has `timeout_ms` to answer;
 * after `trip_after` calls in a row that failed or ran out of time, the instance answers locally (fail-open) and
 * probes Redis every `probe_ms` until it answers quickly again.
 */
export const STORE_BUDGET_DEFAULTS = { timeout_ms: 50, trip_after: 3, probe_ms: 250 } as const;
export const StoreConfigSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('embedded') }),
  z.strictObject({
    kind: z.literal('redis'),
    url: redisUrl,
    prefix: z
      .string()
      .min(1, 'must not be empty (instances sharing a prefix share state; the default is "switchboard:")')
      .max(64)
      .default(STORE_DEFAULT_PREFIX),
    timeout_ms: z
      .number()
      .int()
      .min(1)
      .max(10_000, 'must be at most 10000 (a call on the request path; tens of ms is usual)')
      .default(STORE_BUDGET_DEFAULTS.timeout_ms),
    trip_after: z.number().int().min(1).max(100).default(STORE_BUDGET_DEFAULTS.trip_after),
    probe_ms: z.number().int().min(10).max(60_000).default(STORE_BUDGET_DEFAULTS.probe_ms),
  }),
]);
type ParsedRedisStore = Extract<z.infer<typeof StoreConfigSchema>, { kind: 'redis' }>;
/** A Redis store's config; its budget fields may be absent (an object made in code: the defaults apply). */
export type RedisStoreConfig = Omit<ParsedRedisStore, keyof typeof STORE_BUDGET_DEFAULTS> &
  Partial<Pick<ParsedRedisStore, keyof typeof STORE_BUDGET_DEFAULTS>>;
export type StoreConfig = { kind: 'embedded' } | RedisStoreConfig;
/**
 * The store this process uses: SWITCHBOARD_REDIS_URL (when set and not empty) replaces config.json's `store.url`
 * and turns Redis on even when config.json says embedded; the prefix comes from config.json when it has one.
 * The environment wins so one config.json can be deployed to every instance with the secret kept out of it.
 */
export function effectiveStore(cfg: StoreConfig, envUrl: string | undefined): StoreConfig {
  if (envUrl === undefined || envUrl.trim() === '') return cfg;
  if (cfg.kind === 'redis') return { ...cfg, url: envUrl.trim() };
  return { kind: 'redis', url: envUrl.trim(), prefix: STORE_DEFAULT_PREFIX, ...STORE_BUDGET_DEFAULTS };
}
/** The environment variables config.json's `env:NAME` values name: providers' keys, the gateway's JWT keys. */
export function envReferences(config: Pick<Config, 'providers' | 'gateway'>): string[] {
  const values = [
    ...config.providers.flatMap((p) => [p.api_key, ...(p.api_keys ?? []), ...Object.values(p.headers ?? {})]),
    config.gateway.jwt?.secret,
    config.gateway.jwt?.public_key,
  ];
  return values.filter((v): v is string => typeof v === 'string' && v.startsWith('env:')).map((v) => v.slice(4));
}

/**
 * config.json's Redis URL as the admin API shows it: the password replaced by "****" (the user name kept: it is not a
 * secret). Sent back that way, the stored password is kept (restoreRedisPassword), whatever else of the URL changed.
 */
export function maskRedisPassword(url: string): string {
  try {
    const u = new URL(url);
    if (!u.password) return url;
    u.password = '****';
    return u.toString();
  } catch {
    return url;
  }
}

/** The URL's password, decoded (null: none, or not a URL). */
export function redisPassword(url: string): string | null {
  try {
    const p = new URL(url).password;
    return p ? decodeURIComponent(p) : null;
  } catch {
    return null;
  }
}

/** Whether the URL's password is the mask "****" (as maskRedisPassword shows it). */
export function isMaskedRedisPassword(url: string): boolean {
  try {
    return new URL(url).password === '****';
  } catch {
    return false;
  }
}

/** `given` with the stored URL's password in place of "****" (null: `given` is not masked, or nothing to restore). */
export function restoreRedisPassword(given: string, stored: string): string | null {
  try {
    const g = new URL(given);
    const s = new URL(stored);
    if (g.password !== '****' || !s.password) return null;
    g.password = s.password;
    return g.toString();
  } catch {
    return null;
  }
}

/** A Redis URL fit for logs and status: the password (and user) replaced by "****". */
export function redactRedisUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '****';
    if (u.username) u.username = '****';
    return u.toString();
  } catch {
    return 'redis://(unparseable url)';
  }
}

/** What a model can do, in Ollama's words (/api/show `capabilities`). */
export const MODEL_CAPABILITIES = ['completion', 'tools', 'vision', 'thinking', 'insert', 'embedding'] as const;
export type ModelCapability = (typeof MODEL_CAPABILITIES)[number];

const paramName = z.string().min(1, 'must name a request field in OpenAI chat\'s words, e.g. "max_tokens"');
/**
 * One entry of the provider/model quirks table (docs/formats.md, "Provider and model quirks"; built-in entries:
 * main/proxy/quirks-table.ts). config.json's entries come before the built-in ones; each request field is taken from
 * the first matching entry that sets it, capabilities with context_length from the first that states either.
 */
export const QuirkEntrySchema = z.strictObject({
  match: z.strictObject({
    /** A glob on the routed model (and on its last path segment); default "*". */
    model: z.string().min(1, 'must not be empty (use "*" for every model)').optional(),
    /** A glob on the provider's name. */
    provider: z.string().min(1).optional(),
    type: z.enum(PROVIDER_TYPES).optional(),
    /** A glob on the provider's base_url host (or the host quirks.provider_hosts gives it). */
    host: z.string().min(1).optional(),
  }),
  /** Fields sent under another name, e.g. {"max_tokens": "max_completion_tokens"}. */
  rename: z.record(paramName, paramName).optional(),
  /** Fields never sent. */
  drop: z.array(paramName).optional(),
  /** Fields this model takes only at this value: another value is dropped. */
  fixed: z.record(paramName, z.union([z.number(), z.string(), z.boolean(), z.null()])).optional(),
  /** Fields dropped while reasoning_effort is set and not "none". */
  drop_when_reasoning: z.array(paramName).optional(),
  /** true: the model takes reasoning_effort; false: it does not reason (reasoning fields dropped). */
  reasoning_effort: z.boolean().optional(),
  /**
   * true: the provider reads Anthropic-style prompt-cache markers (`cache_control` on text parts) in OpenAI-format
   * messages (OpenRouter, DashScope), so a translated request keeps them; false or absent: they are taken out and named.
   */
  cache_control: z.boolean().optional(),
  capabilities: z.array(z.enum(MODEL_CAPABILITIES)).optional(),
  context_length: z.number().int().min(1, 'must be a positive number of tokens').optional(),
  /** Free text: why the entry exists. */
  note: z.string().optional(),
});
export type QuirkEntry = z.infer<typeof QuirkEntrySchema>;
export const QuirksConfigSchema = z.strictObject({
  /** Provider name → the host its requests are matched as (a gateway or proxy in front of e.g. api.openai.com). */
  provider_hosts: z.record(z.string(), z.string().min(1, 'must be a host name, e.g. "api.openai.com"')).default({}),
  entries: z.array(QuirkEntrySchema).default([]),
});
export type QuirksConfig = z.infer<typeof QuirksConfigSchema>;

/** The HTTP server's own guards (docs/SECURITY.md, "Security"): a cap on open connections, and how long a body may pause. */
export const SERVER_DEFAULTS = { max_connections: 2048, body_idle_timeout_ms: 30_000 } as const;

/**
 * One entry of `allowed_origins`: a browser origin (scheme://host[:port], no path) that may call the proxy routes and
 * the agent API, with CORS granted; `*` matches any run of characters ("vscode-webview://*", "http://localhost:*").
 */
const allowedOrigin = z
  .string()
  .refine((o) => o.toLowerCase() !== 'null', {
    message: 'cannot be "null": sandboxed frames and data: pages of any site send Origin: null',
  })
  .refine((o) => o === '*' || o.toLowerCase() === 'null' || /^[a-z][a-z0-9+.-]*:\/\/[^/?#\s]+$/i.test(o), {
    message: 'must be an origin: scheme://host[:port] without a path, e.g. "app://obsidian.md" or "vscode-webview://*"',
  });

/**
 * One entry of `allowed_hosts`: a host name the proxy routes and the agent API answer to in local mode besides this
 * machine's own (docs/SECURITY.md, "Security"), e.g. "host.docker.internal"; ".example.lan" also takes every name under it.
 */
const allowedHost = z
  .string()
  .max(253)
  .regex(
    /^\.?[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/,
    'must be a host name (no port, no scheme), e.g. "host.docker.internal", or ".example.lan" for every name under it',
  );

export const ConfigSchema = z
  .strictObject({
    listen_port: z
      .number()
      .int('must be a whole number')
      .min(1, 'must be between 1 and 65535')
      .max(65535, 'must be between 1 and 65535')
      .default(11434),
    listen_host: z.string().min(1).default('127.0.0.1'),
    log_requests: z.boolean().default(true),
    start_on_login: z.boolean().default(false),
    providers: z.array(ProviderSchema).default([]),
    routing: z
      .strictObject({
        default_provider: z.string().default(''),
        rules: z.array(RuleSchema).default([]),
        offline: OfflineSchema.optional(),
      })
      .default({ default_provider: '', rules: [] }),
    app_rules: z.array(AppRuleSchema).default([]),
    timeouts: TimeoutsSchema.default({ connect_ms: 5_000, first_byte_ms: 120_000, idle_ms: 120_000 }),
    circuit_breaker: z
      .strictObject({
        failure_threshold: z.number().int().min(1).default(5),
        cooldown_ms: positiveMs.default(30_000),
      })
      .default({ failure_threshold: 5, cooldown_ms: 30_000 }),
    health_check: z
      .strictObject({
        interval_ms: z.number().int().min(0, 'must be 0 (off) or a positive number of milliseconds').default(60_000),
        timeout_ms: positiveMs.default(5_000),
      })
      .default({ interval_ms: 60_000, timeout_ms: 5_000 }),
    max_body_mb: z.number().positive('must be a positive number of megabytes').default(20),
    max_connections: z
      .number()
      .int()
      .min(0, 'must be 0 (no cap) or a positive whole number')
      .default(SERVER_DEFAULTS.max_connections),
    body_idle_timeout_ms: z
      .number()
      .int()
      .min(100, 'must be at least 100 milliseconds')
      .default(SERVER_DEFAULTS.body_idle_timeout_ms),
    allowed_origins: z.array(allowedOrigin).default([]),
    allowed_hosts: z.array(allowedHost).max(100).default([]),
    log_file: z
      .strictObject({
        max_mb: z.number().positive().default(10),
        keep: z.number().int().min(1).default(3),
      })
      .default({ max_mb: 10, keep: 3 }),
    orchestrator: OrchestratorConfigSchema.default(ORCHESTRATOR_DEFAULTS),
    mcp_servers: McpServersSchema.default({}),
    limits: LimitsConfigSchema.default(LIMITS_DEFAULTS),
    gateway: GatewayConfigSchema.default({ enabled: false }),
    quirks: QuirksConfigSchema.default({ provider_hosts: {}, entries: [] }),
    usage: UsageConfigSchema.default(USAGE_DEFAULTS),
    prices: z.array(PriceOverrideSchema).default([]),
    budgets: z.array(BudgetSchema).default([]),
    notifications: NotificationsConfigSchema.default(NOTIFICATION_DEFAULTS),
    store: StoreConfigSchema.default({ kind: 'embedded' }),
    secret_guard: SecretGuardConfigSchema.default(SECRET_GUARD_DEFAULTS),
    capture: CaptureConfigSchema.default(CAPTURE_DEFAULTS),
    /** electron-store / conf bookkeeping; never read by the engine. */
    __internal__: z.unknown().optional(),
  })
  .superRefine((cfg, ctx) => {
    const names = new Set<string>();
    cfg.providers.forEach((p, i) => {
      if (names.has(p.name)) {
        ctx.addIssue({
          code: 'custom',
          path: ['providers', i, 'name'],
          message: `is used by two providers; give each provider its own name`,
        });
      }
      names.add(p.name);
    });
    const known = [...names];
    const hint = known.length ? `one of: ${known.join(', ')}` : 'add a provider to "providers" first';
    const checkRef = (name: string, path: (string | number)[], allowEmpty: boolean) => {
      if (allowEmpty && name === '') return;
      if (!names.has(name)) ctx.addIssue({ code: 'custom', path, message: `names no provider; use ${hint}` });
    };
    checkRef(cfg.routing.default_provider, ['routing', 'default_provider'], true);
    cfg.routing.rules.forEach((r, i) => {
      if (r.providers) r.providers.forEach((name, j) => checkRef(name, ['routing', 'rules', i, 'providers', j], false));
      else if (r.provider !== undefined) checkRef(r.provider, ['routing', 'rules', i, 'provider'], false);
    });
    // The offline fallback's local providers (docs/routing.md, "Offline fallback"): at least one when it is on, each a
    // provider of the list (a name no provider has would never serve).
    const offline = cfg.routing.offline;
    if (offline?.enabled && offline.providers.length === 0)
      ctx.addIssue({
        code: 'custom',
        path: ['routing', 'offline', 'providers'],
        message: 'must name at least one provider when the offline fallback is enabled',
      });
    offline?.providers.forEach((name, j) => checkRef(name, ['routing', 'offline', 'providers', j], false));
    cfg.app_rules.forEach(
      (r, i) =>
        r.default_provider !== undefined && checkRef(r.default_provider, ['app_rules', i, 'default_provider'], false),
    );
    // App names match case-folded and without a path or .exe/.app (bareAppName): a second rule for the same app
    // would never apply.
    const apps = new Map<string, number>();
    cfg.app_rules.forEach((r, i) => {
      const key = bareAppName(r.app);
      const first = apps.get(key);
      if (first === undefined) return void apps.set(key, i);
      ctx.addIssue({
        code: 'custom',
        path: ['app_rules', i, 'app'],
        message: `is the same app as app_rules[${first}] ("${cfg.app_rules[first]!.app}"): app names match without regard to case, so this rule would never apply; edit that rule instead`,
      });
    });
    for (const name of Object.keys(cfg.quirks.provider_hosts))
      checkRef(name, ['quirks', 'provider_hosts', name], false);
    cfg.prices.forEach((p, i) => p.provider !== undefined && checkRef(p.provider, ['prices', i, 'provider'], false));
    for (const name of Object.keys(cfg.secret_guard.providers))
      checkRef(name, ['secret_guard', 'providers', name], false);
  });

export type Config = z.infer<typeof ConfigSchema>;
export type ConfigInput = z.input<typeof ConfigSchema>;

/** One problem of a config, in words: where, what was there, and how to fix it. */
export type ConfigProblem = { path: string; value: unknown; message: string };

export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out || '(top level)';
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let cur: unknown = input;
  for (const part of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[part];
  }
  return cur;
}

const FIELD_NAMES = [
  'listen_port',
  'listen_host',
  'log_requests',
  'start_on_login',
  'providers',
  'routing',
  'app_rules',
  'timeouts',
  'circuit_breaker',
  'health_check',
  'max_body_mb',
  'max_connections',
  'body_idle_timeout_ms',
  'allowed_origins',
  'allowed_hosts',
  'env_passthrough',
  'log_file',
  'name',
  'base_url',
  'api_key',
  'api_keys',
  'enabled',
  'type',
  'headers',
  'default_provider',
  'rules',
  'pattern',
  'provider',
  'providers',
  'strategy',
  'continue_on_cut',
  'offline',
  'model_map',
  'context_windows',
  'app',
  'model_override',
  'connect_ms',
  'first_byte_ms',
  'idle_ms',
  'failure_threshold',
  'cooldown_ms',
  'interval_ms',
  'timeout_ms',
  'max_mb',
  'keep',
  'limits',
  'gateway',
  'rpm',
  'tpm',
  'concurrency',
  'window_ms',
  'per_app',
  'per_key',
  'jwt',
  'secret',
  'public_key',
  'issuer',
  'audience',
  'max_lifetime_s',
  'quirks',
  'provider_hosts',
  'entries',
  'match',
  'model',
  'host',
  'rename',
  'drop',
  'fixed',
  'drop_when_reasoning',
  'reasoning_effort',
  'capabilities',
  'context_length',
  'note',
  'mcp_servers',
  'command',
  'args',
  'env',
  'cwd',
  'url',
  'idle_timeout_s',
  'call_timeout_s',
  'read_only',
  'store',
  'kind',
  'prefix',
  'timeout_ms',
  'trip_after',
  'probe_ms',
  'approvals',
  'approval_timeout_s',
  'secret_guard',
  'capture',
  'max_requests',
  'days',
];

function closestField(key: string): string | undefined {
  const dist = (a: string, b: string): number => {
    const d = Array.from({ length: b.length + 1 }, (_, i) => i);
    for (let i = 1; i <= a.length; i++) {
      let prev = d[0]!;
      d[0] = i;
      for (let j = 1; j <= b.length; j++) {
        const tmp = d[j]!;
        d[j] = Math.min(d[j]! + 1, d[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
        prev = tmp;
      }
    }
    return d[b.length]!;
  };
  let best: string | undefined;
  let bestD = 3;
  for (const f of FIELD_NAMES) {
    const dd = dist(key.toLowerCase(), f);
    if (dd < bestD) {
      bestD = dd;
      best = f;
    }
  }
  return best;
}

/** Turns zod issues into problems that name the field, the value found and the fix. */
export function describeConfigIssues(issues: readonly z.core.$ZodIssue[], input: unknown): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const near = closestField(key);
        problems.push({
          path: formatPath([...issue.path, key]),
          value: valueAt(input, [...issue.path, key]),
          message: `is not a known field${near ? `; did you mean "${near}"?` : '; remove it'}`,
        });
      }
      continue;
    }
    // A secret's value is never shown (the problems go to the log and the admin API).
    const value = issue.path.at(-1) === 'secret' ? '****' : valueAt(input, issue.path);
    let message = issue.message;
    if (issue.code === 'invalid_type') {
      message =
        value === undefined
          ? `is required (expected ${issue.expected})`
          : `must be ${article(issue.expected)} ${issue.expected}`;
    } else if (issue.code === 'invalid_value' && 'values' in issue) {
      message = `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    } else if (issue.code === 'invalid_key') {
      // A record's key (a name in secret_guard.providers or .apps): what is wrong with the name, and the name.
      message = issue.issues[0]?.message ?? message;
      problems.push({ path: formatPath(issue.path), value: issue.path.at(-1), message });
      continue;
    }
    problems.push({ path: formatPath(issue.path), value, message });
  }
  return problems;
}

function article(word: string): string {
  return /^[aeiou]/i.test(word) ? 'an' : 'a';
}

export function problemToText(p: ConfigProblem): string {
  const shown = p.value === undefined ? '' : ` (found ${JSON.stringify(p.value)})`;
  return `${p.path}${shown} ${p.message}`;
}

export type ConfigParse = { ok: true; config: Config } | { ok: false; problems: ConfigProblem[] };

export function parseConfig(input: unknown): ConfigParse {
  const r = ConfigSchema.safeParse(input);
  if (r.success) return { ok: true, config: r.data };
  return { ok: false, problems: describeConfigIssues(r.error.issues, input) };
}

/** Provider header names whose values are credentials: masked like keys in the admin API, scrubbed from error texts. */
export const SECRET_HEADER_NAME = /auth|key|token|secret|signature|cookie|password/i;

/** What a masked key looks like: enough to recognise it, never enough to use it. */
export function maskKey(key: string): string {
  if (key === '') return '';
  if (key.startsWith('env:')) return key; // a reference to an environment variable is not a secret
  if (key.length <= 12) return '****';
  return `${key.slice(0, 3)}****${key.slice(-4)}`;
}

export function isMaskedKey(key: string): boolean {
  return key === '****' || /^.{3}\*{4}.{4}$/.test(key);
}

/**
 * What a valid config does that is likely not meant, said as warnings (a save goes through): a rule, an app rule or
 * the default provider naming a disabled provider (its requests go to the next candidate, or get no_route).
 */
export function configWarnings(cfg: Config): ConfigProblem[] {
  const disabled = new Set(cfg.providers.filter((p) => !p.enabled).map((p) => p.name));
  if (disabled.size === 0) return [];
  const out: ConfigProblem[] = [];
  const say = (path: string, name: string, what: string) =>
    out.push({
      path,
      value: name,
      message: `names provider "${name}", which is disabled: ${what}; enable it or pick another provider`,
    });
  if (disabled.has(cfg.routing.default_provider))
    say(
      'routing.default_provider',
      cfg.routing.default_provider,
      'it is skipped, so a model no enabled provider takes gets no_route',
    );
  cfg.routing.rules.forEach((r, i) => {
    const list = ruleProviders(r);
    list.forEach((name, j) => {
      if (!disabled.has(name)) return;
      const next = list.slice(j + 1).find((n) => !disabled.has(n));
      say(
        ruleProviderPath(r, i, j),
        name,
        next
          ? `models matching "${r.pattern}" skip it, to its backup "${next}"`
          : `models matching "${r.pattern}" skip it, to the next matching rule or the default provider`,
      );
    });
  });
  cfg.app_rules.forEach((r, i) => {
    if (r.default_provider !== undefined && disabled.has(r.default_provider))
      say(
        `app_rules[${i}].default_provider`,
        r.default_provider,
        `requests of "${r.app}" that no routing rule matches skip it, to the default provider`,
      );
  });
  return out;
}

/**
 * A config.json backup's id: the UTC time it was kept (to the millisecond) and why, e.g. `20250102-030405-123-save`.
 * Here rather than in shared/admin.ts (the backups' API) so that reading config.json does not build the admin schemas.
 */
export const CONFIG_BACKUP_ID_RE = /^\d{8}-\d{6}-\d{3}-(save|restore|edit|upgrade)$/;
