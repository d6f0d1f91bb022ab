// Failure classification: which upstream failures move on to the next candidate, and what the attempt log says.
import { redact } from '../../observability/redact.ts';
import type { AttemptFailure } from '../provider-pool.ts';

export function classify(err: unknown, aborted: boolean): AttemptFailure {
  const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e?.code ?? e?.cause?.code ?? '';
  if (aborted) return { retryable: false, status: null, kind: 'aborted', message: 'client closed the request' };
  if (code === 'UND_ERR_HEADERS_TIMEOUT')
    return { retryable: true, status: null, kind: 'timeout', message: 'no response before the first-byte timeout' };
  if (code === 'UND_ERR_BODY_TIMEOUT')
    return { retryable: true, status: null, kind: 'timeout', message: 'no data before the idle timeout' };
  if (code === 'UND_ERR_CONNECT_TIMEOUT')
    return { retryable: true, status: null, kind: 'timeout', message: 'connect timeout' };
  if (
    code === 'ECONNREFUSED' ||
    code === 'ENOTFOUND' ||
    code === 'EAI_AGAIN' ||
    code === 'EHOSTUNREACH' ||
    code === 'ENETUNREACH'
  ) {
    return { retryable: true, status: null, kind: 'connect', message: `cannot connect (${code})` };
  }
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE' || code === 'UND_ERR_CLOSED') {
    return { retryable: true, status: null, kind: 'connect', message: `connection lost (${code})` };
  }
  return { retryable: true, status: null, kind: 'other', message: redact(e?.message ?? String(err)) };
}

/** 408, 429 and 5xx mean "try the next provider"; other statuses are the provider's answer to this request. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/**
 * The message inside a failed attempt's body (OpenAI-style JSON, else the text itself), at most 300 characters, with
 * every secret scrubbed (before the cut, so that no piece of a key is left at the end).
 */
export function errorTextOf(text: string): string {
  try {
    const parsed = JSON.parse(text) as { error?: { message?: string } | string; message?: string };
    const m = typeof parsed.error === 'string' ? parsed.error : (parsed.error?.message ?? parsed.message);
    if (m) return redact(m).slice(0, 300);
  } catch {
    // not JSON: use the text itself
  }
  return redact(text.trim()).slice(0, 300);
}
