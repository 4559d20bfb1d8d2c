import { mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import { once } from 'node:events';
import tls from 'node:tls';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../src/db/database';
import { createTestDatabase, testDatabaseKind, type TestDatabase } from './helpers/database';
import { createTenant, eventInput } from './helpers/factories';
import { HttpsClient } from './helpers/https-client';
import { spawnServer, type ServerProcess } from './helpers/spawned-server';

jest.setTimeout(180_000);

interface Outcome {
  status?: number;
  error?: string;
  answeredAfterSignal: boolean;
  /** The TLS handshake completed: the server had accepted the connection. */
  accepted: boolean;
}

/** One request on its own connection (no keep-alive), so every request is accepted or refused on its own. */
function listRequest(server: ServerProcess, key: string, signalled: () => boolean): Promise<Outcome> {
  let accepted = false;
  return new Promise((resolve) => {
    const request = https.request(
      { host: 'localhost', port: server.port, path: '/v1/events?limit=100', ca: server.ca, agent: false, headers: { authorization: `Bearer ${key}`, connection: 'close' } },
      (response) => {
        response.resume();
        response.on('end', () => resolve({ status: response.statusCode, answeredAfterSignal: signalled(), accepted }));
        response.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message, answeredAfterSignal: signalled(), accepted }));
      },
    );
    request.on('socket', (socket) => socket.once('secureConnect', () => (accepted = true)));
    request.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message, answeredAfterSignal: signalled(), accepted }));
    request.end();
  });
}

// With PostgreSQL available, both the DATABASE_URL server (as in production) and the embedded one.
const variants = testDatabaseKind() === 'postgres' ? ['DATABASE_URL', 'embedded database'] : ['embedded database'];

describe.each(variants)('SIGTERM during a burst of requests (%s)', (variant) => {
  let dataDir: string;
  let database: TestDatabase | undefined;
  let server: ServerProcess;
  let key: string;

  const start = async () => {
    server = variant === 'DATABASE_URL' ? await spawnServer({ DATA_DIR: dataDir, DATABASE_URL: database!.url }) : await spawnServer({ DATA_DIR: dataDir });
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'event-service-shutdown-'));
    if (variant === 'DATABASE_URL') {
      database = await createTestDatabase();
      const orm = await openDatabase({ clientUrl: database.url, pool: database.pool });
      key = (await createTenant(orm)).key;
      await orm.close(true);
      await start();
    } else {
      await start();
      key = /\b(nk_test_[A-Za-z0-9]{32})\b/.exec(server.stderr())![1];
    }
    // 100 events so that every list request reads a full page.
    const client = new HttpsClient(server.url, server.ca);
    for (let batch = 0; batch < 10; batch += 1) {
      const created = await Promise.all(Array.from({ length: 10 }, () => client.rest('POST', '/v1/events', key, eventInput())));
      expect(created.map((response) => response.status)).toEqual(Array(10).fill(201));
    }
    client.close();
  });

  afterAll(async () => {
    server?.child.kill('SIGKILL');
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('accepted requests all finish with 2xx, new connections are refused, the process exits 0', async () => {
    let signalled = false;
    let answered = 0;
    const burst = Array.from({ length: variant === 'DATABASE_URL' ? 150 : 60 }, () =>
      listRequest(server, key, () => signalled).then((outcome) => {
        answered += 1;
        if (answered === 10) {
          signalled = true;
          server.child.kill('SIGTERM');
        }
        return outcome;
      }),
    );
    // As soon as the server says it is shutting down, it no longer accepts connections.
    const refusedDuringShutdown = (async () => {
      while (!signalled) await new Promise((resolve) => setTimeout(resolve, 5));
      await server.waitForLog(/^shutting down/);
      return listRequest(server, key, () => true);
    })();

    const outcomes = await Promise.all(burst);
    const exit = await server.exit;
    expect(exit).toEqual({ code: 0, signal: null });
    // A request on a new connection after that gets no answer: the connection is refused (or reset).
    expect(await refusedDuringShutdown).toEqual({ error: expect.stringMatching(/^(ECONNREFUSED|ECONNRESET)$/), answeredAfterSignal: true, accepted: false });
    expect(await listRequest(server, key, () => true)).toEqual({ error: 'ECONNREFUSED', answeredAfterSignal: true, accepted: false });

    const answers = outcomes.filter((outcome) => outcome.status !== undefined);
    const failures = outcomes.filter((outcome) => outcome.error !== undefined);
    // Every request that got an answer got a 2xx, including those still in flight at SIGTERM.
    expect(answers.filter((outcome) => outcome.status !== 200)).toEqual([]);
    expect(answers.length).toBeGreaterThanOrEqual(10);
    expect(answers.filter((outcome) => outcome.answeredAfterSignal).length).toBeGreaterThan(0);
    // The others were never accepted: refused, or reset before the server took them (closing the
    // listener resets connections still waiting in the kernel's backlog).
    expect(failures.filter((outcome) => outcome.accepted)).toEqual([]);
    expect([...new Set(failures.map((outcome) => outcome.error))].filter((code) => code !== 'ECONNREFUSED' && code !== 'ECONNRESET')).toEqual([]);
    // Every request the server handled reached its client: none was cut off after being accepted.
    const handled = server.logs
      .map((line) => JSON.parse(line) as { msg?: string; url?: string; status?: number })
      .filter((entry) => entry.msg === 'request' && entry.url === '/v1/events?limit=100');
    expect(handled.filter((entry) => entry.status !== 200)).toEqual([]);
    expect(handled.length).toBe(answers.length);
    expect(server.logs.map((line) => JSON.parse(line).msg)).toContain('stopped');
  });

  test('a connection accepted before SIGTERM that sends its request later is still answered (with Connection: close)', async () => {
    await start();
    const socket = tls.connect({ host: 'localhost', port: server.port, ca: server.ca });
    await once(socket, 'secureConnect');
    server.child.kill('SIGTERM');
    await server.waitForLog(/^shutting down/);
    await new Promise((resolve) => setTimeout(resolve, 300));
    let response = '';
    socket.on('data', (chunk: Buffer) => (response += chunk.toString('utf8')));
    socket.write(`GET /v1/events?limit=1 HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\n\r\n`);
    await once(socket, 'end');
    expect(response).toMatch(/^HTTP\/1\.1 200 /);
    expect(response).toMatch(/\r\nconnection: close\r\n/i);
    expect(await server.exit).toEqual({ code: 0, signal: null });
  });
});
