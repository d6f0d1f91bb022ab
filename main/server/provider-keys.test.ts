// Masked provider keys sent back through the admin API: restored by their mask among the provider's stored keys.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors.ts';
import { providerKeys, restoreProviderKey } from './provider-keys.ts';

const stored = providerKeys({
  providers: [
    { name: 'pool', api_keys: ['sk-first-aaaa-1111', 'sk-second-bbb-2222', 'sk-third-cccc-3333'] },
    { name: 'twins', api_keys: ['sk-twin-one-xx-9999', 'sk-twin-two-yy-9999'] },
    { name: 'one', api_key: 'sk-only-key-dd-4444' },
  ],
});
const names = new Set(['pool', 'twins', 'one']);
const sent = (keys: Partial<{ api_key: string; api_keys: string[] }>) => ({
  api_key: keys.api_key,
  api_keys: keys.api_keys,
});

describe('restoreProviderKey', () => {
  it('finds a pool key by its mask, wherever it moved', () => {
    const s = sent({ api_keys: ['sk-****1111', 'sk-****3333'] });
    expect(restoreProviderKey('pool', 'api_keys.1', 'sk-****3333', s, stored, names)).toBe('sk-third-cccc-3333');
  });

  it('moves a key between api_key and api_keys', () => {
    const toPool = sent({ api_keys: ['sk-****4444'] });
    expect(restoreProviderKey('one', 'api_keys.0', 'sk-****4444', toPool, stored, names)).toBe('sk-only-key-dd-4444');
    const toOne = sent({ api_key: 'sk-****2222' });
    expect(restoreProviderKey('pool', 'api_key', 'sk-****2222', toOne, stored, names)).toBe('sk-second-bbb-2222');
  });

  it("takes a renamed provider's keys (a stored provider the config no longer names)", () => {
    const without = new Set(['twins', 'one', 'pool-2']);
    const s = sent({ api_keys: ['sk-****2222'] });
    expect(restoreProviderKey('pool-2', 'api_keys.0', 'sk-****2222', s, stored, without)).toBe('sk-second-bbb-2222');
  });

  it('two keys with one mask: by place while the pool is sent back as stored, else config_invalid', () => {
    const unchanged = sent({ api_keys: ['sk-****9999', 'sk-****9999'] });
    expect(restoreProviderKey('twins', 'api_keys.1', 'sk-****9999', unchanged, stored, names)).toBe(
      'sk-twin-two-yy-9999',
    );
    const oneRemoved = sent({ api_keys: ['sk-****9999'] });
    expect(() => restoreProviderKey('twins', 'api_keys.0', 'sk-****9999', oneRemoved, stored, names)).toThrow(
      /which 2 stored keys of this provider share/,
    );
  });

  it('a mask no stored key of the provider has: config_invalid (never saved as a key)', () => {
    const s = sent({ api_keys: ['sk-****4444'] });
    let err: unknown;
    try {
      restoreProviderKey('pool', 'api_keys.0', 'sk-****4444', s, stored, names);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe('config_invalid');
    expect((err as Error).message).toBe(
      'providers "pool": api_keys.0 is a masked value that matches no stored secret.',
    );
  });
});
