// Test support: loopback ports for tests about ports: one that is free, one that another program holds.
import net from 'node:net';

/** A port on 127.0.0.1 that was free a moment ago (the OS picked it, the listener is closed again). */
export async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as net.AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

export type HeldPort = { port: number; close(): Promise<void> };

/** A plain TCP listener holding a port on 127.0.0.1 (it hangs up on whoever connects) until close(). */
export async function holdPort(): Promise<HeldPort> {
  const holder = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  return {
    port: (holder.address() as net.AddressInfo).port,
    close: () => new Promise<void>((resolve) => holder.close(() => resolve())),
  };
}
