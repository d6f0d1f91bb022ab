// The shared conformance suite run on the Gemini format (model and streaming come from the URL, streams as SSE).
import { runConformance } from '../conformance.case.ts';
import { geminiFormat } from './index.ts';

runConformance(geminiFormat, {
  images: true,
  toolChoice: true,
  // Gemini responses carry no ids, but our client-side replies send `functionCall.id` and both directions read it
  // back, so ids survive the round trip; replies from a real Gemini provider get minted `call_…` ids.
  toolCallIds: true,
  usage: true,
  lengthFinish: true,
  context: (req) => ({ pathModel: req.model, pathStream: req.stream === true, query: new URLSearchParams('alt=sse') }),
});
