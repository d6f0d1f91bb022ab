// The team's request log on Redis (store "redis", docs/team.md, "Team gateway on Redis"): each instance adds every request
// of its request log to one Redis stream, and every instance reads the others' back into its own request log and
// usage store. A message of that stream is read from outside this process, so it is checked before it is shown or
// counted, against the request log's own schema (shared/request-log-schema.ts); one that does not fit is skipped.

/** The stream's fields: `i` the writing instance (random per process start), `e` the entry as JSON. */
export const TEAM_LOG_FIELDS = { instance: 'i', entry: 'e' } as const;
