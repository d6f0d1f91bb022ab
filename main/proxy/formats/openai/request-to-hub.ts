// Client side: an OpenAI chat request is the hub request itself; it is checked (zod, shared/openai.ts), not copied.
import { ChatRequestSchema, isChatRequest } from '../../../../shared/openai.ts';
import { invalidRequest, issuesToProblems } from '../../../errors.ts';
import { type HubRequest, requireModel, requireObject } from '../hub/index.ts';

export function requestToHub(json: unknown): HubRequest {
  const body = requireObject(json, '{"model": "...", "messages": [...]}');
  requireModel(body.model, '"gpt-4o-mini"');
  if (isChatRequest(body)) return body as HubRequest; // the schema's rules, without its cost (shared/openai.ts)
  const r = ChatRequestSchema.safeParse(body);
  if (!r.success) throw invalidRequest(issuesToProblems(r.error.issues));
  return body as HubRequest;
}
