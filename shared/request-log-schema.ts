// A request log entry as it is read back from outside this process, checked before it is shown or counted: the tail of
// requests.jsonl at start (main/observability/log-tail.ts) and the team's request stream on Redis
// (main/store/team-log.ts). A line or message of another shape (a hand edit, a torn write, another version's entry
// missing a field it must have, a foreign writer) is skipped, never shown half. Its own file, so the
// start does not build the admin API's schemas (shared/admin.ts); built on first use (requestLogEntrySchema), so a
// start without a requests.jsonl builds nothing.
import { z } from 'zod';
import type { RequestLogEntry } from './admin.ts';

function build() {
  const count = z.number().int().min(0).nullable();
  const AttemptLogSchema = z.object({
    provider: z.string(),
    status: z.number().int().nullable(),
    error: z.string().nullable(),
    latency_ms: z.number(),
    dropped: z.array(z.string()).optional(),
  });

  return z.object({
    id: z.string().min(1).max(100),
    time: z.string().refine((t) => !Number.isNaN(Date.parse(t)), 'must be an ISO 8601 time'),
    method: z.string(),
    path: z.string(),
    app: z.string().nullable(),
    app_source: z.enum(['header', 'x-title', 'api-key', 'process', 'user-agent']).nullable(),
    requested_model: z.string().nullable(),
    routed_model: z.string().nullable(),
    provider: z.string().nullable(),
    route: z.string().nullable(),
    attempts: z.array(AttemptLogSchema),
    status: z.number().int(),
    error_code: z.string().nullable(),
    stream: z.boolean(),
    latency_ms: z.number(),
    ttfb_ms: z.number().nullable(),
    prompt_tokens: count,
    completion_tokens: count,
    cache_read_tokens: count.optional(),
    cache_write_tokens: count.optional(),
    cache_write_5m_tokens: count.optional(),
    cache_write_1h_tokens: count.optional(),
    reasoning_tokens: count.optional(),
    session: z.string().max(128).nullable().optional(),
    key: z.string().max(64).nullable().optional(),
    instance: z.string().max(128).nullable().optional(),
    guard: z
      .object({
        policy: z.enum(['warn', 'redact', 'block']),
        action: z.enum(['warned', 'redacted', 'blocked']),
        found: z.array(z.object({ rule: z.string(), count: z.number().int().min(0) })),
      })
      .optional(),
    replay_of: z.string().max(64).optional(),
    captured: z.literal(true).optional(),
  });
}
type EntrySchema = ReturnType<typeof build>;
let schema: EntrySchema | null = null;

/** The schema of a request log entry (made once, on first use). */
export function requestLogEntrySchema(): EntrySchema {
  return (schema ??= build());
}

/**
 * The schema's output is the entry type itself, field for field: a field added to one and not the other fails to
 * compile here (an optional field missing from the schema would otherwise be stripped from every entry read back).
 */
const same: [z.infer<EntrySchema>] extends [RequestLogEntry]
  ? [RequestLogEntry] extends [z.infer<EntrySchema>]
    ? true
    : never
  : never = true;
void same;
const sameFields: [Exclude<keyof RequestLogEntry, keyof z.infer<EntrySchema>>] extends [never] ? true : never = true;
void sameFields;
