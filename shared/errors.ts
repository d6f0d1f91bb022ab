// The error body every Switchboard route answers with, and the closed list of codes it may carry.
import { z } from 'zod';

export const ERROR_TYPES = [
  'invalid_request_error',
  'authentication_error',
  'permission_error',
  'not_found_error',
  'rate_limit_error',
  'api_error',
  'upstream_error',
] as const;
export type ErrorType = (typeof ERROR_TYPES)[number];

/** Every code a response may carry, with its HTTP status and type. */
export const ERROR_CODES = {
  invalid_json: { status: 400, type: 'invalid_request_error' },
  invalid_request: { status: 400, type: 'invalid_request_error' },
  model_required: { status: 400, type: 'invalid_request_error' },
  body_too_large: { status: 413, type: 'invalid_request_error' },
  unsupported_media_type: { status: 415, type: 'invalid_request_error' },
  request_timeout: { status: 408, type: 'invalid_request_error' },
  // nginx's "client closed request": logged, never sent (the client is gone).
  client_closed_request: { status: 499, type: 'invalid_request_error' },
  no_route: { status: 404, type: 'invalid_request_error' },
  not_found: { status: 404, type: 'not_found_error' },
  method_not_allowed: { status: 405, type: 'invalid_request_error' },
  invalid_admin_token: { status: 401, type: 'authentication_error' },
  host_not_allowed: { status: 403, type: 'permission_error' },
  origin_not_allowed: { status: 403, type: 'permission_error' },
  config_invalid: { status: 400, type: 'invalid_request_error' },
  no_healthy_provider: { status: 503, type: 'upstream_error' },
  upstream_unreachable: { status: 502, type: 'upstream_error' },
  upstream_error: { status: 502, type: 'upstream_error' },
  upstream_timeout: { status: 504, type: 'upstream_error' },
  upstream_rate_limited: { status: 429, type: 'rate_limit_error' },
  routing_paused: { status: 503, type: 'api_error' },
  unsupported_endpoint: { status: 400, type: 'invalid_request_error' },
  internal_error: { status: 500, type: 'api_error' },
  // The agent API (/api/v1, spec/orchestrator.md).
  unauthorized: { status: 401, type: 'authentication_error' },
  agent_not_found: { status: 404, type: 'not_found_error' },
  task_not_found: { status: 404, type: 'not_found_error' },
  agent_busy: { status: 409, type: 'invalid_request_error' },
  agent_running: { status: 409, type: 'invalid_request_error' },
  task_not_running: { status: 409, type: 'invalid_request_error' },
  tenant_forbidden: { status: 403, type: 'permission_error' },
  queue_full: { status: 429, type: 'rate_limit_error' },
  wal_error: { status: 503, type: 'api_error' },
  // The shared state (issue 18): Redis was needed (e.g. to create a key) and is not reachable.
  store_unavailable: { status: 503, type: 'api_error' },
  // Workflows and swarms (issue 7).
  workflow_invalid: { status: 422, type: 'invalid_request_error' },
  workflow_not_found: { status: 404, type: 'not_found_error' },
  workflow_exists: { status: 409, type: 'invalid_request_error' },
  run_not_found: { status: 404, type: 'not_found_error' },
  swarm_invalid: { status: 422, type: 'invalid_request_error' },
  swarm_not_found: { status: 404, type: 'not_found_error' },
  swarm_exists: { status: 409, type: 'invalid_request_error' },
  swarm_task_not_found: { status: 404, type: 'not_found_error' },
  // Threads, waiting and lifecycle (issue 16).
  agent_exists: { status: 409, type: 'invalid_request_error' },
  thread_not_found: { status: 404, type: 'not_found_error' },
  thread_busy: { status: 409, type: 'invalid_request_error' },
  task_running: { status: 409, type: 'invalid_request_error' },
  workflow_running: { status: 409, type: 'invalid_request_error' },
  swarm_running: { status: 409, type: 'invalid_request_error' },
  run_not_running: { status: 409, type: 'invalid_request_error' },
  swarm_task_not_running: { status: 409, type: 'invalid_request_error' },
  // Approvals (issue 16): a tool call waiting for a person's decision.
  approval_not_found: { status: 404, type: 'not_found_error' },
  approval_not_pending: { status: 409, type: 'invalid_request_error' },
  // Issue 35: an Idempotency-Key sent again with another body (IETF draft-ietf-httpapi-idempotency-key-header: 422).
  idempotency_key_reused: { status: 422, type: 'invalid_request_error' },
  // The gateway (issue 8): limits, keys, video tasks.
  rate_limit_exceeded: { status: 429, type: 'rate_limit_error' },
  // 429 as the spec says of every limit; x-should-retry: false and no Retry-After tell the SDKs not to retry (issue 31).
  request_over_tpm_limit: { status: 429, type: 'rate_limit_error' },
  budget_exceeded: { status: 402, type: 'rate_limit_error' },
  invalid_api_key: { status: 401, type: 'authentication_error' },
  model_not_allowed: { status: 403, type: 'permission_error' },
  video_task_not_found: { status: 404, type: 'not_found_error' },
  // Connect (issue 14): a tool that points elsewhere, or a file changed since Connect wrote it.
  connect_conflict: { status: 409, type: 'invalid_request_error' },
  // The secret guard (issue 38): a request holding a secret, to a provider whose policy is "block".
  secret_detected: { status: 400, type: 'invalid_request_error' },
  // Request capture (issue 38): a log id whose bodies were not captured (capture off, another app, or trimmed).
  capture_not_found: { status: 404, type: 'not_found_error' },
} as const satisfies Record<string, { status: number; type: ErrorType }>;
export type ErrorCode = keyof typeof ERROR_CODES;

export const ErrorBodySchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    type: z.string(),
    action: z.string().optional(),
    details: z.unknown().optional(),
  }),
});
export type ErrorBody = z.infer<typeof ErrorBodySchema>;
