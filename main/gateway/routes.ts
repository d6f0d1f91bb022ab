// The gateway's endpoints beyond chat: images, audio, rerank, moderations, responses/compact and video tasks, each
// forwarded to the routed provider through the shared front door (failover, limits, keys, request log), plus the
// video status/content polls that go back to the provider that created the task.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { type Context, Hono } from 'hono';
import type { Engine } from '../proxy/engine.ts';
import { type ClientFormat, errorMessageOf } from '../proxy/formats/hub/index.ts';
import { openaiFormat } from '../proxy/formats/openai/index.ts';
import { ApiError, toApiError } from '../errors.ts';
import type { FrontDoor, PlanInput } from '../proxy/door.ts';
import { type AttemptPlan, type PlanTarget, redact, replyHeaders, sendFormatError } from '../proxy/forward/index.ts';
import { GATEWAY_JSON_PATHS, GATEWAY_MULTIPART_PATHS, VIDEO_CREATE_PATHS } from './front-doors.ts';
import { gatewayFor } from './gateway.ts';
import { isMultipart, spoolUpload } from './multipart.ts';
import { taskIdOf } from './video-tasks.ts';

type Ctx = Context<{ Bindings: HttpBindings }>;

/** An OpenAI-shaped endpoint whose body is forwarded as is: only the model (required) is read. */
const passthroughFormat: ClientFormat = {
  name: 'openai',
  requestToHub(body) {
    const b = body as { model?: unknown; stream?: unknown } | null;
    if (!b || typeof b !== 'object' || Array.isArray(b)) {
      throw new ApiError(
        'invalid_request',
        'The request body must be a JSON object (or multipart fields).',
        'Send the fields this endpoint takes, with "model".',
      );
    }
    if (typeof b.model !== 'string' || b.model === '') {
      throw new ApiError(
        'model_required',
        'The request has no "model"; Switchboard routes by it.',
        'Add "model" (a JSON field, or a multipart form field).',
      );
    }
    return { model: b.model, messages: [], stream: b.stream === true };
  },
  responseFromHub: () => ({}),
  streamEncoder: (ctx) => openaiFormat.streamEncoder(ctx),
  errorBody: (e) => openaiFormat.errorBody(e),
};

/** "this provider cannot serve this endpoint" for provider kinds that do not speak the OpenAI endpoints. */
function unsupported(t: PlanTarget, clientPath: string): string {
  return `provider "${t.name}" (type ${t.kind.type}) does not offer ${clientPath}`;
}

/** The path below a provider's base_url (which includes /v1): the client's path without its version prefix. */
export function upstreamPathOf(clientPath: string): string {
  const m = /^(?:\/vendora\/v1|\/vendorb\/v1|\/vendorb|\/v1)(\/.*)$/.exec(clientPath);
  return m ? m[1]! : clientPath;
}

function jsonDoor(clientPath: string): FrontDoor {
  return {
    format: passthroughFormat,
    path: clientPath,
    nativePath: () => null,
    modelInBody: true,
    replies: 'any', // audio/speech answers audio
    plan: (t, input) =>
      t.kind.format === 'openai'
        ? { path: upstreamPathOf(clientPath), body: input.rawBody }
        : unsupported(t, clientPath),
  };
}

/**
 * A multipart upload: spooled to a temp file while its text fields are parsed (the model is a form field), then
 * streamed from the file to each candidate, the model field rewritten on the way when routing changed it.
 */
function multipartDoor(clientPath: string): FrontDoor {
  return {
    format: passthroughFormat,
    path: clientPath,
    nativePath: () => null,
    modelInBody: false,
    replies: 'any', // transcriptions answer text, SRT or VTT when asked
    spool: spoolUpload,
    plan: (t, input: PlanInput) => {
      if (t.kind.format !== 'openai') return unsupported(t, clientPath);
      return {
        path: upstreamPathOf(clientPath),
        body: input.rawBody,
        ...(input.upload ? { upload: input.upload.withModel(input.model) } : {}),
      };
    },
  };
}

/** Video creates are JSON, or multipart when they carry a file (OpenAI's `input_reference`): those are spooled. */
const spoolIfMultipart = (req: IncomingMessage, limitBytes: number) =>
  isMultipart(req.headers['content-type']) ? spoolUpload(req, limitBytes) : null;

/** A video task create: the reply's task id is remembered with the provider that answered (durably) first. */
function videoCreateDoor(clientPath: string, engine: () => Engine): FrontDoor {
  return {
    format: passthroughFormat,
    path: clientPath,
    nativePath: () => null,
    modelInBody: true,
    spool: spoolIfMultipart,
    plan: (t, input): AttemptPlan | string => {
      if (t.kind.format !== 'openai') return unsupported(t, clientPath);
      return {
        path: upstreamPathOf(clientPath),
        body: input.rawBody,
        ...(input.upload ? { upload: input.upload.withModel(input.model) } : {}),
        translate: {
          json: (reply) => {
            const id = taskIdOf(reply);
            if (id) gatewayFor(engine()).videos.remember(id, t.name);
            return reply;
          },
          errorMessage: errorMessageOf,
        },
      };
    },
  };
}

