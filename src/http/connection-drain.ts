import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type net from 'node:net';
import tls from 'node:tls';

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
  // The sockets HTTP runs on (the TLS socket of an HTTPS connection), one entry per connection. The
  // responses in flight are found through them at drain time, not kept per request: a Set that every
  // response entered and left (it was) made V8 promote each request's objects to the old generation
  // under GET /v1/events/{slug}, hence frequent full collections (docs/performance.md).
  const connections = new Set<net.Socket>();
  let closing = false;

  listener.on('connection', (socket: net.Socket) => {
    raw.add(socket);
    socket.once('close', () => raw.delete(socket));
  });

  const track = (socket: net.Socket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
  };
  for (const server of servers) server.on(server instanceof tls.Server ? 'secureConnection' : 'connection', track);

  /** Stops accepting; resolves when every connection has ended or, after `graceMs`, been destroyed. */
  return function drain(graceMs: number): Promise<void> {
    // Every request from now on is answered with `Connection: close` (a listener only while draining).
    if (!closing) {
      for (const server of servers) {
        server.on('request', (_request: IncomingMessage, response: ServerResponse) => response.setHeader('Connection', 'close'));
      }
    }
    closing = true;
    for (const socket of connections) {
      // The response Node is writing on this connection (http-terminator finds it the same way).
      const response = (socket as net.Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
      if (response && !response.headersSent) response.setHeader('Connection', 'close');
    }
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
