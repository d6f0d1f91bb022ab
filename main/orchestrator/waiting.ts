// Waiting over HTTP: `?wait=true&timeout_s=` on the routes that start work (an agent's run, a workflow run, a swarm
// task) and the wait endpoints. One reply: 200 with `done: true` once the work is over, or 202 with `done: false`
// and the current state when the timeout passes first. A client that hangs up ends its wait at once.
import type { HttpBindings } from '@hono/node-server';
import type { Context } from 'hono';
import { WAIT_TIMEOUT } from '../../shared/orchestrator.ts';
import { ApiError, invalidRequest, type FieldProblem } from '../errors.ts';
import type { Waits } from './waits.ts';

export type WaitAsk = { timeoutMs: number };

const ACTION = `Send wait=true (or leave it out) and timeout_s from 0 to ${WAIT_TIMEOUT.max_s} seconds.`;

/**
 * The wait a request asks for, or null when it asks for none. `always`: a wait endpoint (no `wait` parameter needed).
 * timeout_s (default 30, at most 300, fractions allowed) is how long the wait lasts; on a route that starts work it
 * needs wait=true, so it is never taken for the task's own deadline (the run body's timeout_s).
 */
export function waitAsked(c: Context, always: boolean): WaitAsk | null {
  const problems: FieldProblem[] = [];
  const wait = c.req.query('wait');
  if (wait !== undefined && !['true', 'false', '1', '0', ''].includes(wait)) {
    problems.push({ field: 'wait', message: 'must be true or false' });
  }
  const wants = always || wait === 'true' || wait === '1';
  const raw = c.req.query('timeout_s');
  let seconds: number = WAIT_TIMEOUT.default_s;
  if (raw !== undefined && raw !== '') {
    const n = Number(raw);
    if (!Number.isFinite(n) || n < 0 || n > WAIT_TIMEOUT.max_s) {
      problems.push({ field: 'timeout_s', message: `must be a number of seconds from 0 to ${WAIT_TIMEOUT.max_s}` });
    } else if (!wants) {
      const message =
        'is how long wait=true waits for the answer; add wait=true (a task\'s own deadline is the body\'s "timeout_s")';
      problems.push({ field: 'timeout_s', message });
    } else seconds = n;
  }
  if (problems.length) throw invalidRequest(problems, ACTION);
  return wants ? { timeoutMs: seconds * 1000 } : null;
}

/** What the agent API's key check leaves on the request (api.ts): the key, and where its revocation is told. */
type KeyVars = { keyId?: string; revocations?: { onRevoked(id: string, revoked: () => void): () => void } };

/**
 * Waits until `over()` holds (true) or the timeout passes or the client hangs up (false). A key revoked meanwhile
 * ends the wait with 401 unauthorized, as it ends the key's event streams.
 */
export async function waitUntil(
  c: Context,
  waits: Waits,
  id: string,
  over: () => boolean,
  ask: WaitAsk,
): Promise<boolean> {
  const res = (c.env as HttpBindings).outgoing; // node-server's response: its close is the client hanging up
  const gone = new AbortController();
  const onClose = () => gone.abort();
  res.once('close', onClose);
  // A client that hung up before the wait began: its close is past (nothing would end the wait but its timeout).
  if (res.destroyed || res.socket?.destroyed !== false) gone.abort();
  const { keyId, revocations } = c.var as KeyVars;
  let revoked = false;
  const onRevoked = () => {
    revoked = true;
    gone.abort();
  };
  const unwatch = keyId ? revocations?.onRevoked(keyId, onRevoked) : undefined;
  try {
    const done = await waits.wait(id, over, ask.timeoutMs, gone.signal);
    if (revoked) {
      const message = `The agent API key ${keyId} was revoked while this request waited.`;
      throw new ApiError(
        'unauthorized',
        message,
        'Send a key made by `switchboard keys create` in the X-API-Key header.',
      );
    }
    return done;
  } finally {
    unwatch?.();
    res.off('close', onClose);
  }
}

/** The reply of a wait: the record with `done`, 200 when it is over, 202 while it goes on. */
export function waitReply<T extends object>(c: Context, record: T, done: boolean): Response {
  return c.json({ ...record, done }, done ? 200 : 202);
}
