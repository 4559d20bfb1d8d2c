import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type net from 'node:net';

interface ConnectionState {
  inFlight: number;
  served: number;
}

/**
 * Graceful close for the dual server. Node's closeIdleConnections() would also close connections that
 * were accepted but have not sent their request yet (TLS handshake just done), failing requests the
 * server had accepted; so this keeps its own per-connection count: connections that already served a
 * request and are idle close at once, the others answer their current or first request with
 * `Connection: close`, and whatever is left at the deadline is destroyed.
 */
export function connectionDrainer(listener: net.Server, servers: Array<HttpsServer | HttpServer>) {
  const raw = new Set<net.Socket>();
  const states = new Map<net.Socket, ConnectionState>();
  let closing = false;

  listener.on('connection', (socket: net.Socket) => {
    raw.add(socket);
    socket.once('close', () => raw.delete(socket));
  });

  const closeIfIdle = (socket: net.Socket, state: ConnectionState) => {
    if (state.inFlight === 0 && state.served > 0) socket.destroy();
  };

  for (const server of servers) {
    server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      const socket = request.socket;
      let state = states.get(socket);
      if (!state) {
        state = { inFlight: 0, served: 0 };
        states.set(socket, state);
        socket.once('close', () => states.delete(socket));
      }
      const current = state;
      current.inFlight += 1;
      if (closing && !response.headersSent) response.setHeader('Connection', 'close');
      response.once('close', () => {
        current.inFlight -= 1;
        current.served += 1;
        if (closing) closeIfIdle(socket, current);
      });
    });
  }

  /** Stops accepting; resolves when every connection has ended or, after `graceMs`, been destroyed. */
  return function drain(graceMs: number): Promise<void> {
    closing = true;
    const closed = new Promise<void>((resolve) => listener.close(() => resolve()));
    for (const [socket, state] of states) closeIfIdle(socket, state);
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
