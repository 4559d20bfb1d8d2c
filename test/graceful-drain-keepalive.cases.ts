import { readFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { useTestApp } from './helpers/use-test-app';

// Requests on kept-alive connections during the shutdown drain are answered (the last one with
// Connection: close), never reset: a reset leaves the client unsure whether its write was done. Only
// new connections are refused.
const ctx = useTestApp({}, { tenant: true });

interface Outcome {
  status?: number;
  connection?: string;
  error?: string;
  /** Sent on a kept-alive connection that had already served a request. */
  reused: boolean;
  afterClose: boolean;
}

test('clients busy on kept-alive connections: every request that reached the server is answered', async () => {
  const ca = readFileSync(path.join(ctx.app.config.dataDir, 'tls', 'localhost.crt'), 'utf8');
  const agent = new https.Agent({ ca, keepAlive: true, maxSockets: 8 });
  let closeStarted = false;
  const outcomes: Outcome[] = [];
  const one = () =>
    new Promise<Outcome>((resolve) => {
      const request = https.request(
        new URL('/v1/events?limit=1', ctx.app.url),
        { agent, headers: { authorization: `Bearer ${ctx.key}` } },
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
  const closing = ctx.app.service.close(10_000);
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
