// Editing a key pool through the admin API (what the Providers page's pool editor sends), through `switchboard serve`:
// the config is read with every key masked and sent back with a key removed from the middle, so the keys after it
// move up a place; they are restored by their mask, not their place. Two stored keys with one mask sent back after a
// removal cannot be told apart: 400 config_invalid naming the key, config.json untouched. Moving a provider from one
// key to a pool (and back) keeps the key though it arrives masked in the other field.
import fs from 'node:fs/promises';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { maskKey } from '../../shared/config.ts';
import { shutDownAfterAll } from '../../test/support/lifecycle.ts';
import { eventually, type ServeProcess, startServe } from '../../test/support/serve-process.ts';

const POOL = ['sk-pool-first-aaaa-1111', 'sk-pool-second-bbbb-2222', 'sk-pool-third-cccc-3333'];
// Two keys with one mask (the same first 3 and last 4 characters).
const TWINS = ['sk-twin-one-xxxx-9999', 'sk-twin-two-yyyy-9999', 'sk-twin-three-zz-7777'];
type Provider = { name: string; base_url: string; api_key?: string; api_keys?: string[] };
type Cfg = { providers: Provider[]; [k: string]: unknown };

const start = (): Cfg => ({
  listen_port: 11434,
  providers: [
    { name: 'pooled', base_url: 'http://127.0.0.1:9/v1', api_keys: [...POOL] },
    { name: 'twins', base_url: 'http://127.0.0.1:9/v1', api_keys: [...TWINS] },
    { name: 'single', base_url: 'http://127.0.0.1:9/v1', api_key: 'sk-single-key-dddd-4444' },
  ],
  routing: { default_provider: 'pooled', rules: [] },
  health_check: { interval_ms: 0, timeout_ms: 2000 },
});

let sb: ServeProcess;
beforeAll(async () => {
  sb = await startServe({ config: start() });
});
shutDownAfterAll(() => [sb]);
beforeEach(async () => {
  await sb.writeConfig(start());
  // The engine has read it (the admin API's copy is the file's, masked).
  const masked = start();
  for (const p of masked.providers) {
    if (p.api_key) p.api_key = maskKey(p.api_key);
    if (p.api_keys) p.api_keys = p.api_keys.map(maskKey);
  }
  await eventually(async () => expect(await read()).toEqual(masked));
});

const read = async (): Promise<Cfg> => ((await (await sb.admin('/config')).json()) as { config: Cfg }).config;
const onDisk = async (): Promise<Cfg> => JSON.parse(await fs.readFile(sb.configPath, 'utf8')) as Cfg;
const put = (config: Cfg) =>
  sb.admin('/config', {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(config),
  });
const provider = (c: Cfg, name: string) => c.providers.find((p) => p.name === name)!;

describe('a key pool edited through the admin API', () => {
  it('removing the middle key keeps keys 1 and 3 (restored by mask, not by place); nothing leaves in clear', async () => {
    const cfg = await read();
    const shown = provider(cfg, 'pooled').api_keys!;
    expect(shown).toEqual(['sk-****1111', 'sk-****2222', 'sk-****3333']);
    expect(JSON.stringify(cfg)).not.toMatch(/pool-first|pool-second|pool-third|twin-/);
    provider(cfg, 'pooled').api_keys = [shown[0]!, shown[2]!];
    const res = await put(cfg);
    expect(res.status, await res.clone().text()).toBe(200);
    expect(JSON.stringify(await res.json())).not.toMatch(/pool-first|pool-third/);
    expect(provider(await onDisk(), 'pooled').api_keys).toEqual([POOL[0], POOL[2]]);
    // The other pool, sent back as it was, is unchanged (its two keys with one mask included).
    expect(provider(await onDisk(), 'twins').api_keys).toEqual(TWINS);
  });

  it('a key added in full beside masked ones, and a renamed pooled provider, keep every key', async () => {
    const cfg = await read();
    const p = provider(cfg, 'pooled');
    p.name = 'pooled-renamed';
    p.api_keys = [p.api_keys![2]!, 'sk-pool-fourth-eeee-5555', p.api_keys![0]!];
    cfg.routing = { default_provider: 'pooled-renamed', rules: [] };
    const res = await put(cfg);
    expect(res.status, await res.clone().text()).toBe(200);
    expect(provider(await onDisk(), 'pooled-renamed').api_keys).toEqual([POOL[2], 'sk-pool-fourth-eeee-5555', POOL[0]]);
  });

  it('two stored keys with one mask, sent back masked after a removal: 400 config_invalid, config.json untouched', async () => {
    const before = await fs.readFile(sb.configPath, 'utf8');
    const cfg = await read();
    const shown = provider(cfg, 'twins').api_keys!;
    expect(shown[0]).toBe(shown[1]); // sk-****9999 twice
    provider(cfg, 'twins').api_keys = [shown[1]!, shown[2]!]; // the first removed: which one is kept?
    const res = await put(cfg);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('config_invalid');
    expect(body.error.message).toBe(
      'providers "twins": api_keys.0 is masked as "sk-****9999", which 2 stored keys of this provider share, so which one it stands for is unclear (keys were removed, added or moved).',
    );
    expect(JSON.stringify(body)).not.toContain('twin-');
    expect(await fs.readFile(sb.configPath, 'utf8')).toBe(before);
    // Typed in full, the kept key saves.
    provider(cfg, 'twins').api_keys = [TWINS[1]!, shown[2]!];
    expect((await put(cfg)).status).toBe(200);
    expect(provider(await onDisk(), 'twins').api_keys).toEqual([TWINS[1], TWINS[2]]);
  });

  it('one key → a pool moves the masked key into api_keys; a pool of one → one key moves it back', async () => {
    let cfg = await read();
    const single = provider(cfg, 'single');
    single.api_keys = [single.api_key!, 'sk-single-second-ffff-6666'];
    delete single.api_key;
    expect((await put(cfg)).status).toBe(200);
    expect(provider(await onDisk(), 'single')).toMatchObject({
      api_keys: ['sk-single-key-dddd-4444', 'sk-single-second-ffff-6666'],
    });
    expect(provider(await onDisk(), 'single').api_key).toBeUndefined();

    cfg = await read();
    const pooled = provider(cfg, 'single');
    pooled.api_key = pooled.api_keys![1]!;
    delete pooled.api_keys;
    expect((await put(cfg)).status).toBe(200);
    expect(provider(await onDisk(), 'single').api_key).toBe('sk-single-second-ffff-6666');
    expect(provider(await onDisk(), 'single').api_keys).toBeUndefined();
  });
});
