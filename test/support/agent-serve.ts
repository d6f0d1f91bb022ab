// Test support for the agent API suites: a mock provider, a folder holding agent keys, and `serve` children on it.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { call, createKey, type Json } from './agent-api.ts';
import { type MockProvider, startMockProvider } from './mock-provider.ts';
import { configFor, eventually, type ServeProcess, startServe } from './serve-process.ts';

/** A `serve` child and the root of its agent API, `<url>/api/v1`. */
export type AgentServeProcess = ServeProcess & { api: string };

export type AgentServe<Keys extends readonly string[]> = {
  /** The provider every agent's model goes to: named `mock`, it answers "Hello from mock" unless told otherwise. */
  mock: MockProvider;
  /** The folder of config.json, agent-keys.json and the log; it outlives the `serve` children started on it. */
  dir: string;
  /** One agent API key per tenant asked for, in that order. */
  keys: Keys;
  /** Starts a `serve` child on the folder (again after a kill, for restart tests). */
  serve(): Promise<AgentServeProcess>;
  /** Stops every child started, closes the mock and removes the folder. */
  close(): Promise<void>;
};

/** A key per tenant: `['acme', 'globex']` gives `[string, string]`. */
type KeysFor<Tenants extends readonly string[]> = { -readonly [K in keyof Tenants]: string };

/**
 * Starts the mock provider and makes `<tmpdir>/<prefix>XXXXXX` with an agent key per tenant (made by the real
 * CLI); `serve()` then runs on that folder with `configFor({ mock }, extra)`, e.g. `{ orchestrator: { workers: 1 } }`.
 */
export async function startAgentServe<const Tenants extends readonly string[]>(
  prefix: string,
  tenants: Tenants,
  extra: Parameters<typeof configFor>[1] = {},
): Promise<AgentServe<KeysFor<Tenants>>> {
  const mock = await startMockProvider({ name: 'mock' });
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  const children: ServeProcess[] = [];
  const close = async () => {
    for (const child of children) await child.stop();
    await mock.close();
    await fs.rm(dir, { recursive: true, force: true });
  };
  try {
    const configPath = path.join(dir, 'config.json');
    const keys = await Promise.all(tenants.map((tenant) => createKey(configPath, tenant)));
    const config = configFor({ mock: mock.baseUrl }, extra);
    const serve = async () => {
      const child = await startServe({ dir, config });
      children.push(child);
      return { ...child, api: `${child.url}/api/v1` };
    };
    return { mock, dir, keys: keys as KeysFor<Tenants>, serve, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * For a file that runs on one AgentServe: registers a beforeAll that starts it (see startAgentServe) and an afterAll
 * that closes it. Returns it through an accessor, for tests and for the beforeAll hooks registered after this call.
 */
export function useAgentServe<const Tenants extends readonly string[]>(
  prefix: string,
  tenants: Tenants,
  extra: Parameters<typeof configFor>[1] = {},
): () => AgentServe<KeysFor<Tenants>> {
  let world: AgentServe<KeysFor<Tenants>> | undefined;
  beforeAll(async () => {
    world = await startAgentServe(prefix, tenants, extra);
  });
  afterAll(async () => {
    await world?.close();
  });
  return () => {
    if (!world) throw new Error('useAgentServe: nothing started (its beforeAll failed or has not run)');
    return world;
  };
}

/** Polls GET `url` until what it names (a task, a run) has completed or failed, 15 s at most; returns its body. */
export function settled(url: string, key: string): Promise<Json> {
  return eventually(async () => {
    const body = (await call(url, key)).body;
    expect(['completed', 'failed']).toContain(body.status);
    return body;
  }, 15_000);
}
