import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TcpProxy {
  readonly port: number;
  /** Drops every open connection and refuses new ones: the target looks unreachable. */
  cut(): Promise<void>;
  /** Accepts connections again (on the same port). */
  restore(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A TCP relay to `target` on a free local port. Tests put it between the service and PostgreSQL to
 * make the database unreachable for real (connection refused / reset), without touching the server.
 */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
  await listen(0);
  const port = (server.address() as AddressInfo).port;
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      if (!server.listening) resolve();
      else server.close(() => resolve());
    });
  return {
    port,
    cut: stop,
    restore: () => listen(port),
    close: stop,
  };
}
