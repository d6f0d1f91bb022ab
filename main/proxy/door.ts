// What a front door is (one per client wire format and endpoint), and how it plans each candidate's call. The HTTP
// handling of a door (guards, body, auth, app, limits, log) is the server's: main/server/front-door.ts.
import type { IncomingMessage } from 'node:http';
import type { ApiError } from '../errors.ts';
import type { ClientContext, ClientFormat, HubRequest, ReplyContext } from './formats/hub/index.ts';
import { type AttemptPlan, chatPlan, type Planner, type PlanTarget, type UploadBody } from './forward/index.ts';
import type { ReplyTypes } from './forward/reply-type.ts';
import { guardPolicy, RequestGuard } from './guard/index.ts';
import type { Redaction } from './guard/redact.ts';
import { continuationHub } from './forward/continuation.ts';
import type { QuirkTable } from './quirks.ts';
import type { Config } from '../../shared/config.ts';

/** A body spooled to disk as it arrived (multipart uploads): its text fields and a streamed body per attempt. */
export type SpooledBody = {
  fields: Record<string, string>;
  /** The body to send, with the `model` field's value rewritten when it differs from the client's. */
  withModel(model: string): UploadBody;
  /** Removes the spooled file (called when the request ends, whatever happened). */
  dispose(): void;
};

export type PlanInput = {
  hub: HubRequest;
  rawBody: Buffer;
  ctx: ClientContext;
  stream: boolean;
  /** The routed model. */
  model: string;
  /** The model the client asked for. */
  clientModel: string;
  upload: SpooledBody | null;
  /** The provider/model quirks table of the config in force (quirks.ts). */
  quirks: QuirkTable;
  /**
   * The config whose secret_guard applies, or null when no candidate can have a policy but off (or the body is not
   * JSON): then nothing of the guard is made (guard/index.ts).
   */
  guardConfig: Config | null;
  /** The calling app (the guard's per-app policy). */
  app: string | null;
  /**
   * The route continues cut streams (continue_on_cut): a stream goes through the hub even to a provider of the
   * client's own format, so that a continuation can be stitched into it (forward/continuation.ts).
   */
  continueOnCut?: boolean;
};

export type FrontDoor = {
  format: ClientFormat;
  /** The route, for the request log. */
  path: string;
  /** Path below a provider's base_url when it speaks this format natively (bytes pass through), else null. */
  nativePath: (target: PlanTarget, model: string, stream: boolean, ctx: ClientContext) => string | null;
  /** Whether the model is a field of the body (rewritten on passthrough when routing changed it). */
  modelInBody: boolean;
  /**
   * A request this format's hub conversion refuses (e.g. a vendor's built-in tools) may still pass through to a
   * provider of the client's own kind. Off for OpenAI chat: its format is the hub.
   */
  passthroughUntranslatable?: boolean;
  /** Ollama streams unless told not to; every other format streams only when asked. */
  streamsByDefault?: boolean;
  /** A request the router answers itself (e.g. Ollama's "load the model" call), or null to route it. */
  local?: (body: unknown) => unknown | null;
  /** A body that is not JSON (multipart uploads): its fields as an object, in place of the JSON parse. */
  parseBody?: (body: Buffer, req: IncomingMessage) => unknown;
  /** Spools the body to disk instead of reading it (multipart uploads); null: read it as usual. */
  spool?: (req: IncomingMessage, limitBytes: number) => Promise<SpooledBody> | null;
  /**
   * `any`: the endpoint's replies may be of any type (audio, video, text): only an HTML page or a redirect fails its
   * provider. Default: a model route, answered with JSON or an event stream (main/proxy/forward/reply-type.ts).
   */
  replies?: ReplyTypes;
  /** A non-chat endpoint supplies its own plan per provider (e.g. embeddings); chat doors use chatPlan. */
  plan?: (target: PlanTarget, input: PlanInput) => AttemptPlan | string;
};

/** Each candidate's call for one request through a door (a class: no per-request closures on the hot path). */
export class DoorPlanner implements Planner {
  constructor(
    private readonly door: FrontDoor,
    private readonly input: PlanInput,
    private readonly untranslatable: ApiError | null,
    private readonly replyCtx: ReplyContext,
    /** The answer so far, when this plans a continuation of a cut stream (forward/continuation.ts). */
    private readonly prefix: string | null = null,
  ) {}

  /** The secret guard of this request, made at the first candidate whose policy is not off. */
  guard: RequestGuard | null = null;
  private redacted: PlanInput | null = null;

  plan(t: PlanTarget): AttemptPlan | string {
    const config = this.input.guardConfig;
    if (config !== null && (this.guard !== null || guardPolicy(config, t, this.input.app) !== 'off')) {
      const guard = (this.guard ??= new RequestGuard(config, this.input.app, this.input.rawBody, this.input.hub));
      const verdict = guard.check(t); // throws SecretBlocked: this candidate is skipped
      if (verdict.kind === 'redact') {
        const plan = this.planFor(t, this.redactedInput(verdict.redaction));
        return typeof plan === 'string' ? plan : { ...plan, rewriteReply: verdict.rewriteReply };
      }
    }
    return this.planFor(t, this.input);
  }

  private planFor(t: PlanTarget, input: PlanInput): AttemptPlan | string {
    const { door } = this;
    if (door.plan) return door.plan(t, input);
    const throughHub = input.continueOnCut === true && input.stream && this.untranslatable === null;
    const native = throughHub ? null : door.nativePath(t, input.model, input.stream, input.ctx);
    if (this.untranslatable && native === null) {
      return `${this.untranslatable.message.replace(/\.$/, '')}; provider "${t.name}" (type ${t.kind.type}) would need it translated`;
    }
    const hub = this.prefix === null ? input.hub : continuationHub(input.hub, this.prefix, t.kind.type);
    return chatPlan(t, native, input.rawBody, hub, door.format, this.replyCtx, input.stream, input.quirks);
  }

  /** The request with its secrets replaced by placeholders: the body, and its hub form made again from it. */
  private redactedInput(r: Redaction): PlanInput {
    if (this.redacted) return this.redacted;
    const input = this.input;
    let hub = input.hub;
    try {
      const json: unknown = JSON.parse(r.body.toString('utf8'));
      hub = { ...this.door.format.requestToHub(json, { ...input.ctx }), model: input.model };
    } catch {
      // a request the hub cannot express passes through only: its bytes are what is redacted
    }
    return (this.redacted = { ...input, rawBody: r.body, hub });
  }
}
