// The one error a client can see, and the one catalogue of its codes, statuses and suggested actions. Every room may
// import this file (it imports only the shared contract and the WAL's own error type): translation, routing, the
// gateway and the orchestrator raise ApiError, the WAL raises WalError, and toApiError turns either into the body.
import { ERROR_CODES, type ErrorBody, type ErrorCode } from '../shared/errors.ts';
import { WalError } from './wal/errors.ts';

export type { ErrorCode } from '../shared/errors.ts';

/** What to do about each code when the place that raises it has nothing more precise to say. */
const ACTIONS: Record<ErrorCode, string> = {
  invalid_json: 'Send a well-formed JSON object with Content-Type: application/json.',
  invalid_request: 'Fix the fields named in the message (and error.details) and send the request again.',
  model_required: 'Add "model": "<name>" to the request.',
  body_too_large: 'Send a smaller request, or raise max_body_mb in config.json.',
  unsupported_media_type: 'Send the body as JSON (or as multipart/form-data where the endpoint takes uploads).',
  request_timeout: 'Send the whole body without pausing, or raise body_idle_timeout_ms in config.json.',
  client_closed_request: 'Nothing to do: the client hung up before sending its whole request.',
  no_route: 'Add a routing rule for this model, or set routing.default_provider in config.json.',
  not_found: 'See the reference (docs/README.md) for the endpoints Switchboard serves.',
  method_not_allowed: 'See the reference (docs/README.md) for the methods each endpoint takes.',
  invalid_admin_token: 'Open the UI from the link `switchboard serve` prints, or send X-Switchboard-Token.',
  host_not_allowed: 'Call Switchboard as localhost, 127.0.0.1 or [::1].',
  origin_not_allowed: 'Call Switchboard from a local tool, not from a web page of another origin.',
  config_invalid: 'Fix the fields listed in error.details; config.json on disk is unchanged.',
  no_healthy_provider: 'Wait for the cool-down (circuit_breaker.cooldown_ms) or fix the provider.',
  upstream_unreachable: 'Check that the provider is running and its base_url is right, or add a backup provider.',
  upstream_error: 'Retry, or add a backup provider with a routing rule for this model.',
  upstream_timeout: 'Retry, raise timeouts in config.json, or add a backup provider for this model.',
  upstream_rate_limited: 'Wait and retry, or add a backup provider with a routing rule for this model.',
  routing_paused: 'Resume routing from the tray menu or the Switchboard window.',
  unsupported_endpoint:
    'Route this model to a provider that offers this endpoint (see the endpoint table in docs/formats.md).',
  internal_error:
    'Retry the request; if it keeps failing, look at the Switchboard log and report the error shown there.',
  unauthorized: 'Send a key made by `switchboard keys create` in the X-API-Key header.',
  agent_not_found: 'List agents with GET /api/v1/agents.',
  task_not_found: 'List tasks with GET /api/v1/tasks.',
  agent_busy: 'Wait for the running task to end (or stop it), or retry after the window.',
  agent_running: 'Stop its task first (POST /api/v1/tasks/<task_id>/stop), then retry.',
  task_not_running: 'Nothing to do: only queued or running tasks can be stopped.',
  tenant_forbidden: 'Use a key of that tenant, or leave out the tenant filter.',
  queue_full: 'Retry in 5 seconds.',
  wal_error: 'Check the disk holding the data folder.',
  store_unavailable: 'Retry when Redis is back (GET /admin/v1/status shows the store).',
  workflow_invalid: 'Fix every problem listed in error.details, then send it again.',
  workflow_not_found: 'List workflows with GET /api/v1/workflows.',
  workflow_exists: 'Choose another name.',
  run_not_found: 'List the runs with GET /api/v1/workflows/<name>/runs.',
  swarm_invalid: 'Fix every problem listed in error.details, then send it again.',
  swarm_not_found: 'List swarms with GET /api/v1/swarms.',
  swarm_exists: 'Choose another name.',
  swarm_task_not_found: 'List the tasks with GET /api/v1/swarms/<name>/tasks.',
  agent_exists: 'Choose another name, or change the existing agent (PUT /api/v1/agents/<id>).',
  thread_not_found: 'List threads with GET /api/v1/threads, or leave out thread_id to start a new one.',
  thread_busy: "Wait for the thread's task to end, or stop it (POST /api/v1/tasks/<task_id>/stop).",
  task_running: 'Stop the task first (POST /api/v1/tasks/<task_id>/stop), then delete it.',
  workflow_running: 'Cancel its running runs first (POST /api/v1/workflows/<name>/runs/<run_id>/cancel).',
  swarm_running: 'Stop its running tasks first (POST /api/v1/swarms/<name>/tasks/<id>/stop).',
  run_not_running: 'Nothing to do: the run is over.',
  swarm_task_not_running: 'Nothing to do: the swarm task is over.',
  approval_not_found: "List the task's approvals with GET /api/v1/tasks/<task_id>/approvals.",
  approval_not_pending: 'Nothing to do: a call is decided once.',
  idempotency_key_reused: 'Send a new Idempotency-Key for a new run; a retry sends the same body as the first request.',
  rate_limit_exceeded: 'Wait for the time in Retry-After, or raise the limits in config.json.',
  request_over_tpm_limit: 'Send a smaller request, or raise the TPM limit in config.json; retrying will not help.',
  budget_exceeded:
    'Wait for the budget period to end, or raise or remove the budget in config.json (Settings, Budgets).',
  invalid_api_key: 'Send Authorization: Bearer <key> with a valid gateway key, PAT or JWT.',
  model_not_allowed: 'Use an allowed model, or issue a credential whose models cover it.',
  video_task_not_found: 'Use the task_id returned by the create call.',
  connect_conflict: 'Look at the file named in the message; retry with force to replace it (a backup is kept first).',
  capture_not_found:
    'Turn capture on (config.json "capture": {"enabled": true}) and send the request again; captures past capture.max_requests, max_mb or days are trimmed.',
  secret_detected:
    'Remove the secret from the conversation (the file or output a tool read), or set secret_guard to "redact" for this provider or app in config.json.',
};

