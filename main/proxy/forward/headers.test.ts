// The header policy as docs/routing.md ("Forwarding and failover") states it: what goes upstream on passthrough and when translated, what comes back.
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../shared/config.ts';
import { ProviderRuntime } from '../provider-pool.ts';
import { replyHeaders, upstreamHeaders } from './headers.ts';

const parsed = parseConfig({
  providers: [
    {
      name: 'anth',
      base_url: 'http://127.0.0.1:9/v1',
      type: 'anthropic',
      api_key: 'sk-ant-provider',
      headers: { 'x-extra': '1' },
    },
  ],
});
if (!parsed.ok) throw new Error('bad config');
const provider = new ProviderRuntime(parsed.config.providers[0]!, parsed.config);
afterAll(() => provider.agent.close());

const client = {
  host: 'localhost:11434',
  connection: 'keep-alive',
  'content-length': '999',
  'content-type': 'application/json',
  'accept-encoding': 'gzip',
  authorization: 'Bearer client-key',
  'x-api-key': 'client-key',
  cookie: 'a=b',
  origin: 'http://localhost:3000',
  referer: 'http://localhost:3000/',
  'x-switchboard-app': 'claude-code',
  'user-agent': 'claude-cli/2.0.0',
  'anthropic-version': '2023-06-01',
  'anthropic-beta': 'prompt-caching-2024-07-31',
  'x-title': 'My tool',
  'x-request-id': 'r-1',
};

describe('header policy', () => {
  it("passthrough: the client's headers go on but for hop-by-hop, credentials, cookies, origin/referer and ours", () => {
    const h = upstreamHeaders(client, provider, 42, false);
    expect(h).toEqual({
      'content-type': 'application/json',
      'user-agent': 'claude-cli/2.0.0',
      'anthropic-version': '2023-06-01',
      'anthropic-beta': 'prompt-caching-2024-07-31',
      'x-title': 'My tool',
      'x-request-id': 'r-1',
      'content-length': '42',
      'accept-encoding': 'identity',
      'x-extra': '1',
      'x-api-key': 'sk-ant-provider',
    });
  });

  it('Expect is not sent on: Node already answered 100-continue, and undici refuses the header (a 502 before)', () => {
    const h = upstreamHeaders({ ...client, expect: '100-continue' }, provider, 42, false);
    expect(h).not.toHaveProperty('expect');
  });

  it("translated: only user-agent, x-title, http-referer and x-request-id go on (the rest belong to the client's API)", () => {
    const h = upstreamHeaders(client, provider, 7, true);
    expect(h).toEqual({
      'user-agent': 'claude-cli/2.0.0',
      'x-title': 'My tool',
      'x-request-id': 'r-1',
      'content-length': '7',
      'accept-encoding': 'identity',
      'content-type': 'application/json',
      'x-extra': '1',
      'x-api-key': 'sk-ant-provider',
      'anthropic-version': '2023-06-01',
    });
  });

  it('reply headers: all but hop-by-hop ones, set-cookie and proxy-authenticate, with ours added', () => {
    const h = replyHeaders(
      { 'content-type': 'text/event-stream', connection: 'keep-alive', 'set-cookie': ['a=b'], 'x-request-id': 'u-1' },
      { 'x-switchboard-provider': 'anth' },
    );
    expect(h).toEqual({ 'content-type': 'text/event-stream', 'x-request-id': 'u-1', 'x-switchboard-provider': 'anth' });
  });
});
