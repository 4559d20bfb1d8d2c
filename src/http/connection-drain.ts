import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type net from 'node:net';

/**
 * Graceful close for the dual server. Closing a kept-alive connection that is idle races with the
 * client's next request on it (which would then be reset), and Node's closeIdleConnections() would
 * also close connections accepted but not yet used (TLS handshake just done). So during the drain
 * every connection stays open: each request on one is answered, with `Connection: close` (also the
 * requests in flight when the drain starts), after which Node ends the connection; connections that
 * stay idle are closed by the server's keep-alive timeout, as at any other time; whatever is left at
 * the deadline is destroyed.
 */
export function connectionDrainer(listener: net.Server, servers: Array<HttpsServer | HttpServer>) {
  const raw = new Set<net.Socket>();
  const inFlight = new Set<ServerResponse>();
  let closing = false;

  listener.on('connection', (socket: net.Socket) => {
    raw.add(socket);
    socket.once('close', () => raw.delete(socket));
  });

  for (const server of servers) {
    server.on('request', (_request: IncomingMessage, response: ServerResponse) => {
      if (closing) {
        response.setHeader('Connection', 'close');
        return;
      }
      inFlight.add(response);
      response.once('close', () => inFlight.delete(response));
    });
  }

  /** Stops accepting; resolves when every connection has ended or, after `graceMs`, been destroyed. */
  return function drain(graceMs: number): Promise<void> {
    closing = true;
    for (const response of inFlight) if (!response.headersSent) response.setHeader('Connection', 'close');
    const closed = new Promise<void>((resolve) => listener.close(() => resolve()));
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        for (const socket of raw) socket.destroy();
        resolve();
      }, graceMs);
    });
    return Promise.race([closed, deadline]).finally(() => clearTimeout(timer));
  };
}
