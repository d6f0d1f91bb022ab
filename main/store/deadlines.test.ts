// The hot path's time budget: a call's value when it answers in time, TIMED_OUT when it does not; a reply that reached
// the socket while this process was busy past the deadline is still read as the answer (the process's own slowness is
// not Redis's); one timer serves every waiting call.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Deadlines, TIMED_OUT } from './deadlines.ts';

let server: net.Server;
let port = 0;
const accepted: net.Socket[] = [];
beforeAll(async () => {
  server = net.createServer((s) => accepted.push(s));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as net.AddressInfo).port;
});
afterAll(async () => {
  for (const s of accepted) s.destroy();
  await new Promise<void>((r) => server.close(() => r()));
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('deadlines', () => {
  it('answers the value in time, TIMED_OUT past the budget, and an error as an error', async () => {
    const d = new Deadlines(30);
    expect(await d.race(Promise.resolve(7))).toBe(7);
    const started = Date.now();
    expect(await d.race(sleep(500).then(() => 1))).toBe(TIMED_OUT);
    expect(Date.now() - started).toBeLessThan(400);
    await expect(d.race(Promise.reject(new Error('boom')))).rejects.toThrow('boom');
  });

  it('calls made one after another each get their own deadline, in order', async () => {
    const d = new Deadlines(40);
    const late = d.race(sleep(300));
    await sleep(25);
    const inTime = d.race(sleep(30).then(() => 'in time'));
    const later = d.race(sleep(300));
    expect(await late).toBe(TIMED_OUT);
    expect(await inTime).toBe('in time');
    expect(await later).toBe(TIMED_OUT);
    expect(d.waiting).toBe(0);
  });

  it('a reply that arrived while the process was blocked past the deadline is the answer, not a timeout', async () => {
    const d = new Deadlines(20);
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    while (accepted.length === 0) await sleep(1);
    const reply = new Promise<string>((r) => socket.once('data', (b) => r(b.toString())));
    const raced = d.race(reply);
    accepted[0]!.write('ok'); // in the socket's buffer at once; read only once this process is free
    const until = Date.now() + 120; // busy past the deadline
    while (Date.now() < until);
    expect(await raced).toBe('ok');
    socket.destroy();
  });
});
