// Usage and cost (docs/usage.md, "Usage and cost"): what each request used and cost, kept in a durable store with rollups,
// prices and their overrides, budgets, and the notifications the desktop app and the admin event stream carry.
// The config.json sections are here too (wired into ConfigSchema in config.ts).
import { z } from 'zod';

// --- config.json sections ---

/** `usage`: the durable usage store (on by default; raw entries kept `raw_days`, rollups kept `rollup_days`). */
export const USAGE_DEFAULTS = { enabled: true, raw_days: 7, rollup_days: 400 };
export const UsageConfigSchema = z.strictObject({
  enabled: z.boolean().default(USAGE_DEFAULTS.enabled),
  raw_days: z.number().int().min(1, 'must keep raw entries at least 1 day').default(USAGE_DEFAULTS.raw_days),
  rollup_days: z.number().int().min(1).default(USAGE_DEFAULTS.rollup_days),
});

const perMTok = z.number().min(0, 'must be 0 or a positive price in USD per million tokens');

/**
 * One price override (a local or negotiated price): which requests it covers (a provider name, a model glob, or
 * both; the first entry that fits wins, before the price table), and USD per million tokens. `free: true` is a
 * shorthand for every price 0. Providers of type ollama, and any whose base_url is on loopback, cost 0 unless an
 * override says otherwise.
 */
export const PriceOverrideSchema = z
  .strictObject({
    provider: z.string().min(1).optional(),
    model: z.string().min(1).optional(),
    free: z.boolean().optional(),
    input: perMTok.optional(),
    output: perMTok.optional(),
    cache_read: perMTok.optional(),
    cache_write: perMTok.optional(),
    /** Cache writes kept 1 hour (Anthropic's, priced apart); default: `cache_write`. */
    cache_write_1h: perMTok.optional(),
  })
  .refine((o) => o.provider !== undefined || o.model !== undefined, {
    message: 'must name a provider, a model glob, or both',
  })
  .refine((o) => o.free === true || (o.input !== undefined && o.output !== undefined), {
    message: 'must give input and output prices (USD per million tokens), or "free": true',
  });
export type PriceOverride = z.infer<typeof PriceOverrideSchema>;

export const BUDGET_PERIODS = ['day', 'month'] as const;

/**
 * A budget: for one app or one credential (`key`; neither: everything), per calendar day or month (local time), in USD. At `warn_at` (a
 * fraction of the limit) a warning is notified once per period; at the limit, with `enforce`, requests of that scope
 * are refused (402 budget_exceeded in the client's format, naming the budget) until the period ends.
 */
export const BudgetSchema = z.strictObject({
  app: z.string().min(1).optional(),
  /**
   * Gateway mode: the credential it covers, by name (a gateway key's or PAT's `--name`, a JWT's `sub`, as
   * `limits.per_key` names them); with `app` too, that app's requests with that credential.
   */
  key: z.string().min(1).max(64, 'must be a key name of at most 64 characters').optional(),
  period: z.enum(BUDGET_PERIODS),
  limit_usd: z.number().positive('must be a positive amount in USD'),
  warn_at: z.number().gt(0).max(1, 'must be a fraction of the limit, e.g. 0.8').default(0.8),
  enforce: z.boolean().default(false),
});
export type Budget = z.infer<typeof BudgetSchema>;

/** `notifications`: which events are notified (desktop notification; `notification` events on /admin/v1/events). */
export const NOTIFICATION_DEFAULTS = {
  enabled: true,
  provider_health: true,
  failover: true,
  budgets: true,
  /** An agent's tool call waits for a person's approval (docs/agents.md, "Approval"). */
  approvals: true,
  /** The secret guard sent a request holding a secret (policy "warn"). */
  secret_guard: true,
  min_interval_ms: 60_000,
};
export const NotificationsConfigSchema = z.strictObject({
  enabled: z.boolean().default(NOTIFICATION_DEFAULTS.enabled),
  provider_health: z.boolean().default(NOTIFICATION_DEFAULTS.provider_health),
  failover: z.boolean().default(NOTIFICATION_DEFAULTS.failover),
  budgets: z.boolean().default(NOTIFICATION_DEFAULTS.budgets),
  approvals: z.boolean().default(NOTIFICATION_DEFAULTS.approvals),
  secret_guard: z.boolean().default(NOTIFICATION_DEFAULTS.secret_guard),
  /** The same kind of notice about the same subject at most this often. */
  min_interval_ms: z.number().int().min(0).default(NOTIFICATION_DEFAULTS.min_interval_ms),
});

// --- the usage store's records and summaries ---

/** Where a request's cost came from. */
export const CostSourceSchema = z.enum(['price_table', 'override', 'local', 'unknown']);
export type CostSource = z.infer<typeof CostSourceSchema>;

