import { once } from 'node:events';
import https from 'node:https';
import tls from 'node:tls';
import { eventInput } from './factories';
import { HttpsClient } from './https-client';
import type { ServerProcess } from './spawned-server';

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

/** Creates events through REST until the key's organization has `total` (so list requests read a full page). */
export async function fillEvents(server: ServerProcess, key: string, total: number): Promise<void> {
  const client = new HttpsClient(server.url, server.ca);
  try {
    let missing = total - (await client.rest('GET', '/v1/events?limit=1', key)).body.total;
    while (missing > 0) {
      const batch = Math.min(10, missing);
      const created = await Promise.all(Array.from({ length: batch }, () => client.rest('POST', '/v1/events', key, eventInput())));
      expect(created.map((response) => response.status)).toEqual(Array(batch).fill(201));
      missing -= batch;
    }
  } finally {
    client.close();
  }
}

/**
 * SIGTERM during a burst of `requests` list requests, each on its own connection: accepted requests
 * all finish with 2xx, new connections are refused, the process exits 0 and every request it handled
 * reached its client.
 */
export async function expectGracefulShutdownDuringBurst(server: ServerProcess, key: string, requests: number): Promise<void> {
  let signalled = false;
  let answered = 0;
  const burst = Array.from({ length: requests }, () =>
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
}

/** A connection accepted before SIGTERM that sends its request later is still answered, with Connection: close; exit 0. */
export async function expectLateRequestOnAcceptedConnectionAnswered(server: ServerProcess, key: string): Promise<void> {
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
}
