// The usage store's admin routes (under /admin/v1, behind the admin guards): a range's summary, the newest raw records,
// and the event stream of notifications (provider down/up, failover, budgets).
import type { HttpBindings } from '@hono/node-server';
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { type UsageRange, USAGE_RANGES } from '../../shared/usage.ts';
import { ApiError } from '../errors.ts';
import type { Engine } from '../proxy/engine.ts';
import { usageOf, type UsageService } from '../usage/service.ts';
import type { Before } from '../usage/store.ts';

const MAX_REQUESTS = 1000;
const RECORD_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HEARTBEAT_MS = 15_000;

function serviceOf(engine: Engine): UsageService {
  const s = usageOf(engine);
  if (!s)
    throw new ApiError(
      'internal_error',
      'The usage store is not open in this process.',
      'Restart Switchboard; the log says why the usage store could not open.',
      undefined,
      503,
    );
  return s;
}

/** `range`: one of 1h, 24h, 7d, today, month (default today). */
export function rangeOf(raw: string | undefined): UsageRange {
  if (raw === undefined || raw === '') return 'today';
  if ((USAGE_RANGES as readonly string[]).includes(raw)) return raw as UsageRange;
  throw new ApiError(
    'invalid_request',
    `The query parameter "range" is "${raw}", which is not a range.`,
    `Send range= one of ${USAGE_RANGES.join(', ')}.`,
    [{ field: 'range', message: `must be one of ${USAGE_RANGES.join(', ')}` }],
  );
}

/** `limit`: 1 to 1000 (default 100). */
export function limitOf(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 100;
  const n = Number(raw);
  if (/^\d+$/.test(raw) && n >= 1 && n <= MAX_REQUESTS) return n;
  throw new ApiError(
    'invalid_request',
    `The query parameter "limit" is "${raw}", which is not a number of records from 1 to ${MAX_REQUESTS}.`,
    `Send limit= a whole number from 1 to ${MAX_REQUESTS}.`,
    [{ field: 'limit', message: `must be a whole number from 1 to ${MAX_REQUESTS}` }],
  );
}

/** `before`: a record's id (the records written before it) or an ISO 8601 time (the records of earlier times). */
export function beforeOf(raw: string | undefined): Before {
  if (raw === undefined || raw === '') return null;
  if (RECORD_ID.test(raw)) return { id: raw };
  const time = /^\d{4}-\d{2}-\d{2}/.test(raw) ? Date.parse(raw) : Number.NaN;
  if (Number.isFinite(time)) return { time };
  throw new ApiError(
    'invalid_request',
    `The query parameter "before" is "${raw}", which is neither a record id nor a time.`,
    'Send before= the id of the last record you have, or an ISO 8601 time such as 2025-01-31T12:00:00Z.',
    [{ field: 'before', message: 'must be a record id or an ISO 8601 time' }],
  );
}

export function usageRoutes(engine: () => Engine): Hono<{ Bindings: HttpBindings }> {
  const routes = new Hono<{ Bindings: HttpBindings }>();

  routes.get('/usage', async (c) => {
    const range = rangeOf(c.req.query('range'));
    return c.json(await serviceOf(engine()).report(range));
  });

  routes.get('/usage/requests', async (c) => {
    const limit = limitOf(c.req.query('limit'));
    const before = beforeOf(c.req.query('before'));
    return c.json(await serviceOf(engine()).requests(limit, before));
  });

  routes.get('/events', (c) => {
    const notifier = serviceOf(engine()).notifier;
    return streamSSE(c, async (stream) => {
      let id = 0;
      const off = notifier.subscribe((n) => {
        void stream.writeSSE({ event: 'notification', id: String(++id), data: JSON.stringify(n) });
      });
      const heartbeat = setInterval(() => void stream.write(': heartbeat\n\n'), HEARTBEAT_MS);
      await stream.write('retry: 2000\n\n');
      await new Promise<void>((resolve) => stream.onAbort(resolve));
      clearInterval(heartbeat);
      off();
    });
  });

  return routes;
}
