// The admin API of issue 38 (docs/insight.md, "Request capture", "Replay and compare", "Where the tokens went"): a captured
// request's bodies; replays of one to other providers and models, sent through this server's own front door over
// loopback HTTP (the same translation path as the original, logged and counted as any request, marked as replays);
// and where the input tokens of the captured requests went (per session, app and day). Mounted under /admin/v1
// (admin.ts), so the admin token, Host and Origin guards apply.
import type { HttpBindings } from '@hono/node-server';
import { Hono } from 'hono';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { RequestLogEntry } from '../../shared/admin.ts';
import { bareAppName } from '../../shared/app-name.ts';
import {
  answerOf,
  ATTRIBUTION_REQUESTS_MAX,
  AttributionQuerySchema,
  type AttributionResponse,
  type AttributionSplit,
  type ReplayResponse,
  type ReplayResult,
  ReplayRequestSchema,
} from '../../shared/insight.ts';
import { ApiError, invalidRequest, issuesToProblems } from '../errors.ts';
import type { Capture } from '../insight/capture.ts';
import { parseJsonBounded, readApiBody } from '../proxy/body.ts';
import type { Engine } from '../proxy/engine.ts';
import { attribute, sumSplits } from '../insight/attribution.ts';

/** A replay's reply body kept in the answer (the whole text is in its own capture when capture is on). */
const REPLAY_BODY_MAX = 256 * 1024;
/** Headers of the captured request not sent again (the connection's, and what the replay sets itself). */
const NOT_REPLAYED = new Set([
  'host',
  'content-length',
  'connection',
  'transfer-encoding',
  'accept-encoding',
  'origin',
]);

function notCaptured(id: string): ApiError {
  return new ApiError('capture_not_found', `No captured bodies for request log id "${id}".`);
}

/** The captured request's path and body with the model a replay asks for (in the body, or in a Gemini path). */
function retargeted(capture: Capture, model: string): { path: string; body: string } {
  let path = capture.path;
  if (/\/models\/[^/:?]+:/.test(path))
    path = path.replace(/(\/models\/)[^/:?]+(:)/, `$1${encodeURIComponent(model)}$2`);
  let body = capture.request.body;
  try {
    const json = JSON.parse(body) as Record<string, unknown>;
    if (json && typeof json === 'object' && 'model' in json) body = JSON.stringify({ ...json, model });
  } catch {
    // not JSON: sent as captured
  }
  return { path, body };
}

