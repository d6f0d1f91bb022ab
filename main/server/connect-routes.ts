// The admin API of Connect (docs/connect.md, "Connect your tools"): where every tool stands, connect and undo one
// (main/connect/), and Try it: one OpenAI chat request through the real routes, over loopback HTTP to this server's own
// /v1/chat/completions, answered with what came back, who served it and why. Mounted under /admin/v1 (admin.ts), so
// the admin token, Host and Origin guards apply.
import type { HttpBindings } from '@hono/node-server';
import { Hono } from 'hono';
import { performance } from 'node:perf_hooks';
import type { z } from 'zod';
import { ConnectRequestSchema, type TryResult, TryRequestSchema } from '../../shared/connect.ts';
import type { ConfigStore } from '../config/store.ts';
import type { ConnectDeps } from '../connect/connect.ts';
import { ApiError, invalidRequest, issuesToProblems } from '../errors.ts';
import { parseJsonBounded, readApiBody } from '../proxy/body.ts';
import type { Engine } from '../proxy/engine.ts';
import { priceOf } from '../usage/prices.ts';

/** The request's JSON body checked against a schema (an empty body is `undefined`, which a default may fill). */
async function bodyOf<S extends z.ZodType>(
  c: { env: unknown; req: { raw: Request } },
  schema: S,
): Promise<z.output<S>> {
  const raw = await readApiBody(c);
  let value: unknown = undefined;
  if (raw.length > 0) {
    try {
      value = parseJsonBounded(raw);
    } catch (err) {
      throw new ApiError('invalid_json', `The body is not valid JSON: ${(err as Error).message}.`);
    }
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw invalidRequest(issuesToProblems(parsed.error.issues));
  return parsed.data;
}

type ChatReply = {
  model?: unknown;
  choices?: { message?: { content?: unknown } }[];
  usage?: { prompt_tokens?: unknown; completion_tokens?: unknown; prompt_tokens_details?: { cached_tokens?: unknown } };
  error?: { message?: unknown };
};

/** How long Connect waits for the providers' model lists (the rest of the page does not wait for a slow one). */
const MODELS_WAIT_MS = 1500;

/**
 * The model names Switchboard serves, for the cards that show one (manual tools) or list them (OpenCode): the names
 * the routing rules give exactly, then those the enabled providers list and the routes reach (GET /v1/models), read
 * for at most MODELS_WAIT_MS.
 */
async function servedModels(e: Engine, routed: string[]): Promise<string[]> {
  const listed = await Promise.race([
    e.models.listFor(e.router, null, e.config).then(
      (l) => l.data.map((m) => m.id),
      () => [] as string[],
    ),
    new Promise<string[]>((resolve) => setTimeout(() => resolve([]), MODELS_WAIT_MS).unref()),
  ]);
  return [...new Set([...routed, ...listed])];
}

const count = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

export function connectRoutes(
  engine: () => Engine,
  store: ConfigStore,
  listenPort: () => number,
): Hono<{ Bindings: HttpBindings }> {
  const routes = new Hono<{ Bindings: HttpBindings }>();
  // Connect (and its TOML, YAML and JSONC editors) is loaded on the first visit of the Connect page, not at start.
  const connect = () => import('../connect/connect.ts');
  const deps = async (): Promise<ConnectDeps> => {
    const e = engine();
    return {
      configDir: store.dir,
      port: listenPort(),
      models: await servedModels(e, (await connect()).routedModelNames(e.config)),
      // Each tool's usual models through the running routes (issue 34: Connect checks routing).
      routing: { resolve: (model, app) => e.router.preview(model, app), config: e.config },
    };
  };

  routes.get('/connect', async (c) => c.json(await (await connect()).connectOverview(await deps())));
  routes.post('/connect/:tool', async (c) => {
    const body = await bodyOf(c, ConnectRequestSchema);
    return c.json(await (await connect()).connectTool(await deps(), c.req.param('tool'), { force: body.force }));
  });
  routes.post('/connect/:tool/undo', async (c) => {
    const body = await bodyOf(c, ConnectRequestSchema);
    return c.json(await (await connect()).undoTool(await deps(), c.req.param('tool'), { force: body.force }));
  });

  routes.post('/try', async (c) => {
    const body = await bodyOf(c, TryRequestSchema);
    const app = body.app?.trim() || 'switchboard-try';
    const e = engine();
    const route = e.router.resolve(body.model, app);
    // This server's own address, as the admin request reached it: the loopback listener, whatever --host said.
    const socket = c.env.incoming.socket;
    const host = socket.localAddress ?? '127.0.0.1';
    const url = `http://${host.includes(':') ? `[${host}]` : host}:${socket.localPort}/v1/chat/completions`;
    const t0 = performance.now();
    let result: TryResult;
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-switchboard-app': app },
        body: JSON.stringify({ model: body.model, messages: [{ role: 'user', content: body.message }], stream: false }),
        signal: AbortSignal.timeout(e.config.timeouts.first_byte_ms + e.config.timeouts.idle_ms),
      });
      const text = await res.text();
      const latency = Math.round(performance.now() - t0);
      let reply: ChatReply = {};
      try {
        reply = JSON.parse(text) as ChatReply;
      } catch {
        // not JSON: the text itself is the message
      }
      const content = reply.choices?.[0]?.message?.content;
      const provider = res.headers.get('x-switchboard-provider');
      const model = res.ok && typeof reply.model === 'string' ? reply.model : route.model;
      const prompt = count(reply.usage?.prompt_tokens);
      const completion = count(reply.usage?.completion_tokens);
      // The usage engineer's price lookup (main/usage/prices.ts): config.json's overrides, local providers at 0, the table.
      const cost =
        res.ok && prompt !== null && completion !== null
          ? priceOf(
              {
                model,
                prompt_tokens: prompt,
                completion_tokens: completion,
                cache_read_tokens: count(reply.usage?.prompt_tokens_details?.cached_tokens) ?? 0,
                cache_write_tokens: 0,
              },
              e.config.providers.find((p) => p.name === provider),
              e.config,
            ).cost_usd
          : null;
      result = {
        ok: res.ok,
        status: res.status,
        answer: res.ok
          ? typeof content === 'string'
            ? content
            : ''
          : typeof reply.error?.message === 'string'
            ? reply.error.message
            : text.slice(0, 2000),
        provider,
        model,
        why: route.steps,
        latency_ms: latency,
        prompt_tokens: prompt,
        completion_tokens: completion,
        cost_usd: cost,
      };
    } catch (err) {
      result = {
        ok: false,
        status: (err as Error).name === 'TimeoutError' ? 504 : 502,
        answer: `Switchboard's own /v1/chat/completions did not answer: ${(err as Error).message}`,
        provider: null,
        model: route.model,
        why: route.steps,
        latency_ms: Math.round(performance.now() - t0),
        prompt_tokens: null,
        completion_tokens: null,
        cost_usd: null,
      };
    }
    return c.json(result);
  });

  return routes;
}
