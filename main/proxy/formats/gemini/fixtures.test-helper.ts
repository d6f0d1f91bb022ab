// Test-only helpers shared by the tests beside this file (nothing in production imports it).
import http from 'node:http';
import { expect } from 'vitest';
import { ApiError } from '../../../errors.ts';

/** Expects fn to throw a 400 ApiError whose message contains messagePart and which suggests an action. */
export function badRequest(fn: () => unknown, messagePart: string): void {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(ApiError);
  expect((caught as ApiError).status).toBe(400);
  expect((caught as ApiError).message).toContain(messagePart);
  expect((caught as ApiError).action).toBeTruthy();
}

/** Serves one handler on a loopback port for the official client; the root URL is passed to `use`. */
export async function withServer(
  handler: (req: http.IncomingMessage, res: http.ServerResponse) => void,
  use: (root: string) => Promise<void>,
): Promise<void> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => handler(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  try {
    await use(`http://127.0.0.1:${port}`);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