/** An error in its plain form, as each wire format writes it (HTTP body or mid-stream event). */
export type WireError = {
  status: number;
  code: string;
  type: string;
  message: string;
  action?: string;
  details?: unknown;
};

export class ApiError extends Error {
  readonly status: number;
  readonly type: string;
  readonly action: string;
  /** Response headers that go with the error (Retry-After, x-ratelimit-*). */
  readonly headers: Record<string, string> = {};

  constructor(
    readonly code: ErrorCode,
    message: string,
    action?: string,
    readonly details?: unknown,
    status?: number,
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = status ?? ERROR_CODES[code].status;
    this.type = ERROR_CODES[code].type;
    this.action = action ?? ACTIONS[code];
  }

  /** The error body every OpenAI-shaped route answers: {error: {code, message, type, action, details?}}. */
  toBody(): ErrorBody {
    const error: ErrorBody['error'] = { code: this.code, message: this.message, type: this.type, action: this.action };
    if (this.details !== undefined) error.details = this.details;
    return { error };
  }

  toWire(): WireError {
    return {
      status: this.status,
      code: this.code,
      type: this.type,
      message: this.message,
      action: this.action,
      ...(this.details !== undefined ? { details: this.details } : {}),
    };
  }
}

/**
 * Any thrown value as an ApiError: an ApiError as it is; a WalError (the log could not make a change durable) as
 * 503 wal_error with the log's own message and action; a URIError (a malformed percent-encoding in the path) as 400
 * invalid_request; anything else as internal_error, without leaking a stack.
 */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof WalError)
    return new ApiError('wal_error', `The write-ahead log failed: ${err.message}`, err.action);
  // decodeURIComponent on a path like /v1beta/models/%ZZ:generateContent: the client's mistake, not ours.
  if (err instanceof URIError)
    return new ApiError(
      'invalid_request',
      'The request path has a malformed percent-encoding (a "%" not followed by two hex digits, or bytes that are not UTF-8).',
      'Percent-encode the path correctly, e.g. "%25" for a literal "%".',
    );
  return new ApiError('internal_error', 'Switchboard hit an unexpected error while handling this request.');
}

/** A field and what is wrong with it, as error.details lists them. */
export type FieldProblem = { field: string; message: string };

/** zod's issues as field problems ("(body)" for the body itself). */
export function issuesToProblems(issues: readonly { path: readonly PropertyKey[]; message: string }[]): FieldProblem[] {
  return issues.map((i) => ({ field: i.path.map(String).join('.') || '(body)', message: i.message }));
}

/** 400 invalid_request listing every problem in its message and in error.details. */
export function invalidRequest(problems: FieldProblem[], action?: string): ApiError {
  return new ApiError(
    'invalid_request',
    `Invalid request: ${problems.map((p) => `${p.field} ${p.message}`).join('; ')}.`,
    action ?? 'Fix the fields listed in error.details and send the request again.',
    problems,
  );
}
