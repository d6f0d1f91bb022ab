// Forwarding: the failover loop, one upstream attempt, failure classification, the header policy, attempt plans,
// and the reply-target interface with its HTTP implementation.
export { forwardWithFailover, type ForwardOutcome, type ForwardRequest } from './failover.ts';
export {
  CandidateRefusal,
  chatPlan,
  hubForProvider,
  type AttemptPlan,
  type Planner,
  type PlanTarget,
  type Translation,
  type UploadBody,
} from './plan.ts';
export { classify, errorTextOf, isRetryableStatus } from './classify.ts';
export { replyHeaders } from './headers.ts';
/** The scrubber of upstream texts, for the gateway's own relays of a provider's answer. */
export { redact } from '../../observability/redact.ts';
export { HttpReplyTarget, sendFormatError } from './http-target.ts';
export type { ClientListener, ReplySink, ReplyTarget, SinkInit, Usage } from './target.ts';
export { finishDecoding, NO_USAGE } from './target.ts';
export { usageFromText, usageOfHub } from './usage-text.ts';
