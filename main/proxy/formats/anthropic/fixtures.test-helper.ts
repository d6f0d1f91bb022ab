// Test helper: fixtures the Anthropic tests share (a hub reply, the client's context, stream decoding in pieces, the
// official SDK answered by a stubbed fetch).
import Anthropic from '@anthropic-ai/sdk';
import { decodeCut, hubReply } from '../fixtures.test-helper.ts';
import type { HubChunk } from '../hub/index.ts';
import { anthropicFormat } from './index.ts';

export const ctx = { model: 'claude-test-1' };
export const base = { id: 'chatcmpl-1', created: 1700000000, model: 'gpt-4o' };

/** The reply of Anthropic's reference text message, as a provider's hub reply. */
export const textResponse = hubReply(base, { content: 'Hi! My name is Claude.' }, 'stop', {
  prompt_tokens: 2095,
  completion_tokens: 503,
  total_tokens: 2598,
});

/** An Anthropic stream decoded in pieces cut at `cuts`. */
export const decode = (text: string, cuts: number[] = []): HubChunk[] =>
  decodeCut(anthropicFormat, 'asked-model', text, cuts);

/** The official SDK, its fetch answering every call with `body`; `sent` gets each JSON request body. */
export function sdkAnswering(body: string, contentType: string, sent?: (body: unknown) => void): Anthropic {
  return new Anthropic({
    apiKey: 'x',
    maxRetries: 0,
    fetch: async (_url, init) => {
      sent?.(JSON.parse(String(init?.body)));
      return new Response(body, { headers: { 'content-type': contentType } });
    },
  });
}
