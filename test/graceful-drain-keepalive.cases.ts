import { readFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { createTenant } from './helpers/factories';
import { startTestApp, type TestApp } from './helpers/test-app';

// Issue 9, defect 6: requests on kept-alive connections during the shutdown drain are answered (the
// last one with Connection: close), never reset; only new connections are refused.
let app: TestApp;
let key: string;
beforeAll(async () => {
  app = await startTestApp();
  ({ key } = await createTenant(app.orm));
});
afterAll(() => app.close());

interface Outcome {
  status?: number;
  connection?: string;
  error?: string;
  /** Sent on a kept-alive connection that had already served a request. */
  reused: boolean;
  afterClose: boolean;
}

test('clients busy on kept-alive connections: every request that reached the server is answered', async () => {
  const ca = readFileSync(path.join(app.config.dataDir, 'tls', 'localhost.crt'), 'utf8');
  const agent = new https.Agent({ ca, keepAlive: true, maxSockets: 8 });
  let closeStarted = false;
  const outcomes: Outcome[] = [];
  const one = () =>
    new Promise<Outcome>((resolve) => {
      const request = https.request(
        new URL('/v1/events?limit=1', app.url),
        { agent, headers: { authorization: `Bearer ${key}` } },
        (response) => {
          response.resume();
          response.on('end', () =>
            resolve({ status: response.statusCode, connection: response.headers.connection, reused: request.reusedSocket, afterClose: closeStarted }),
          );
        },
      );
      request.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message, reused: request.reusedSocket, afterClose: closeStarted }));
      request.end();
    });
  const client = async () => {
    for (;;) {
      const outcome = await one();
      outcomes.push(outcome);
      if (outcome.error) return;
    }
  };
  const clients = Array.from({ length: 8 }, client);
  while (outcomes.length < 40) await new Promise((resolve) => setTimeout(resolve, 10));
  closeStarted = true;
  const closing = app.service.close(10_000);
  await Promise.all(clients);
  await closing;
  agent.destroy();

  const failures = outcomes.filter((outcome) => outcome.error);
  // Only connections opened after the listener closed fail, and they are refused, not reset.
  expect(failures.filter((outcome) => outcome.reused || outcome.error !== 'ECONNREFUSED')).toEqual([]);
  expect(outcomes.filter((outcome) => outcome.status !== undefined && outcome.status !== 200)).toEqual([]);
  const answeredDuringDrain = outcomes.filter((outcome) => outcome.afterClose && outcome.status === 200);
  expect(answeredDuringDrain.length).toBeGreaterThan(0);
  expect(answeredDuringDrain.some((outcome) => outcome.connection === 'close')).toBe(true);
});