/** A task poll (status or content): to the provider that created it, streamed back byte for byte. */
async function forwardPoll(engine: Engine, taskId: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const task = await gatewayFor(engine).videos.lookup(taskId);
  if (!task) {
    throw new ApiError(
      'video_task_not_found',
      `No video task "${taskId}" was created through this Switchboard.`,
      'Use the task_id returned by the create call (POST /v1/videos or /v1/video/generations).',
    );
  }
  const provider = engine.pool.get(task.provider);
  if (!provider) {
    throw new ApiError(
      'upstream_unreachable',
      `Video task "${taskId}" was created by provider "${task.provider}", which is no longer configured.`,
      `Add provider "${task.provider}" back to config.json to poll this task.`,
    );
  }
  const url = new URL(req.url ?? '/', 'http://x');
  const upstream = await provider.agent
    .request({
      origin: provider.origin,
      path: provider.basePath + upstreamPathOf(url.pathname) + url.search,
      method: 'GET',
      headers: { ...provider.requestHeaders(), accept: req.headers.accept ?? '*/*', 'accept-encoding': 'identity' },
      headersTimeout: provider.timeouts.first_byte_ms,
      bodyTimeout: provider.timeouts.idle_ms,
    })
    .catch((err: Error) => {
      throw new ApiError(
        'upstream_unreachable',
        `Provider "${task.provider}" (which created video task "${taskId}") failed: ${err.message}.`,
        'Retry the poll later.',
      );
    });
  const headers = replyHeaders(upstream.headers, { 'x-switchboard-provider': task.provider });
  if (upstream.statusCode >= 400) {
    // The provider's error answer may quote the key it refused: read whole and scrubbed, as forwarding does.
    const body = Buffer.from(redact(await upstream.body.text()));
    headers['content-length'] = String(body.length);
    res.writeHead(upstream.statusCode, headers);
    res.end(body);
    return;
  }
  res.writeHead(upstream.statusCode, headers);
  res.on('close', () => upstream.body.destroy());
  for await (const chunk of upstream.body) {
    if (!res.write(chunk)) await new Promise((r) => res.once('drain', r));
  }
  res.end();
}

/** The request's path as sent, still percent-encoded. */
const rawPath = (c: Ctx): string => (c.env.incoming.url ?? '/').split('?')[0]!;

export type GatewayRouteDeps = {
  engine: () => Engine;
  /** Runs a front door on the raw request and response (the server's, handed in by main/server/app.ts). */
  runDoor: (door: FrontDoor, req: IncomingMessage, res: ServerResponse) => Promise<void>;
};

export function gatewayRoutes(deps: GatewayRouteDeps): Hono<{ Bindings: HttpBindings }> {
  const app = new Hono<{ Bindings: HttpBindings }>();
  const run = (d: FrontDoor) => async (c: Ctx) => {
    await deps.runDoor(d, c.env.incoming, c.env.outgoing);
    return RESPONSE_ALREADY_SENT;
  };
  for (const p of GATEWAY_JSON_PATHS) app.post(p, run(jsonDoor(p)));
  for (const p of GATEWAY_MULTIPART_PATHS) app.post(p, run(multipartDoor(p)));
  for (const p of VIDEO_CREATE_PATHS) app.post(p, run(videoCreateDoor(p, deps.engine)));

  const poll = (taskOf: (c: Ctx) => string) => async (c: Ctx) => {
    const engine = deps.engine();
    const { incoming, outgoing } = c.env;
    try {
      // Credentials were checked by the gatewayAuth middleware (every route but the front doors).
      await forwardPoll(engine, taskOf(c), incoming, outgoing);
    } catch (err) {
      sendFormatError(outgoing, passthroughFormat, toApiError(err));
    }
    return RESPONSE_ALREADY_SENT;
  };
  const byParam = (c: Ctx) => c.req.param('task_id') ?? '';
  app.get('/v1/videos/:task_id', poll(byParam));
  app.get('/v1/videos/:task_id/content', poll(byParam));
  app.get('/v1/video/generations/:task_id', poll(byParam));
  app.get('/vendora/v1/videos/text2video/:task_id', poll(byParam));
  app.get('/vendora/v1/videos/image2video/:task_id', poll(byParam));
  // Vendor B: POST under the prefix creates a task; GET …/{task_id} polls it (the last path segment).
  // The path as the client encoded it (Hono's is decoded): a %00 decoded went upstream as a NUL, which undici refused.
  app.post('/vendorb/*', async (c) => run(videoCreateDoor(rawPath(c), deps.engine))(c));
  app.get(
    '/vendorb/*',
    poll((c) => decodeURIComponent(c.req.path.split('/').pop() ?? '')),
  );
  return app;
}
