import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { adminQuery, benchDatabaseUrl, benchTenant, percentile, SERVER } from './bench-database';

/**
 * `npm run --silent bench:queue`: the on-sale queue (D30) under load, a measurement, not a test. The
 * compiled server runs in its own process on a throw-away database of the local PostgreSQL; the
 * clients (here) keep BENCH_QUEUE_CONNECTIONS requests in flight. Parts (BENCH_QUEUE_PARTS, in order):
 *   joins      BENCH_QUEUE_JOINS (100,000) joins in a burst: joins per second, latency
 *   polls      polls of random entries of that queue (all WAITING, positions computed) against a
 *              queue of 10, rounds alternated: polls per second and p99 of each
 *   admission  a queue at BENCH_QUEUE_ADMIT_PER_MINUTE (600) for 65 s: the most admitted in any 60 s
 *              window, and in the minute after the sale opened, against the setting
 *   drop       BENCH_QUEUE_BUYERS (2,000) buyers join before the sale, poll at pollAfterSeconds once
 *              it opens (100,000 a minute) and book one seat each with their admission: bookings per
 *              second while they book, against the same bookings of an event without a queue
 */
const PARTS = (process.env.BENCH_QUEUE_PARTS ?? 'joins,polls,admission,drop').split(',');
const CONNECTIONS = Number(process.env.BENCH_QUEUE_CONNECTIONS ?? 64);
const JOINS = Number(process.env.BENCH_QUEUE_JOINS ?? 100_000);
const POLL_SECONDS = Number(process.env.BENCH_QUEUE_POLL_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_QUEUE_ROUNDS ?? 2);
const ADMIT_PER_MINUTE = Number(process.env.BENCH_QUEUE_ADMIT_PER_MINUTE ?? 600);
const BUYERS = Number(process.env.BENCH_QUEUE_BUYERS ?? 2_000);

