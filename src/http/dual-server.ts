import type { Server as HttpServer } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import net from 'node:net';

const TLS_HANDSHAKE_RECORD = 0x16;
const FIRST_BYTE_TIMEOUT_MS = 10_000;

/**
 * One port, two protocols: a connection whose first byte opens a TLS handshake goes to the HTTPS
 * server; anything else goes to `plain`, which refuses it (HTTPS only).
 */
export function createDualServer(secure: HttpsServer, plain: HttpServer): net.Server {
  return net.createServer((socket) => {
    socket.setTimeout(FIRST_BYTE_TIMEOUT_MS, () => socket.destroy());
    socket.once('data', (chunk: Buffer) => {
      socket.setTimeout(0);
      socket.pause();
      socket.unshift(chunk);
      // TLS reads what was unshifted; HTTP parsing starts from the first byte again.
      (chunk[0] === TLS_HANDSHAKE_RECORD ? secure : plain).emit('connection', socket);
      process.nextTick(() => socket.resume());
    });
    socket.on('error', () => socket.destroy());
  });
}
