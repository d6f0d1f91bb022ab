// One error type for every failure a client can see, turned into the spec's body {error:{code,message,type,action}}.
import type { ServerResponse } from 'node:http';
import { ERROR_CODES, type ErrorBody, type ErrorCode } from '../../shared/errors.ts';

export class ApiError extends Error {
  readonly status: number;
  readonly type: string;
  readonly headers: Record<string, string> = {};

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly action?: string,
    readonly details?: unknown,
    status?: number,
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = status ?? ERROR_CODES[code].status;
    this.type = ERROR_CODES[code].type;
  }

  toBody(): ErrorBody {
    const error: ErrorBody['error'] = { code: this.code, message: this.message, type: this.type };
    if (this.action) error.action = this.action;
    if (this.details !== undefined) error.details = this.details;
    return { error };
  }
}

/** Any thrown value as an ApiError; unknown errors become internal_error without leaking a stack. */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  return new ApiError(
    'internal_error',
    'Switchboard hit an unexpected error while handling this request.',
    'Retry the request; if it keeps failing, look at the Switchboard log and report the error shown there.',
  );
}

/** Writes an error on a raw Node response (the streaming hot path does not go through Hono's onError). */
export function sendError(res: ServerResponse, err: ApiError, extraHeaders: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify(err.toBody());
  res.writeHead(err.status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    ...err.headers,
    ...extraHeaders,
  });
  res.end(body);
}
