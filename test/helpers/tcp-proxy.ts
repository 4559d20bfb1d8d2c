import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TcpProxy {
  readonly port: number;
  /** Drops every open connection and refuses new ones: the target looks unreachable (stopped). */
  cut(): Promise<void>;
  /** Accepts connections again (on the same port). */
  restore(): Promise<void>;
  /** Stops relaying bytes both ways and holds new connections: the target looks frozen (a hung host). */
  freeze(): void;
  /** Relays again, held bytes and connections included. */
  thaw(): void;
  close(): Promise<void>;
}

interface Pair {
  readonly client: net.Socket;
  upstream?: net.Socket;
}

/**
 * A TCP relay to `target` on a free local port. Tests put it between the service and PostgreSQL to
 * make the database unreachable or silent for real, without touching the server.
 */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const pairs = new Set<Pair>();
  let frozen = false;
  const track = (socket: net.Socket, pair: Pair) => {
    sockets.add(socket);
    socket.on('close', () => {
      sockets.delete(socket);
      pair.client.destroy();
      pair.upstream?.destroy();
      pairs.delete(pair);
    });
    socket.on('error', () => {
      pair.client.destroy();
      pair.upstream?.destroy();
    });
  };
  const relay = (pair: Pair) => {
    pair.upstream ??= net.connect(target.port, target.host);
    if (!sockets.has(pair.upstream)) track(pair.upstream, pair);
    pair.client.pipe(pair.upstream).pipe(pair.client);
  };
  const server = net.createServer((client) => {
    const pair: Pair = { client };
    pairs.add(pair);
    track(client, pair);
    if (frozen) client.pause();
    else relay(pair);
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
    freeze() {
      frozen = true;
      for (const { client, upstream } of pairs) {
        client.unpipe();
        upstream?.unpipe();
        client.pause();
        upstream?.pause();
      }
    },
    thaw() {
      frozen = false;
      for (const pair of pairs) relay(pair);
    },
    close: stop,
  };
}
