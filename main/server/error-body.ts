// The error body of a request, in the shape of the API it belongs to: the agent API's, the admin API's, or a vendor's
// (its path, else the caller's headers: main/gateway/front-doors.ts), so each client shows the message. Used by the
// app's error handler and by the listener for what Node's HTTP parser refuses before the app sees a request.
import type { IncomingHttpHeaders } from 'node:http';
import type { ApiError } from '../errors.ts';
import { errorFormatFor } from '../gateway/front-doors.ts';
import { openaiFormat } from '../proxy/formats/openai/index.ts';

export const isAgentApi = (path: string): boolean => path === '/api/v1' || path.startsWith('/api/v1/');

/** The agent API's error body: `details` is always present (null when absent). */
export function agentApiBody(e: ApiError): object {
  const b = e.toBody();
  return { error: { ...b.error, details: b.error.details ?? null } };
}

export function errorBodyFor(path: string, headers: IncomingHttpHeaders, query: URLSearchParams, e: ApiError): object {
  if (isAgentApi(path)) return agentApiBody(e);
  const format = errorFormatFor(path, headers, query);
  return format === openaiFormat ? e.toBody() : (format.errorBody(e.toWire()) as object);
}

/** The path and query of a request line's target, as far as they can be read (the error's shape depends on them). */
export function targetOf(url: string): { path: string; query: URLSearchParams } {
  try {
    const u = new URL(url, 'http://localhost');
    return { path: u.pathname, query: u.searchParams };
  } catch {
    return { path: '/', query: new URLSearchParams() };
  }
}
