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

/**
 * A plain TCP listener holding a port on 127.0.0.1 (it hangs up on whoever connects) until close(): the one asked
 * for (rejects when it is taken), else one the OS picks.
 */
export async function holdPort(port = 0): Promise<HeldPort> {
  const holder = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    holder.once('error', reject);
    holder.listen(port, '127.0.0.1', resolve);
  });
  return {
    port: (holder.address() as net.AddressInfo).port,
    close: () => new Promise<void>((resolve) => holder.close(() => resolve())),
  };
}

/** Two neighbouring ports held (port and port + 1), for tests of what is suggested instead of a taken port. */
export async function holdTwoInARow(): Promise<[HeldPort, HeldPort]> {
  for (;;) {
    const first = await holdPort();
    if (first.port >= 65535) {
      await first.close();
      continue;
    }
    try {
      return [first, await holdPort(first.port + 1)];
    } catch {
      await first.close(); // its neighbour is taken: try elsewhere
    }
  }
}
