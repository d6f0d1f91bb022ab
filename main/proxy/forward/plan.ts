// How one candidate is called: the path and body for its provider, and how its reply becomes the client's.
import type { Readable } from 'node:stream';
import type { ClientFormat, HubRequest, ReplyContext, StreamDecoder, StreamEncoder } from '../formats/hub/index.ts';
import { providerFormat } from '../formats/index.ts';
import type { ProviderKind } from '../providers/index.ts';

/** A body streamed from disk: its exact length, and a fresh stream of it per attempt (so failover can resend it). */
export type UploadBody = { length: number; open(): Readable };

/** How a provider's reply becomes the client's when their formats differ. */
export type Translation = {
  /** A whole (non-stream) 2xx reply body → the client's body (the hub response for an in-process caller). */
  json(body: unknown): unknown;
  /** A streamed reply: the provider's decoder to hub chunks. */
  decoder?: () => StreamDecoder;
  /** The client's stream encoder of hub chunks (absent for an in-process caller, which takes the chunks). */
  encoder?: () => StreamEncoder;
  /** A provider's own 4xx body → the message for the client's error. */
  errorMessage(body: unknown): string | undefined;
};

export type AttemptPlan = {
  path: string;
  body: Buffer;
  /** A streamed body (a spooled multipart upload) sent instead of `body`: re-opened for each attempt. */
  upload?: UploadBody;
  /** Absent: the provider speaks the client's format and its bytes pass through. */
  translate?: Translation;
};

export type PlanTarget = { kind: ProviderKind; baseUrl: URL; name: string };

export interface Planner {
  /** The call for this candidate, or why it cannot serve the request (it is then skipped). */
  plan(target: PlanTarget): AttemptPlan | string;
}

/** The usual plan of a chat-like endpoint: the client's bytes when the provider speaks its format, else translated. */
export function chatPlan(
  target: PlanTarget,
  native: string | null,
  rawBody: Buffer,
  hub: HubRequest,
  client: ClientFormat,
  ctx: ReplyContext,
  stream: boolean,
): AttemptPlan {
  if (native !== null) return { path: native, body: rawBody };
  const pf = providerFormat(target.kind.format);
  return {
    path: target.kind.chatPath(hub.model, stream),
    body: Buffer.from(JSON.stringify(pf.requestFromHub(hub))),
    translate: {
      json: (body) => client.responseFromHub(pf.responseToHub(body, hub.model), ctx),
      decoder: () => pf.streamDecoder(hub.model),
      encoder: () => client.streamEncoder(ctx),
      errorMessage: (body) => pf.errorMessage(body),
    },
  };
}
