// A WAL that cannot make a change durable: the agent API answers 503 wal_error and changes nothing.
// In-process (app.request) because the fault is injected into the WAL's file-system calls.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { ConfigStore } from '../config/store.ts';
import { Metrics } from '../observability/metrics.ts';
import { RequestLog } from '../observability/request-log.ts';
import { Engine } from '../proxy/engine.ts';
import { buildHttpApp } from './http-app.ts';
import { FaultyFs } from '../../test/support/wal/fs-faults.ts';
import { openWal } from '../wal/index.ts';
import { createKey, KeyRing, keysFile } from '../orchestrator/keys.ts';
import { Orchestrator } from '../orchestrator/orchestrator.ts';

const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-walerr-'));
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

it('answers 503 wal_error when the WAL write fails, keeps nothing of the change, and recovers', async () => {
  const file = path.join(dir, 'config.json');
  await fs.writeFile(file, JSON.stringify({ providers: [], health_check: { interval_ms: 0, timeout_ms: 1000 } }));
  const store = await ConfigStore.open(file);
  const engine = new Engine(store.config, file, new RequestLog(10));
  const faulty = new FaultyFs();
  const wal = await openWal({ dir: path.join(dir, 'data'), fs: faulty });
  const orchestrator = new Orchestrator({
    wal,
    engine: () => engine,
    config: () => store.config.orchestrator,
    dataDir: path.join(dir, 'data'),
  });
  await orchestrator.start();
  const { key } = await createKey(keysFile(dir), 'acme');
  const metrics = new Metrics({
    queueDepth: () => 0,
    queueRunning: () => 0,
    tasksByStatus: () => ({}),
    wal: () => ({ ...wal.status(), healthy: true }),
    subscribers: () => 0,
  });
  const app = buildHttpApp({
    engine: () => engine,
    store,
    adminToken: 't',
    listenPort: () => 1,
    agents: { orchestrator, wal, keys: new KeyRing(keysFile(dir)), metrics, heartbeatMs: () => 15_000 },
  });
  const post = () =>
    app.request(
      'http://127.0.0.1/api/v1/agents',
      {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'a', model: 'm' }),
      },
      { incoming: { headers: { host: '127.0.0.1' }, url: '/api/v1/agents', socket: {} } } as never,
    );

  faulty.fail({ op: 'datasync', code: 'EIO', times: 1 });
  const res = await post();
  expect(res.status).toBe(503);
  const body = (await res.json()) as { error: { code: string; message: string; details: unknown } };
  expect(body.error).toMatchObject({ code: 'wal_error', details: null });
  expect(JSON.stringify(body)).not.toMatch(/at .*\.ts:\d+/);
  expect(orchestrator.store.agents.size).toBe(0);

  const ok = await post();
  expect(ok.status).toBe(201);
  expect(orchestrator.store.agents.size).toBe(1);
  await orchestrator.close();
  await wal.close();
  store.close();
  await engine.close();
});
