import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { adminQuery, benchDatabaseUrl, benchTenant, SERVER } from './bench-database';

/**
 * `npm run bench:series`: how long POST /v1/series takes for a series of 1,000 occurrences with 3 ticket
 * types each (D28: the series, 1,000 events and 3,000 ticket types in one transaction; the bar
 * is under 2 s on this machine), then a preview and an update that moves all 1,000 by an hour. The
 * server runs in its own process (`node dist/server.js`) on a throw-away database of the local
 * PostgreSQL (BENCH_ADMIN_URL). Prints each round and the median; exits 1 when the median misses the bar.
 */
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const BAR_MS = Number(process.env.BENCH_SERIES_BAR_MS ?? 2000);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

function healthStatus(port: number): Promise<number> {
  return new Promise((resolve) => {
    const req = https.get({ host: '127.0.0.1', port, path: '/healthz', rejectUnauthorized: false, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.once('error', () => resolve(0));
  });
}

/** The fields of the answers this benchmark reads. */
interface Answer {
  occurrenceCount?: number;
  total?: number;
  ticketTypes?: unknown[];
  version?: number;
  plan?: { move: unknown[] };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
  const database = `event_service_bench_${randomBytes(4).toString('hex')}`;
  await adminQuery(`create database "${database}"`);
  const url = benchDatabaseUrl(database);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'event-service-bench-'));
  const port = await freePort();
  const server = spawn(process.execPath, [SERVER], {
    env: { ...process.env, DATABASE_URL: url, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '10000000' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const spawnedAt = performance.now();
  while ((await healthStatus(port)) !== 200) {
    if (performance.now() - spawnedAt > 20_000 || server.exitCode !== null) throw new Error('the server did not start');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  try {
    const { key } = benchTenant(url, 'Series bench', dataDir);
    const agent = new https.Agent({ ca: readFileSync(path.join(dataDir, 'tls', 'localhost.crt')), keepAlive: true });
    const call = (method: string, route: string, body?: unknown) =>
      new Promise<{ status: number; json: Answer; ms: number }>((resolve, reject) => {
        const payload = body === undefined ? undefined : JSON.stringify(body);
        const started = performance.now();
        const req = https.request(
          `https://localhost:${port}${route}`,
          { method, agent, headers: { authorization: `Bearer ${key}`, ...(payload ? { 'content-type': 'application/json' } : {}) } },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () => {
              const text = Buffer.concat(chunks).toString('utf8');
              resolve({ status: res.statusCode ?? 0, json: (text ? JSON.parse(text) : {}) as Answer, ms: performance.now() - started });
            });
          },
        );
        req.on('error', reject);
        req.end(payload);
      });
    const series = (round: number) => ({
      title: `Daily class ${round}`,
      slug: `daily-${round}`,
      timezone: 'Europe/Berlin',
      firstStart: '2027-03-01T18:00',
      durationMinutes: 60,
      recurrence: ['RRULE:FREQ=DAILY;COUNT=1000'],
      capacity: 30,
      ticketTypes: ['Drop-in', 'Member', 'Student'].map((name, index) => ({ name, price: 10 + index, currency: 'EUR', quantity: 30 })),
    });
    // One warm-up round (the worker thread and the statements' first plans), not counted.
    const warm = await call('POST', '/v1/series', series(0));
    if (warm.status !== 201) throw new Error(`create: ${warm.status} ${JSON.stringify(warm.json)}`);
    const creates: number[] = [];
    for (let round = 1; round <= ROUNDS; round += 1) {
      const created = await call('POST', '/v1/series', series(round));
      if (created.status !== 201 || created.json.occurrenceCount !== 1000) throw new Error(`create: ${created.status} ${JSON.stringify(created.json).slice(0, 300)}`);
      creates.push(created.ms);
      process.stdout.write(`create 1,000 occurrences x 3 ticket types: ${created.ms.toFixed(0)} ms\n`);
    }
    const events = await call('GET', '/v1/events?limit=1');
    const tickets = await call('GET', `/v1/events/daily-1-2027-03-01`);
    if (events.json.total !== 1000 * (ROUNDS + 1) || tickets.json.ticketTypes?.length !== 3) throw new Error('the occurrences are not all there');

    const change = { changes: { firstStart: '2027-03-01T19:00' } };
    const preview = await call('POST', '/v1/series/daily-1/preview', change);
    const update = await call('PUT', '/v1/series/daily-1', { ...change, expectedVersion: preview.json.version });
    if (update.status !== 200 || update.json.plan?.move.length !== 1000) throw new Error(`update: ${update.status} ${JSON.stringify(update.json).slice(0, 300)}`);
    const middle = median(creates);
    process.stdout.write(`${middle <= BAR_MS ? 'ok  ' : 'SLOW'} median create ${middle.toFixed(0)} ms over ${ROUNDS} rounds (bar ${BAR_MS} ms)\n`);
    process.stdout.write(`preview of moving 1,000 dates by an hour ${preview.ms.toFixed(0)} ms; the update ${update.ms.toFixed(0)} ms\n`);
    agent.destroy();
    process.exitCode = middle <= BAR_MS ? 0 : 1;
  } finally {
    server.kill('SIGTERM');
    await new Promise((resolve) => server.once('exit', resolve));
    await adminQuery(`drop database if exists "${database}" with (force)`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
