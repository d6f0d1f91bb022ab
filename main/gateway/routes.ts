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
import { taskIdOf, type VideoTask } from './video-tasks.ts';

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
            // Vendor B's task keeps the path it was created at: its polls are that path and the id only.
            if (id) gatewayFor(engine()).videos.remember(id, t.name, isVendorB(clientPath) ? clientPath : undefined);
            return reply;
          },
          errorMessage: errorMessageOf,
        },
      };
    },
  };
}

const isVendorB = (clientPath: string): boolean => /^\/vendorb(?:\/|$)/.test(clientPath);

/** What a poll asks for: the task, and the path it goes to at the provider (from the task, never the client's path). */
type Poll = { taskId: string; upstreamPath: (task: VideoTask) => string | null };

/**
 * A task poll (status or content): to the provider that created it, streamed back byte for byte. Only the task's own
 * path goes upstream with the provider's key: the route's template with the id, or for vendor B the path the task was
 * created at and the id (a known id at the end of any other path was forwarded whole: issue 33, item 9). A HEAD is
 * sent as a HEAD and answered with the head only.
 */
async function forwardPoll(engine: Engine, poll: Poll, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { taskId } = poll;
  const task = await gatewayFor(engine).videos.lookup(taskId);
  const path = task ? poll.upstreamPath(task) : null;
  if (!task || path === null) {
    throw new ApiError(
      'video_task_not_found',
      task?.path !== undefined
        ? `No video task "${taskId}" at this path: it is polled at ${task.path}/${encodeURIComponent(taskId)}.`
        : `No video task "${taskId}" was created through this Switchboard.`,
      'Use the task_id returned by the create call (POST /v1/videos or /v1/video/generations), at its own poll path.',
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
  const head = req.method === 'HEAD';
  const upstream = await provider.agent
    .request({
      origin: provider.origin,
      path: provider.basePath + path + url.search,
      method: head ? 'HEAD' : 'GET',
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
  if (head) {
    upstream.body.resume();
    res.writeHead(upstream.statusCode, headers);
    res.end();
    return;
  }
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

  const poll = (pollOf: (c: Ctx) => Poll) => async (c: Ctx) => {
    const engine = deps.engine();
    const { incoming, outgoing } = c.env;
    try {
      // Credentials were checked by the gatewayAuth middleware (every route but the front doors).
      await forwardPoll(engine, pollOf(c), incoming, outgoing);
    } catch (err) {
      if (!outgoing.headersSent) sendFormatError(outgoing, passthroughFormat, toApiError(err));
      else outgoing.destroy();
    }
    return RESPONSE_ALREADY_SENT;
  };
  /** A fixed poll route: the route's own path with the id, at the provider (a task of vendor B is not polled here). */
  const byTemplate = (template: string) => (c: Ctx) => {
    const taskId = c.req.param('task_id') ?? '';
    return {
      taskId,
      upstreamPath: (task: VideoTask) =>
        task.path !== undefined ? null : upstreamPathOf(template.replace(':task_id', encodeURIComponent(taskId))),
    };
  };
  for (const template of [
    '/v1/videos/:task_id',
    '/v1/videos/:task_id/content',
    '/v1/video/generations/:task_id',
    '/vendora/v1/videos/text2video/:task_id',
    '/vendora/v1/videos/image2video/:task_id',
  ])
    app.get(template, poll(byTemplate(template)));
  // Vendor B: POST under the prefix creates a task; GET <the create's path>/{task_id} polls it.
  // The path as the client encoded it (Hono's is decoded): a %00 decoded went upstream as a NUL, which undici refused.
  app.post('/vendorb/*', async (c) => run(videoCreateDoor(rawPath(c), deps.engine))(c));
  app.get(
    '/vendorb/*',
    poll((c) => {
      const raw = rawPath(c);
      const slash = raw.lastIndexOf('/');
      const [at, last] = [raw.slice(0, slash), raw.slice(slash + 1)];
      return {
        taskId: decodeURIComponent(last),
        upstreamPath: (task) => (task.path === at ? `${upstreamPathOf(at)}/${last}` : null),
      };
    }),
  );
  return app;
}
