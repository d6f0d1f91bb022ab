// Test support: what a test starts, a hook shuts down (mock providers, `serve` children, browsers).
import { afterAll, afterEach, beforeEach } from 'vitest';

/** A mock provider, a browser: anything shut down by close(). */
export type Closable = { close(): Promise<unknown> };
/** A `serve` child: shut down by stop(). */
export type Stoppable = { stop(): Promise<unknown> };

/**
 * For a mock provider's own tests: returns `mock(opts)`, which starts a mock with `start` and hands it over with the
 * client `connect` makes for it (the vendor's official one); registers an afterEach that closes every mock a test
 * opened, so a failing test leaves no server behind.
 */
export function withMock<Options, Mock extends Closable, Client>(
  start: (opts?: Options) => Promise<Mock>,
  connect: (mock: Mock) => Client,
): (opts?: Options) => Promise<{ mock: Mock; client: Client }> {
  const opened: Mock[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((m) => m.close()));
  });
  return async (opts) => {
    const mock = await start(opts);
    opened.push(mock);
    return { mock, client: connect(mock) };
  };
}

/** A mock whose behaviour tests change (setBehavior({}) is its default). */
export type Scriptable = { setBehavior(behavior: object): void };

/** Registers a beforeEach that gives each mock `mocks` returns its default behaviour: no test inherits another's. */
export function defaultBehaviorBeforeEach(mocks: () => Scriptable[]): void {
  beforeEach(() => {
    for (const mock of mocks()) mock.setBehavior({});
  });
}

/** Shuts each one down in the order given (stop() or close()); skips the ones that never started. */
export async function shutDown(...things: (Closable | Stoppable | undefined)[]): Promise<void> {
  for (const thing of things) {
    if (thing === undefined) continue;
    if ('stop' in thing) await thing.stop();
    else await thing.close();
  }
}

/**
 * Registers an afterAll (in the current file or describe block) that shuts down, in order, what `things` returns
 * then: list `serve` before the mocks it talks to. A beforeAll that failed half-way leaves some undefined: skipped.
 */
export function shutDownAfterAll(things: () => (Closable | Stoppable | undefined)[]): void {
  afterAll(() => shutDown(...things()));
}
