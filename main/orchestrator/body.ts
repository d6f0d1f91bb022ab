// The JSON body of an agent-API request, one reader for every route: bounded (2 MB, 413 as it streams; a browser's
// must be declared JSON, 415), then 400 invalid_request when it is not JSON or does not fit the route's schema.
import type { Context } from 'hono';
import type { z } from 'zod';
import { invalidRequest, issuesToProblems } from '../errors.ts';
import { parseJsonBounded, readApiBody } from '../proxy/body.ts';

type ReadOptions = {
  /** What a body-less request stands for (undefined: a body is required). */
  empty?: unknown;
  /** The error's action (what to send instead). */
  action?: string;
};

/** The body as JSON, not checked further. */
export async function readJson(c: Context, opts: ReadOptions = {}): Promise<unknown> {
  const { empty, action = 'Send a JSON body.' } = opts;
  const body = await readApiBody(c);
  if (empty !== undefined && body.toString('utf8').trim() === '') return empty;
  try {
    return parseJsonBounded(body);
  } catch (err) {
    const deep = (err as Error).message.startsWith('JSON nested');
    throw invalidRequest(
      [{ field: '(body)', message: deep ? (err as Error).message : 'must be a JSON object' }],
      action,
    );
  }
}

/** The body checked against a schema; every field that does not fit is listed in error.details. */
export async function parseBody<S extends z.ZodType>(c: Context, schema: S, action: string): Promise<z.infer<S>> {
  const r = schema.safeParse(await readJson(c, { action }));
  if (!r.success) throw invalidRequest(issuesToProblems(r.error.issues), action);
  return r.data;
}
