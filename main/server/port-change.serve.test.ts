// Issue 15, bug 2: what a save that changes listen_port answers, against the real `switchboard serve`. Without
// --port the server moves, and the answer comes once the new port answers (so the page can follow at once); with
// --port the port is pinned for the run and the answer says the new one applies at the next start without it; a
// port that cannot be bound is said, and the old one stays.
import fs from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigSaveResultSchema, ConfigRestoreResultSchema } from '../../shared/admin.ts';
import { type MockProvider, startMockProvider } from '../../test/support/mock-provider.ts';
import { freePort, holdPort } from '../../test/support/ports.ts';
import { configFor, eventually, type ServeProcess, startServe } from '../../test/support/serve-process.ts';

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider({ name: 'alpha' });
});
afterAll(() => mock?.close());

/** An admin call on a given port (the helper's `admin` knows only the port serve started on). */
const adminAt = (sb: ServeProcess, port: number, route: string, init: RequestInit = {}) =>
  fetch(`http://127.0.0.1:${port}/admin/v1${route}`, {
    ...init,
    headers: { authorization: `Bearer ${sb.adminToken}`, 'content-type': 'application/json' },
  });
const putConfig = (sb: ServeProcess, port: number, config: unknown) =>
  adminAt(sb, port, '/config', { method: 'PUT', body: JSON.stringify(config) });
const isOpen = (port: number) =>
  fetch(`http://127.0.0.1:${port}/`).then(
    () => true,
    () => false,
  );

describe('a listen_port change answers what happened to the port', () => {
  it('without --port: moves at once, answers once the new port answers, and a restore moves it back', async () => {
    const [port1, port2] = [await freePort(), await freePort()];
    const cfg = { ...configFor({ alpha: mock.baseUrl }), listen_port: port1 };
    const sb = await startServe({ config: cfg, portFromConfig: true });
    try {
      expect(sb.port).toBe(port1);
      const res = await putConfig(sb, port1, { ...cfg, listen_port: port2 });
      expect(res.status).toBe(200);
      const saved = ConfigSaveResultSchema.parse(await res.json());
      expect(saved.listen).toEqual({
        outcome: 'moved',
        port: port2,
        previous_port: port1,
        listen_port: port2,
        ui_url: `http://127.0.0.1:${port2}/ui/`,
        message: `Saved: Switchboard moved to port ${port2} and released port ${port1}. Point your tools at http://localhost:${port2} (Connect shows each address).`,
      });
      // Already there when the answer came: no waiting.
      const status = (await (await adminAt(sb, port2, '/status')).json()) as { listen_port: number };
      expect(status.listen_port).toBe(port2);
      await eventually(async () => expect(await isOpen(port1)).toBe(false));

      // A save that leaves the port alone says nothing about it.
      const same = ConfigSaveResultSchema.parse(
        await (await putConfig(sb, port2, { ...cfg, listen_port: port2, log_requests: true })).json(),
      );
      expect(same.listen).toBeUndefined();

      // Restoring the backup of the first config moves the port back, said the same way.
      const backup = saved.backup!.id;
      const r = await adminAt(sb, port2, `/config/backups/${backup}/restore`, { method: 'POST', body: '{}' });
      const restored = ConfigRestoreResultSchema.parse(await r.json());
      expect(restored.listen).toMatchObject({ outcome: 'moved', port: port1, previous_port: port2 });
      expect(((await (await adminAt(sb, port1, '/status')).json()) as { listen_port: number }).listen_port).toBe(port1);
    } finally {
      await sb.stop();
    }
  });

  it('the UI address in the answer keeps the host name the caller used', async () => {
    const [port1, port2] = [await freePort(), await freePort()];
    const cfg = { ...configFor({ alpha: mock.baseUrl }), listen_port: port1 };
    const sb = await startServe({ config: cfg, portFromConfig: true });
    try {
      // Reached as localhost (the Host a browser on http://localhost:<port>/ui sends).
      const res = await fetch(`http://localhost:${port1}/admin/v1/config`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${sb.adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ...cfg, listen_port: port2 }),
      });
      expect(ConfigSaveResultSchema.parse(await res.json()).listen?.ui_url).toBe(`http://localhost:${port2}/ui/`);
    } finally {
      await sb.stop();
    }
  });

  it('with --port: the port is pinned for this run; the answer says listen_port applies at the next start', async () => {
    const pinned = await freePort();
    const wanted = await freePort();
    const cfg = configFor({ alpha: mock.baseUrl });
    const sb = await startServe({ config: cfg, port: pinned });
    try {
      const res = await putConfig(sb, pinned, { ...cfg, listen_port: wanted });
      const saved = ConfigSaveResultSchema.parse(await res.json());
      expect(saved.listen).toEqual({
        outcome: 'next_start',
        port: pinned,
        previous_port: pinned,
        listen_port: wanted,
        ui_url: `http://127.0.0.1:${pinned}/ui/`,
        message: `Saved: the port in config.json is now ${wanted}, but this run keeps port ${pinned}, which was given with --port. The new port applies at the next start without --port.`,
      });
      expect((JSON.parse(await fs.readFile(sb.configPath, 'utf8')) as { listen_port: number }).listen_port).toBe(
        wanted,
      );
      await new Promise((r) => setTimeout(r, 300));
      expect(await isOpen(wanted)).toBe(false);
      expect(((await (await sb.admin('/status')).json()) as { listen_port: number }).listen_port).toBe(pinned);
    } finally {
      await sb.stop();
    }
  });

  it('a port another program holds: saved, not moved, and said; the old port keeps serving', async () => {
    const port1 = await freePort();
    const held = await holdPort();
    const cfg = { ...configFor({ alpha: mock.baseUrl }), listen_port: port1 };
    const sb = await startServe({ config: cfg, portFromConfig: true });
    try {
      const saved = ConfigSaveResultSchema.parse(
        await (await putConfig(sb, port1, { ...cfg, listen_port: held.port })).json(),
      );
      expect(saved.listen).toMatchObject({
        outcome: 'failed',
        port: port1,
        previous_port: port1,
        listen_port: held.port,
      });
      expect(saved.listen!.message).toMatch(
        new RegExp(
          `^Saved, but Switchboard could not move to port ${held.port} \\(Port ${held.port} is in use by .+\\) and still listens on port ${port1}\\. Pick another port, or free port ${held.port} and restart Switchboard\\.$`,
        ),
      );
      expect(((await (await sb.admin('/status')).json()) as { listen_port: number }).listen_port).toBe(port1);
    } finally {
      await sb.stop();
      await held.close();
    }
  });
});
