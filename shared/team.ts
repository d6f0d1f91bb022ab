// The team's request log on Redis (store "redis", docs/team.md, "Team gateway on Redis"): each instance adds every request
// of its request log to one Redis stream, and every instance reads the others' back into its own request log and
// usage store. A message of that stream is read from outside this process, so it is checked against this schema
// before it is shown or counted; one that does not fit (another version's, or a foreign writer's) is skipped.
import { z } from 'zod';

const count = z.number().int().min(0).nullable();

/** One request of the request log (shared/admin.ts RequestLogEntry), as another instance wrote it to the stream. */
export const TeamLogEntrySchema = z.object({
  id: z.string().min(1).max(100),
  time: z.string().refine((t) => Number.isFinite(Date.parse(t)), 'must be an ISO 8601 time'),
  method: z.string(),
  path: z.string(),
  app: z.string().nullable(),
  app_source: z.enum(['header', 'x-title', 'api-key', 'process', 'user-agent']).nullable(),
  requested_model: z.string().nullable(),
  routed_model: z.string().nullable(),
  provider: z.string().nullable(),
  route: z.string().nullable(),
  attempts: z.array(
    z.object({
      provider: z.string(),
      status: z.number().int().nullable(),
      error: z.string().nullable(),
      latency_ms: z.number(),
      dropped: z.array(z.string()).optional(),
    }),
  ),
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
});

/** The stream's fields: `i` the writing instance (random per process start), `e` the entry as JSON. */
export const TEAM_LOG_FIELDS = { instance: 'i', entry: 'e' } as const;
