// The Responses wire types this module writes and reads: output items and their statuses, incomplete reasons.
import type { Json } from '../hub/index.ts';

/** An item of a Response's `output`: a message, a function_call or a reasoning item. */
export type OutputItem = Json & { type: string; id: string };

/** A Response's status. */
export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';

/** An output item's status: an item cut by the token limit, a content filter or a failure is incomplete. */
export type ItemStatus = 'in_progress' | 'completed' | 'incomplete';

/** Why a Response is incomplete (`incomplete_details.reason`). */
export type IncompleteReason = 'max_output_tokens' | 'content_filter';