export function insightRoutes(engine: () => Engine): Hono<{ Bindings: HttpBindings }> {
  const routes = new Hono<{ Bindings: HttpBindings }>();

  routes.get('/logs/:id/body', async (c) => {
    const id = c.req.param('id');
    const capture = (await engine().capture?.get(id)) ?? null;
    if (!capture) throw notCaptured(id);
    const answer = answerOf(capture.response.body);
    return c.json({ ...capture, answer });
  });

  routes.post('/replay', async (c) => {
    const raw = await readApiBody(c);
    let value: unknown;
    try {
      value = parseJsonBounded(raw);
    } catch (err) {
      throw new ApiError('invalid_json', `The body is not valid JSON: ${(err as Error).message}.`);
    }
    const parsed = ReplayRequestSchema.safeParse(value);
    if (!parsed.success) throw invalidRequest(issuesToProblems(parsed.error.issues));
    const { log_id, targets } = parsed.data;
    const e = engine();
    const capture = (await e.capture?.get(log_id)) ?? null;
    if (!capture) throw notCaptured(log_id);
    if (capture.request.truncated)
      throw new ApiError(
        'invalid_request',
        `The captured request ${log_id} was cut at its size cap: it cannot be sent again.`,
      );
    for (const t of targets) {
      const p = e.config.providers.find((x) => x.name === t.provider);
      if (!p || !p.enabled)
        throw new ApiError(
          'invalid_request',
          `targets: provider "${t.provider}" ${p ? 'is disabled' : 'does not exist'}.`,
          'Name an enabled provider of config.json.',
        );
    }
    // This server's own address, as the admin request reached it (the loopback listener).
    const socket = c.env.incoming.socket;
    const host = socket.localAddress ?? '127.0.0.1';
    const origin = `http://${host.includes(':') ? `[${host}]` : host}:${socket.localPort}`;
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(capture.request.headers)) if (!NOT_REPLAYED.has(k)) headers[k] = v;
    const timeout = e.config.timeouts.first_byte_ms + e.config.timeouts.idle_ms;

    // Every target at once (a compare on 3 models takes as long as the slowest).
    const replays = await Promise.all(
      targets.map(async (t): Promise<ReplayResult> => {
        const id = randomUUID();
        const marks = Buffer.from(JSON.stringify({ of: log_id, id, provider: t.provider })).toString('base64url');
        const { path, body } = retargeted(capture, t.model);
        const t0 = performance.now();
        let status = 0;
        let text = '';
        try {
          const res = await fetch(origin + path, {
            method: capture.method,
            headers: {
              ...headers,
              'x-switchboard-app': 'replay',
              'x-switchboard-replay': `${e.replayToken}.${marks}`,
            },
            body,
            signal: AbortSignal.timeout(timeout),
          });
          status = res.status;
          text = await res.text();
        } catch (err) {
          status = 504;
          text = JSON.stringify({ error: { message: (err as Error).message } });
        }
        const latency = Math.round(performance.now() - t0);
        const entry = await logEntry(e, id);
        const answer = answerOf(text);
        return {
          provider: t.provider,
          model: t.model,
          log_id: id,
          status,
          latency_ms: entry?.latency_ms ?? latency,
          text: answer.text,
          tool_calls: answer.tool_calls,
          prompt_tokens: entry?.prompt_tokens ?? null,
          completion_tokens: entry?.completion_tokens ?? null,
          body: text.slice(0, REPLAY_BODY_MAX),
        };
      }),
    );
    const original = answerOf(capture.response.body);
    const out: ReplayResponse = {
      original: { log_id, provider: capture.provider, model: capture.model, ...original },
      replays,
    };
    return c.json(out);
  });

  routes.get('/usage/attribution', async (c) => {
    const parsed = AttributionQuerySchema.safeParse(c.req.query());
    if (!parsed.success) throw invalidRequest(issuesToProblems(parsed.error.issues));
    const q = parsed.data;
    const from = q.from ? Date.parse(q.from) : -Infinity;
    const to = q.to ? Date.parse(q.to) : Infinity;
    const app = q.app ? bareAppName(q.app) : null;
    const captures = (await engine().capture?.all(ATTRIBUTION_REQUESTS_MAX)) ?? [];
    const requests: AttributionResponse['requests'] = [];
    for (const cap of captures) {
      const t = Date.parse(cap.time);
      if (t < from || t > to) continue;
      if (q.session !== undefined && cap.session !== q.session) continue;
      if (app !== null && (cap.app === null || bareAppName(cap.app) !== app)) continue;
      if (cap.request.truncated) continue;
      const split = attribute(cap.path, cap.request.body, cap.input_tokens ?? null);
      if (split)
        requests.push({
          id: cap.id,
          time: cap.time,
          app: cap.app,
          session: cap.session ?? null,
          model: cap.model,
          split,
        });
    }
    const byDay = new Map<string, AttributionSplit[]>();
    for (const r of requests) {
      const day = r.time.slice(0, 10);
      byDay.set(day, [...(byDay.get(day) ?? []), r.split]);
    }
    const out: AttributionResponse = {
      requests,
      total: sumSplits(requests.map((r) => r.split)),
      days: [...byDay].map(([day, splits]) => ({ day, total: sumSplits(splits) })),
    };
    return c.json(out);
  });

  return routes;
}

/** A request's log entry by id: added right after its reply ends, so looked for a few times (1 s at most). */
async function logEntry(e: Engine, id: string): Promise<RequestLogEntry | null> {
  for (let i = 0; i < 20; i++) {
    const found = e.requestLog.recent(200).find((x) => x.id === id);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
  return null;
}
