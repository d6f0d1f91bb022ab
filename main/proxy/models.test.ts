import { afterEach, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../shared/config.ts';
import { concreteNames, ModelCatalog } from './models.ts';
import { ProviderPool } from './provider-pool.ts';
import { Router } from './routing.ts';

describe('concreteNames', () => {
  it("is a pattern's brace expansions that are not globs", () => {
    expect(concreteNames('gpt-4o')).toEqual(['gpt-4o']);
    expect(concreteNames('claude-{opus,sonnet}-4-5')).toEqual(['claude-opus-4-5', 'claude-sonnet-4-5']);
    expect(concreteNames('gpt-*')).toEqual([]);
    expect(concreteNames('{o3,o4-*}')).toEqual(['o3']);
    expect(concreteNames('qwen[0-9]')).toEqual([]);
  });

  it('takes at most 100 names from one pattern', () => {
    expect(concreteNames('{a,b,c,d,e}{a,b,c,d,e}{a,b,c,d,e}{a,b,c,d,e}')).toHaveLength(100);
  });
});

const config = ConfigSchema.parse({
  providers: [
    { name: 'one', base_url: 'http://127.0.0.1:9/v1', api_key: '' },
    { name: 'two', base_url: 'http://127.0.0.1:9/v1', api_key: '' },
    { name: 'off', base_url: 'http://127.0.0.1:9/v1', api_key: '', enabled: false },
  ],
  routing: {
    default_provider: 'one',
    rules: [
      { pattern: 'b-*', provider: 'two' },
      { pattern: 'b-*', provider: 'one' },
      { pattern: 'pinned', provider: 'two' },
    ],
  },
  app_rules: [
    { app: 'to-two', default_provider: 'two' },
    { app: 'fixed', model_override: 'b-1' },
  ],
});

describe('ModelCatalog.listFor', () => {
  let pool: ProviderPool;
  afterEach(() => pool.close());

  function catalog(now = () => 1_000_000): { models: ModelCatalog; router: Router } {
    pool = new ProviderPool(config);
    const models = new ModelCatalog(pool, now);
    // Recorded lists are fresh: nothing is fetched.
    models.record('one', ['a-1', 'b-1', 'both'], null);
    models.record('two', ['b-1', 'b-2', 'both', 'two-only'], null);
    models.record('off', ['never'], null);
    return { models, router: new Router(config, '/config.json') };
  }
  const ids = (l: { data: { id: string; owned_by: string }[] }) => l.data.map((m) => `${m.id}@${m.owned_by}`);

  it("lists each model whose route reaches a provider that lists it, owned by the route's first such provider", async () => {
    const { models, router } = catalog();
    const listing = await models.listFor(router, null, config);
    expect(ids(listing)).toEqual(['a-1@one', 'b-1@two', 'both@one', 'b-2@two', 'pinned@two']);
    expect(listing.failed).toEqual([]);
  });

  it("follows an app's rule: its default_provider, or its model_override alone", async () => {
    const { models, router } = catalog();
    expect(ids(await models.listFor(router, 'to-two', config))).toEqual([
      'a-1@one',
      'b-1@two',
      'both@two',
      'b-2@two',
      'two-only@two',
      'pinned@two',
    ]);
    expect(ids(await models.listFor(router, 'Fixed.exe', config))).toEqual(['b-1@two']);
  });

  it('leaves out a provider whose list failed, names it, and lists it again once it answers', async () => {
    const { models, router } = catalog();
    models.record('two', null, 'connect ECONNREFUSED');
    const down = await models.listFor(router, null, config);
    expect(ids(down)).toEqual(['a-1@one', 'b-1@one', 'both@one', 'pinned@two']);
    expect(down.failed).toEqual([{ provider: 'two', error: 'connect ECONNREFUSED' }]);
    models.record('two', ['b-2'], null);
    expect(ids(await models.listFor(router, null, config))).toEqual([
      'a-1@one',
      'b-1@one',
      'both@one',
      'b-2@two',
      'pinned@two',
    ]);
  });

  it('keeps one listing per app rule until a list changes (a health check answering the same list changes nothing)', async () => {
    const { models, router } = catalog();
    const first = await models.listFor(router, 'someone', config);
    expect(await models.listFor(router, 'another', config)).toBe(first);
    models.record('one', ['a-1', 'b-1', 'both'], null);
    expect(await models.listFor(router, null, config)).toBe(first);
    models.record('one', ['a-1'], null);
    expect(await models.listFor(router, null, config)).not.toBe(first);
  });
});
