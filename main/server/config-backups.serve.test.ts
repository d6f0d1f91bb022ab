// Config backups through `switchboard serve` and the real CLI (issue 13, item 8): a PUT of `{}` is no longer a wipe
// with no way back, a restore brings the providers back and routing works again, and the temp files a killed save
// left behind (they hold keys) are removed at start.
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ConfigBackupDocumentSchema,
  ConfigBackupListSchema,
  ConfigRestoreResultSchema,
  ConfigSaveResultSchema,
} from '../../shared/admin.ts';
import { makeTempDir } from '../../test/support/temp.ts';
import { shutDownAfterAll } from '../../test/support/lifecycle.ts';
import { type MockProvider, startMockProvider } from '../../test/support/mock-provider.ts';
import {
  configFor,
  eventually,
  runSwitchboard,
  type ServeProcess,
  startServe,
} from '../../test/support/serve-process.ts';

/** The real CLI; resolves with its exit code and output whatever the code. */
const cli = (...args: string[]) => runSwitchboard(args);

let alpha: MockProvider;
let beta: MockProvider;
beforeAll(async () => {
  alpha = await startMockProvider({ name: 'alpha' });
  beta = await startMockProvider({ name: 'beta' });
});
shutDownAfterAll(() => [alpha, beta]);

const twoProviders = () =>
  configFor(
    { alpha: alpha.baseUrl, beta: beta.baseUrl },
    { default_provider: 'alpha', rules: [{ pattern: 'b-*', provider: 'beta' }] },
  );
