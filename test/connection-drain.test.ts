import { mkdtempSync, rmSync } from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/foundation/config';
import { connectionDrainer } from '../src/http/connection-drain';
import { createDualServer } from '../src/http/dual-server';
import { loadTlsCredentials } from '../src/http/tls';
import { createLogger } from '../src/foundation/logger';

// The drain finds the responses in flight through their connections (no per-request bookkeeping, see
// connection-drain.ts): a response already being handled when the drain starts still goes out, with
// `Connection: close`, over HTTPS on the dual port as in production.

test('a response in flight when the drain starts is sent with Connection: close, then the drain ends', async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'event-service-drain-'));
  const tls = await loadTlsCredentials(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), createLogger('silent'));
  let release: () => void = () => undefined;
  let arrive: () => void = () => undefined;
  const arrived = new Promise<void>((resolve) => (arrive = resolve));
  const secure = https.createServer({ key: tls.key, cert: tls.cert }, (_request: IncomingMessage, response: ServerResponse) => {
    release = () => response.end('done');
    arrive();
  });
  const plain = http.createServer((_request, response) => response.end());
  const listener = createDualServer(secure, plain);
  const drain = connectionDrainer(listener, [secure, plain]);
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const { port } = listener.address() as AddressInfo;
  const agent = new https.Agent({ keepAlive: true, ca: tls.cert });
  try {
    const answer = new Promise<{ status?: number; connection?: string; body: string }>((resolve, reject) => {
      https
        .get({ host: 'localhost', port, path: '/slow', agent }, (response) => {
          let body = '';
          response.on('data', (chunk: Buffer) => (body += chunk.toString()));
          response.on('end', () => resolve({ status: response.statusCode, connection: response.headers.connection, body }));
        })
        .on('error', reject);
    });
    await arrived;
    const drained = drain(5_000);
    release();
    expect(await answer).toEqual({ status: 200, connection: 'close', body: 'done' });
    await drained;
  } finally {
    agent.destroy();
    listener.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