const line = (label: string, value: string) => process.stdout.write(`${label.padEnd(58)} ${value}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const iso = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();

/** What the benchmark reads of an answer: an entry's fields (or an error's envelope). */
interface Body {
  id: string;
  status: string;
  pollAfterSeconds: number | null;
}

interface Answer {
  status: number;
  body: Body;
  ms: number;
}

/** The server, started as an operator starts it, and a client of it keeping up to CONNECTIONS sockets. */
async function startServer(url: string, dataDir: string): Promise<{ server: ChildProcess; call: (method: string, route: string, key: string, body?: unknown) => Promise<Answer> }> {
  // Its own port (LOG_LEVEL warn keeps the access log out of the measurement, and the port with it).
  const port = Number(process.env.BENCH_QUEUE_PORT ?? 9791);
  const server = spawn(process.execPath, [SERVER], {
    env: { ...process.env, DATABASE_URL: url, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn', NODE_ENV: 'production', RATE_LIMIT_PER_MINUTE: '10000000' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  for (let attempt = 0; ; attempt += 1) {
    const up = await new Promise<boolean>((resolve) => {
      https.get({ host: '127.0.0.1', port, path: '/healthz', rejectUnauthorized: false }, (res) => resolve(res.statusCode === 200)).on('error', () => resolve(false));
    });
    if (up) break;
    if (attempt > 300 || server.exitCode !== null) throw new Error('the server did not start');
    await sleep(100);
  }
  server.once('exit', (code, signal) => process.stderr.write(`server exited: ${code ?? signal}\n`));
  const agent = new https.Agent({ ca: readFileSync(path.join(dataDir, 'tls', 'localhost.crt')), keepAlive: true, maxSockets: CONNECTIONS });
  const call = (method: string, route: string, key: string, body?: unknown) =>
    new Promise<Answer>((resolve, reject) => {
      const started = performance.now();
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = https.request(
        { host: 'localhost', port, path: route, method, agent, headers: { authorization: `Bearer ${key}`, ...(payload ? { 'content-type': 'application/json' } : {}) } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            resolve({ status: res.statusCode ?? 0, body: (text ? JSON.parse(text) : {}) as Body, ms: performance.now() - started });
          });
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  return { server, call };
}

/** `count` tasks over CONNECTIONS workers; each task's latency; the whole run's seconds. */
async function burst(count: number, task: (index: number) => Promise<Answer>): Promise<{ seconds: number; latencies: number[]; failed: number }> {
  const latencies: number[] = [];
  let next = 0;
  let failed = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (next < count) {
        const answer = await task(next++);
        latencies.push(answer.ms);
        if (answer.status >= 300) failed += 1;
      }
    }),
  );
  return { seconds: (performance.now() - started) / 1000, latencies: latencies.sort((a, b) => a - b), failed };
}

/** Tasks for `seconds` over CONNECTIONS workers: how many a second, and their latencies. */
async function sustained(seconds: number, task: () => Promise<Answer>): Promise<{ rate: number; latencies: number[] }> {
  const latencies: number[] = [];
  const end = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < end) latencies.push((await task()).ms);
    }),
  );
  return { rate: latencies.length / seconds, latencies: latencies.sort((a, b) => a - b) };
}

const summary = (latencies: number[]) => `p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms`;

async function main(): Promise<void> {
  const database = `event_service_queue_bench_${randomBytes(4).toString('hex')}`;
  await adminQuery(`create database "${database}"`);
  const url = benchDatabaseUrl(database);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'event-service-queue-bench-'));
  const { server, call } = await startServer(url, dataDir);
  const pg = new Client({ connectionString: url });
  await pg.connect();
  try {
    const { key } = benchTenant(url, 'Queue bench', dataDir);
    const event = async (slug: string, capacity: number | null, queue: Record<string, unknown> | null) => {
      const created = await call('POST', '/v1/events', key, { title: slug, slug, capacity, startDate: iso(30 * 86_400_000), endDate: iso(30 * 86_400_000 + 3_600_000), ...(queue ? { queue } : {}) });
      if (created.status !== 201) throw new Error(`event ${slug}: ${created.status} ${JSON.stringify(created.body)}`);
      await call('PUT', `/v1/events/${slug}`, key, { status: 'PUBLISHED' });
    };
    const join = (slug: string, name: string) => call('POST', `/v1/events/${slug}/queue`, key, { attendeeEmail: `${name}@example.com` });
    const openSale = (slug: string) => call('PUT', `/v1/events/${slug}`, key, { queue: { onSaleAt: iso(-1_000) } });

    // A queue on sale admitting one a minute: every entry has its place at once (a rank), almost none leaves it.
    const onSaleSlowly = { admitPerMinute: 1, onSaleAt: iso(-60_000) };
    const ids: string[] = [];
    if (PARTS.includes('joins') || PARTS.includes('polls')) {
      await event('burst', null, onSaleSlowly);
      const joins = PARTS.includes('joins') ? JOINS : 100_000;
      const run = await burst(joins, async (index) => {
        const answer = await join('burst', `b${index}`);
        if (answer.status === 201) ids.push(answer.body.id);
        return answer;
      });
      if (PARTS.includes('joins')) line(`joins: ${joins} in a burst (${CONNECTIONS} in flight)`, `${(joins / run.seconds).toFixed(0)} joins/s, ${summary(run.latencies)}, ${run.failed} refused`);
    }
    if (PARTS.includes('polls')) {
      await event('small', null, onSaleSlowly);
      const small: string[] = [];
      for (let index = 0; index < 10; index += 1) small.push((await join('small', `s${index}`)).body.id);
      const [{ waiting }] = (await pg.query<{ waiting: number }>(`select waiting from event_queues u join events e on e.id = u.event_id where e.slug = 'burst'`)).rows;
      const pick = (list: string[]) => list[Math.floor(Math.random() * list.length)];
      for (let round = 1; round <= ROUNDS; round += 1) {
        for (const [label, list] of round % 2 === 1 ? [['large', ids], ['small', small]] as const : [['small', small], ['large', ids]] as const) {
          const run = await sustained(POLL_SECONDS, () => call('GET', `/v1/queue/${pick(list)}`, key));
          line(`polls, round ${round}: ${label === 'large' ? `${waiting} waiting` : '10 waiting'}`, `${run.rate.toFixed(0)} polls/s, ${summary(run.latencies)}`);
        }
      }
    }
    if (PARTS.includes('admission')) {
      await event('rate', null, { admitPerMinute: ADMIT_PER_MINUTE, onSaleAt: iso(3_600_000) });
      const entries = Math.ceil(ADMIT_PER_MINUTE * 1.3) + 10;
      await burst(entries, (index) => join('rate', `r${index}`));
      const opened = Date.now();
      await openSale('rate');
      await sleep(65_000);
      const times = (await pg.query<{ at: string }>(`select extract(epoch from admitted_at) * 1000 as at from queue_entries q join events e on e.id = q.event_id where e.slug = 'rate' and admitted_at is not null order by admitted_at`)).rows.map((row) => Number(row.at));
      const window = (start: number) => times.filter((time) => time >= start && time <= start + 60_000).length;
      const busiest = Math.max(...times.map(window));
      const first = window(opened);
      line(`admission at ${ADMIT_PER_MINUTE}/min, ${entries} waiting`, `busiest 60 s window ${busiest} (${((100 * busiest) / ADMIT_PER_MINUTE).toFixed(1)} %); first minute after the sale opened ${first} (${((100 * first) / ADMIT_PER_MINUTE).toFixed(1)} %)`);
    }
    if (PARTS.includes('drop')) {
      // Seats for every buyer's admission (4 each): the stock does not hold the drop back, the service does.
      await event('drop', 4 * BUYERS, { admitPerMinute: 100_000, onSaleAt: iso(3_600_000) });
      await event('plain', 4 * BUYERS, null);
      const buyers: Array<{ id: string; email: string }> = [];
      await burst(BUYERS, async (index) => {
        const answer = await join('drop', `d${index}`);
        buyers.push({ id: answer.body.id, email: `d${index}@example.com` });
        return answer;
      });
      await openSale('drop');
      // Every buyer on its own (a browser each; at most CONNECTIONS requests in flight): it polls at its
      // pollAfterSeconds until admitted, then books one seat with its admission.
      const bookedAt: number[] = [];
      const bookingLatencies: number[] = [];
      let refused = 0;
      await Promise.all(
        buyers.map(async (buyer) => {
          for (;;) {
            const polled = await call('GET', `/v1/queue/${buyer.id}`, key);
            if (polled.body.status === 'ADMITTED') break;
            if (polled.body.status !== 'WAITING') throw new Error(`buyer ${buyer.id}: ${polled.body.status}`);
            await sleep((polled.body.pollAfterSeconds ?? 1) * 1000);
          }
          const booked = await call('POST', '/v1/events/drop/bookings', key, { quantity: 1, attendeeEmail: buyer.email, attendeeName: 'Buyer', queueEntryId: buyer.id });
          if (booked.status !== 201) refused += 1;
          bookedAt.push(performance.now());
          bookingLatencies.push(booked.ms);
        }),
      );
      bookedAt.sort((a, b) => a - b);
      const dropRate = BUYERS / ((bookedAt[BUYERS - 1] - bookedAt[0]) / 1000);
      const plain = await burst(BUYERS, (index) => call('POST', '/v1/events/plain/bookings', key, { quantity: 1, attendeeEmail: `p${index}@example.com`, attendeeName: 'Buyer' }));
      const plainRate = BUYERS / plain.seconds;
      // The gate's own cost: the same burst of bookings, each with an admission (all admitted before it starts).
      await event('gated', 4 * BUYERS, { admitPerMinute: 100_000, onSaleAt: iso(-1_000) });
      const admitted: Array<{ id: string; email: string }> = [];
      await burst(BUYERS, async (index) => {
        const answer = await join('gated', `g${index}`);
        admitted.push({ id: answer.body.id, email: `g${index}@example.com` });
        return answer;
      });
      for (let waited = 0; waited < 600; waited += 1) {
        const [{ left }] = (await pg.query<{ left: number }>(`select waiting as left from event_queues u join events e on e.id = u.event_id where e.slug = 'gated'`)).rows;
        if (left === 0) break;
        await sleep(100);
      }
      const gated = await burst(BUYERS, (index) =>
        call('POST', '/v1/events/gated/bookings', key, { quantity: 1, attendeeEmail: admitted[index].email, attendeeName: 'Buyer', queueEntryId: admitted[index].id }),
      );
      bookingLatencies.sort((a, b) => a - b);
      const spread = (bookedAt[BUYERS - 1] - bookedAt[0]) / 1000;
      line(`drop: ${BUYERS} buyers through the queue, bookings while they book`, `${dropRate.toFixed(0)}/s over ${spread.toFixed(1)} s, bookings ${summary(bookingLatencies)}, ${refused} refused`);
      line(`drop: the same bookings without a queue (target-book's kind)`, `${plainRate.toFixed(0)}/s, ${summary(plain.latencies)}, ${plain.failed} refused`);
      line('drop: through the queue / without', `${(dropRate / plainRate).toFixed(2)}×`);
      line('bookings with an admission, in a burst (the gate alone)', `${(BUYERS / gated.seconds).toFixed(0)}/s, ${summary(gated.latencies)}, ${gated.failed} refused`);
      line('bookings with an admission / without', `${(BUYERS / gated.seconds / plainRate).toFixed(2)}×`);
    }
  } finally {
    await pg.end();
    server.kill('SIGTERM');
    await new Promise((resolve) => server.once('exit', resolve));
    await adminQuery(`drop database if exists "${database}" with (force)`);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`queue bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