const putConfig = (sb: ServeProcess, body: unknown) =>
  sb.admin('/config', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** A chat request through Switchboard, parsed by the official OpenAI SDK. */
const chat = (sb: ServeProcess, model: string) =>
  new OpenAI({ baseURL: sb.baseUrl, apiKey: 'local', maxRetries: 0 }).chat.completions
    .create({ model, messages: [{ role: 'user', content: 'hi' }] })
    .withResponse()
    .then((r) => {
      expect(r.data.choices[0]!.message.role).toBe('assistant');
      return r.response.headers.get('x-switchboard-provider');
    });

describe('PUT /admin/v1/config with {} keeps the previous config as a backup, and a restore brings it back', () => {
  it('lists the backup without keys, shows it masked, restores it atomically and routing works again', async () => {
    const sb = await startServe({ config: twoProviders() });
    try {
      const original = await fs.readFile(sb.configPath, 'utf8');
      expect(await chat(sb, 'b-1')).toBe('beta');

      const put = await putConfig(sb, {});
      expect(put.status).toBe(200);
      const saved = ConfigSaveResultSchema.parse(await put.json());
      expect(saved.backup).toMatchObject({ reason: 'save', providers: 2, rules: 1, valid: true });
      expect(saved.warning).toContain('no providers');
      expect(saved.warning).toContain(saved.backup!.id);
      const wiped = await fetch(`${sb.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'b-1', messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(wiped.status).toBe(404);

      const listRes = await sb.admin('/config/backups');
      const listText = await listRes.text();
      expect(listRes.status).toBe(200);
      expect(listText).not.toContain('secret-key');
      const list = ConfigBackupListSchema.parse(JSON.parse(listText));
      expect(list).toMatchObject({
        keep: 20,
        days: 30,
        max: 100,
        policy: 'the newest 20, then one a day for 30 days (100 at most)',
      });
      expect(list.data.map((b) => b.id)).toEqual([saved.backup!.id]);
      expect(list.data[0]).toMatchObject({ provider_names: ['alpha', 'beta'], size: Buffer.byteLength(original) });

      // The backup file itself: the previous bytes exactly, owner-only, in an owner-only folder beside config.json.
      const file = path.join(sb.dir, 'config-backups', `${saved.backup!.id}.json`);
      expect(await fs.readFile(file, 'utf8')).toBe(original);
      if (process.platform !== 'win32') {
        expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
        expect((await fs.stat(path.dirname(file))).mode & 0o777).toBe(0o700);
      }

      const oneRes = await sb.admin(`/config/backups/${saved.backup!.id}`);
      const oneText = await oneRes.text();
      expect(oneText).not.toContain('secret-key');
      const one = ConfigBackupDocumentSchema.parse(JSON.parse(oneText));
      expect((one.config as { providers: { api_key: string }[] }).providers[0]!.api_key).toBe('sk-****3456');

      const restoreRes = await sb.admin(`/config/backups/${saved.backup!.id}/restore`, { method: 'POST' });
      const restoreText = await restoreRes.text();
      expect(restoreRes.status).toBe(200);
      expect(restoreText).not.toContain('secret-key');
      const restored = ConfigRestoreResultSchema.parse(JSON.parse(restoreText));
      expect(restored.restored.id).toBe(saved.backup!.id);
      // The config the restore replaced ({}) is itself kept first.
      expect(restored.backup).toMatchObject({ reason: 'restore', providers: 0 });
      expect(await fs.readFile(sb.configPath, 'utf8')).toBe(original);
      // The engine took it at once: routing works again, and the stored keys are sent upstream.
      expect(await chat(sb, 'b-1')).toBe('beta');
      expect(beta.requests.at(-1)!.headers.authorization).toBe('Bearer sk-beta-secret-key-123456');
      expect(await chat(sb, 'other')).toBe('alpha');

      const after = ConfigBackupListSchema.parse(await (await sb.admin('/config/backups')).json());
      expect(after.data.map((b) => b.reason)).toEqual(['restore', 'save']);
    } finally {
      await sb.stop();
    }
  });

  it('a save that changes nothing keeps no backup; a hand edit keeps the config it replaced', async () => {
    const cfg = twoProviders();
    const sb = await startServe({ config: cfg });
    try {
      const doc = (await (await sb.admin('/config')).json()) as { config: unknown };
      const same = ConfigSaveResultSchema.parse(await (await putConfig(sb, doc.config)).json());
      expect(same.backup).toBeNull();
      expect(same.warning).toBeUndefined();
      const before = await fs.readFile(sb.configPath, 'utf8');
      await sb.writeConfig({ ...cfg, routing: { default_provider: 'beta', rules: [] } });
      await eventually(async () => expect(await chat(sb, 'other')).toBe('beta'));
      const list = ConfigBackupListSchema.parse(await (await sb.admin('/config/backups')).json());
      expect(list.data).toHaveLength(1);
      expect(list.data[0]!.reason).toBe('edit');
      expect(await fs.readFile(path.join(sb.dir, 'config-backups', `${list.data[0]!.id}.json`), 'utf8')).toBe(before);
    } finally {
      await sb.stop();
    }
  });

  it('a hand edit that is not JSON: GET shows the config in force, and a save over it keeps the broken bytes', async () => {
    const sb = await startServe({ config: twoProviders() });
    try {
      await fs.writeFile(sb.configPath, '{ "providers": [ half typed');
      await eventually(async () => {
        const status = (await (await sb.admin('/status')).json()) as { config_error: string[] | null };
        expect(status.config_error?.join(' ')).toContain('not valid JSON');
      });
      const get = await sb.admin('/config');
      expect(get.status).toBe(200);
      const doc = (await get.json()) as { config: { providers: { name: string; api_key: string }[] }; error: unknown };
      expect(doc.error).not.toBeNull();
      expect(doc.config.providers.map((p) => p.name)).toEqual(['alpha', 'beta']);
      // Sent back as read (keys masked), it saves: the stored keys are kept, the broken file is kept as a backup.
      const saved = ConfigSaveResultSchema.parse(await (await putConfig(sb, doc.config)).json());
      expect(saved.backup).toMatchObject({ reason: 'save', valid: false });
      expect(JSON.parse(await fs.readFile(sb.configPath, 'utf8')).providers[1].api_key).toBe(
        'sk-beta-secret-key-123456',
      );
      expect(await chat(sb, 'b-1')).toBe('beta');
    } finally {
      await sb.stop();
    }
  });

  it('an unknown or malformed id is a 404; a backup that is not a valid config is refused and nothing changes', async () => {
    const sb = await startServe({ config: twoProviders() });
    try {
      for (const id of ['20990101-000000-000-save', '..%2Fconfig', 'latest%00']) {
        const res = await sb.admin(`/config/backups/${id}/restore`, { method: 'POST' });
        expect(res.status).toBe(404);
        const body = (await res.json()) as { error: { code: string; action: string } };
        expect(body.error.code).toBe('not_found');
        expect(body.error.action).toContain('GET /admin/v1/config/backups');
      }
      await fs.mkdir(path.join(sb.dir, 'config-backups'), { recursive: true });
      const bad = '20200101-000000-000-edit';
      await fs.writeFile(path.join(sb.dir, 'config-backups', `${bad}.json`), '{"listen_port": "eleven"}');
      const before = await fs.readFile(sb.configPath, 'utf8');
      const res = await sb.admin(`/config/backups/${bad}/restore`, { method: 'POST' });
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('config_invalid');
      expect(body.error.message).toContain('listen_port');
      expect(await fs.readFile(sb.configPath, 'utf8')).toBe(before);
      expect((await sb.admin(`/config/backups/${bad}`)).status).toBe(200);
      // The routes sit behind the admin token like the rest of /admin/v1.
      expect((await fetch(`${sb.url}/admin/v1/config/backups`)).status).toBe(401);
    } finally {
      await sb.stop();
    }
  });
});

describe('switchboard config backups | restore (the real CLI, on the files)', () => {
  it('lists the backups and restores the latest; a running serve picks the restore up through its watcher', async () => {
    const sb = await startServe({ config: twoProviders() });
    try {
      const original = await fs.readFile(sb.configPath, 'utf8');
      const saved = ConfigSaveResultSchema.parse(await (await putConfig(sb, {})).json());
      const listed = await cli('config', 'backups', '--config', sb.configPath);
      expect(listed.code).toBe(0);
      expect(listed.stdout).toContain(saved.backup!.id);
      expect(listed.stdout).toMatch(/2 providers \(alpha, beta\), 1 rule/);
      expect(listed.stdout).not.toContain('secret-key');

      const restored = await cli('config', 'restore', 'latest', '--config', sb.configPath);
      expect(restored.code).toBe(0);
      expect(restored.stdout).toContain(`restored ${saved.backup!.id}`);
      expect(await fs.readFile(sb.configPath, 'utf8')).toBe(original);
      await eventually(async () => expect(await chat(sb, 'b-1')).toBe('beta'));
      // The config the CLI replaced was kept once: the server's reload does not keep the same bytes again.
      const list = ConfigBackupListSchema.parse(await (await sb.admin('/config/backups')).json());
      expect(list.data.map((b) => b.reason)).toEqual(['restore', 'save']);
    } finally {
      await sb.stop();
    }
  });

  it('restores over a config.json too broken to start, and refuses an unknown id or a missing one with exit 2', async () => {
    const tmp = await makeTempDir('sb-cli-restore');
    try {
      const file = path.join(tmp.dir, 'config.json');
      const none = await cli('config', 'backups', '--config', file);
      expect(none.code).toBe(0);
      expect(none.stdout).toContain('no backups');
      const good = `${JSON.stringify(twoProviders(), null, 2)}\n`;
      await fs.mkdir(path.join(tmp.dir, 'config-backups'));
      await fs.writeFile(path.join(tmp.dir, 'config-backups', '20240101-120000-000-save.json'), good);
      await fs.writeFile(file, '{ "listen_port": 11434, ');

      const [missing, unknown] = await Promise.all([
        cli('config', 'restore', '--config', file),
        cli('config', 'restore', '20990101-000000-000-save', '--config', file),
      ]);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain('switchboard config backups');
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain('no backup "20990101-000000-000-save"');

      const r = await cli('config', 'restore', '20240101-120000-000-save', '--config', file);
      expect(r.code).toBe(0);
      expect(await fs.readFile(file, 'utf8')).toBe(good);
      expect((await cli('config', 'check', '--config', file)).code).toBe(0);
      // The broken file it replaced is kept too (it may hold work in progress), listed as not valid.
      const listed = await cli('config', 'backups', '--config', file);
      expect(listed.stdout).toMatch(/-restore\s.*not a valid config/);
    } finally {
      await tmp.cleanup();
    }
  });
});

describe('temp files left by a save that was killed', () => {
  it('are removed at start (beside config.json and in config-backups/) when their process is gone or they are old', async () => {
    const tmp = await makeTempDir('sb-stale-tmp');
    try {
      await fs.writeFile(path.join(tmp.dir, 'config.json'), JSON.stringify(twoProviders(), null, 2));
      await fs.mkdir(path.join(tmp.dir, 'config-backups'));
      const dead = await deadPid();
      const live = await liveProcess();
      try {
        const old = new Date(Date.now() - 5 * 60_000);
        const plant = async (rel: string, when?: Date) => {
          const p = path.join(tmp.dir, rel);
          await fs.writeFile(p, '{"providers": [{"api_key": "sk-leaked-secret-key-0000"}]}', { mode: 0o600 });
          if (when) await fs.utimes(p, when, when);
          return p;
        };
        const gone = [
          await plant(`.config.json.${dead}.0a1b2c3d.tmp`),
          await plant(`.agent-keys.json.${live.pid}.11223344.tmp`, old),
          await plant(`config-backups/.20240101-120000-000-save.json.${dead}.deadbeef.tmp`),
        ];
        const kept = [
          // A live process's save in progress (another `switchboard keys` command) is left alone.
          await plant(`.gateway-keys.json.${live.pid}.55667788.tmp`),
          // Files of other shapes are never touched.
          await plant(`.config.json.swp`, old),
          await plant(`notes.${dead}.tmp`, old),
        ];
        const sb = await startServe({ dir: tmp.dir });
        try {
          for (const p of gone) await expect(fs.stat(p)).rejects.toThrow('ENOENT');
          for (const p of kept) expect((await fs.stat(p)).isFile()).toBe(true);
          await eventually(() => expect(sb.stderr()).toContain('removed 3 temp files left by an interrupted save'));
          expect(sb.stderr()).toContain(`.config.json.${dead}.0a1b2c3d.tmp`);
          expect(sb.stderr()).not.toContain('sk-leaked');
        } finally {
          await sb.stop();
        }
      } finally {
        live.kill();
      }
    } finally {
      await tmp.cleanup();
    }
  });
});

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((r) => child.once('exit', r));
  return child.pid!;
}

/** A process that stays alive until killed. */
async function liveProcess(): Promise<{ pid: number; kill: () => void }> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  await new Promise((r) => child.once('spawn', r));
  return { pid: child.pid!, kill: () => child.kill('SIGKILL') };
}
