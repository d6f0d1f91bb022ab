// Client side: a hub (non-stream) response as Gemini's GenerateContentResponse, and Gemini's error body.
import { argumentsFromHub, contentText, messageWithAction } from '../hub/index.ts';
import type { FinishReason, HubAssistantMessage, HubResponse, HubUsage, ReplyContext } from '../hub/index.ts';
import type { WireError } from '../hub/index.ts';
import { finishFromHub, GEMINI_USAGE, googleStatus } from './common.ts';
import type {
  GeminiCandidate,
  GeminiErrorBody,
  GeminiFunctionCall,
  GeminiPart,
  GeminiResponse,
  GeminiUsage,
} from './types.ts';

/** A hub tool call as a functionCall; our replies carry its id (an optional Gemini field) for clients to echo. */
export function callFromHub(id: string | undefined, name: string, args: string): GeminiFunctionCall {
  return id ? { id, name, args: argumentsFromHub(args) } : { name, args: argumentsFromHub(args) };
}

export function usageFromHub(u: HubUsage): GeminiUsage {
  return GEMINI_USAGE.fromHub(u) as GeminiUsage;
}

/** A reply's parts: thoughts first, then text, then function calls. */
function partsFromHub(message: HubAssistantMessage): GeminiPart[] {
  const parts: GeminiPart[] = [];
  if (message.reasoning_content) parts.push({ text: message.reasoning_content, thought: true });
  const text = contentText(message.content);
  if (text) parts.push({ text });
  for (const tc of message.tool_calls ?? []) {
    parts.push({ functionCall: callFromHub(tc.id, tc.function.name, tc.function.arguments) });
  }
  return parts;
}

export function candidateFromHub(index: number, parts: GeminiPart[], finish: FinishReason | null): GeminiCandidate {
  const candidate: GeminiCandidate = {};
  // A blocked reply has no content in Gemini; any other reply keeps at least an empty text part.
  if (parts.length || finish !== 'content_filter') {
    candidate.content = { parts: parts.length ? parts : [{ text: '' }], role: 'model' };
  }
  if (finish) candidate.finishReason = finishFromHub(finish);
  candidate.index = index;
  return candidate;
}

export function responseFromHub(res: HubResponse, ctx: ReplyContext): GeminiResponse {
  const out: GeminiResponse = {
    candidates: res.choices.map((c) => candidateFromHub(c.index, partsFromHub(c.message), c.finish_reason ?? 'stop')),
  };
  if (res.usage) out.usageMetadata = usageFromHub(res.usage);
  out.modelVersion = res.model || ctx.model;
  out.responseId = res.id;
  return out;
}

/** Gemini's error body; the suggested action follows the message, where Gemini clients show it. */
export function errorBody(e: WireError): GeminiErrorBody {
  return {
    error: {
      code: e.status,
      message: messageWithAction(e),
      status: googleStatus(e.status),
      details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: e.code, domain: 'switchboard' }],
    },
  };
}