/** One request, as the usage store keeps it. Token counts in the hub's sense (prompt includes cache reads/writes). */
export const UsageRecordSchema = z.strictObject({
  id: z.string(),
  time: z.string(),
  app: z.string().nullable(),
  provider: z.string().nullable(),
  /** The model the provider was asked for (after routing and overrides). */
  model: z.string().nullable(),
  requested_model: z.string().nullable(),
  path: z.string(),
  status: z.number().int(),
  stream: z.boolean(),
  latency_ms: z.number(),
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  cache_read_tokens: z.number().int(),
  cache_write_tokens: z.number().int(),
  /** Within cache_write_tokens, the 5-minute and 1-hour writes (Anthropic's split; 0 or absent: not told apart). */
  cache_write_5m_tokens: z.number().int().optional(),
  cache_write_1h_tokens: z.number().int().optional(),
  reasoning_tokens: z.number().int(),
  cost_usd: z.number().nullable(),
  cost_source: CostSourceSchema,
  /** The coding session (the request log's `session`); null or absent (older records): none. */
  session: z.string().max(128).nullable().optional(),
  /**
   * Providers whose attempt failed before another answered (failover, in order; a provider tried twice is named
   * twice): each is counted as a failed attempt of its own in the per-provider totals. null or absent: none.
   */
  failed_over: z.array(z.string()).nullable().optional(),
  /** Gateway mode: the credential's name (the request log's `key`); null or absent: none. */
  key: z.string().max(64).nullable().optional(),
  /** Store "redis": the instance that served it; absent otherwise. */
  instance: z.string().max(128).nullable().optional(),
});
export type UsageRecord = z.infer<typeof UsageRecordSchema>;

/** Counters of a set of requests. */
export const UsageTotalsSchema = z.strictObject({
  requests: z.number().int(),
  errors: z.number().int(),
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  cache_read_tokens: z.number().int(),
  cache_write_tokens: z.number().int(),
  /** Within cache_write_tokens: the writes Anthropic kept 5 minutes and 1 hour (priced apart). */
  cache_write_5m_tokens: z.number().int(),
  cache_write_1h_tokens: z.number().int(),
  reasoning_tokens: z.number().int(),
  cost_usd: z.number(),
  /** Requests whose cost is unknown (no price for their model): cost_usd leaves them out. */
  unpriced: z.number().int(),
  latency_ms_sum: z.number(),
  /**
   * Attempts that failed and went on to the next provider (failover), counted for the provider that failed: what the
   * request log shows as each attempt. Not in `requests` or `errors`, which count what the client got.
   */
  failed_attempts: z.number().int(),
});
export type UsageTotals = z.infer<typeof UsageTotalsSchema>;

export const USAGE_RANGES = ['1h', '24h', '7d', 'today', 'month'] as const;
export const UsageRangeSchema = z.enum(USAGE_RANGES);
export type UsageRange = z.infer<typeof UsageRangeSchema>;

/** GET /admin/v1/usage?range=1h|24h|7d|today|month: totals, the top groups, and a time series for the chart. */
export const UsageSummarySchema = z.strictObject({
  range: UsageRangeSchema,
  from: z.string(),
  to: z.string(),
  /** The series' bucket: 60,000 (1h), 3,600,000 (24h, today), 86,400,000 (7d, month) ms. */
  bucket_ms: z.number().int(),
  totals: UsageTotalsSchema,
  by_app: z.array(UsageTotalsSchema.extend({ key: z.string() })),
  by_provider: z.array(UsageTotalsSchema.extend({ key: z.string() })),
  by_model: z.array(UsageTotalsSchema.extend({ key: z.string() })),
  /**
   * The coding sessions of the range's local days (`key`: the session id, `app`: its app), sorted by cost, then
   * requests; at most 20, the rest in one "(other)" row; a day's sessions past 500 are counted as the app's "(other)".
   */
  by_session: z.array(UsageTotalsSchema.extend({ key: z.string(), app: z.string().nullable() })),
  /**
   * Gateway mode: by credential name (`key`: a gateway key's or PAT's name, a JWT's sub; "(none)": requests with none,
   * e.g. local mode), sorted and capped as the others. Absent from older servers.
   */
  by_key: z.array(UsageTotalsSchema.extend({ key: z.string() })).optional(),
  /** Store "redis": by the instance that served them (the range's local days, as by_session). */
  by_instance: z.array(UsageTotalsSchema.extend({ key: z.string() })).optional(),
  /**
   * Store "redis": `team` (every instance's requests, from the rollups in Redis) or `instance` (Redis could not be
   * read: this instance's own). Absent with the embedded store (this instance is everything).
   */
  scope: z.enum(['team', 'instance']).optional(),
  /** One point per bucket from `from` to `to`, empty buckets included (t: the bucket's start, epoch ms). */
  series: z.array(UsageTotalsSchema.extend({ t: z.number() })),
  budgets: z.array(
    z.strictObject({
      app: z.string().nullable(),
      /** The credential the budget covers (absent: not one; older servers). */
      key: z.string().nullable().optional(),
      period: z.enum(BUDGET_PERIODS),
      limit_usd: z.number(),
      spent_usd: z.number(),
      warn_at: z.number(),
      enforce: z.boolean(),
      state: z.enum(['ok', 'warning', 'exceeded']),
    }),
  ),
});
export type UsageSummary = z.infer<typeof UsageSummarySchema>;

/** GET /admin/v1/usage/requests?limit=&before=: the newest raw records, newest first. */
export const UsageRequestsSchema = z.strictObject({ data: z.array(UsageRecordSchema), has_more: z.boolean() });
export type UsageRequests = z.infer<typeof UsageRequestsSchema>;

// --- notifications ---

export const NOTIFICATION_KINDS = [
  'provider_down',
  'provider_up',
  'failover',
  'budget_warning',
  'budget_exceeded',
  'approval_required',
  'secret_found',
] as const;

/** One notice: a desktop notification in the app, a `notification` event on GET /admin/v1/events headless. */
export const NotificationSchema = z.strictObject({
  kind: z.enum(NOTIFICATION_KINDS),
  time: z.string(),
  title: z.string(),
  message: z.string(),
  provider: z.string().nullable(),
  app: z.string().nullable(),
});
export type Notification = z.infer<typeof NotificationSchema>;
