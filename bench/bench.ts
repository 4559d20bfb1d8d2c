import { randomBytes } from 'node:crypto';
import { readFileSync, mkdtempSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import net from 'node:net';
import { adminQuery, benchDatabaseUrl, benchTenant, percentile, SERVER } from './bench-database';

/**
 * `npm run bench`: latency and memory of the hot routes against a throw-away database on the local
 * PostgreSQL (BENCH_ADMIN_URL), checked against targets. Exits 1 when a target is missed. The server
 * runs in its own process (`node dist/server.js`), as in production, so the load generator here does
 * not share its event loop.
 */
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
/**
 * p95 targets per route at BENCH_CONCURRENCY clients on a 2-core machine (server and load generator
 * share it): a full page of 100 events is ~45 KB of JSON; BENCH_P95_SCALE loosens or tightens them all.
 */
const SCALE = Number(process.env.BENCH_P95_SCALE ?? 1);
const TARGETS = {
  p95Ms: { list100: 150 * SCALE, get: 60 * SCALE, graphql20: 120 * SCALE, create: 150 * SCALE },
  /** Creates a second with 3 ticket types each, 8 in flight (a floor: it must not fall below where it was, ~190/s). */
  createsPerSecond: Number(process.env.BENCH_CREATES_PER_SECOND ?? 150),
  /** Peak resident memory of the server over the whole run (docs/performance.md: 250 MB). */
  rssMb: Number(process.env.BENCH_RSS_MB ?? 250),
  /** From spawning the server to its first answered HTTPS request, on PostgreSQL (docs/performance.md: 1.5 s). */
  coldStartMs: Number(process.env.BENCH_COLD_START_MS ?? 1500),
};

async function measure(
  name: string,
  targetMs: number,
  run: () => Promise<number>,
  concurrency: number = CONCURRENCY,
): Promise<{ name: string; targetMs: number; p50: number; p95: number; p99: number; rps: number }> {
  for (let i = 0; i < 50; i += 1) await run();
  const durations: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < REQUESTS) {
        next += 1;
        const t0 = performance.now();
        const status = await run();
        if (status >= 400) throw new Error(`${name}: HTTP ${status}`);
        durations.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  durations.sort((a, b) => a - b);
  return { name, targetMs, p50: percentile(durations, 50), p95: percentile(durations, 95), p99: percentile(durations, 99), rps: REQUESTS / elapsed };
}

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

/** Peak resident memory of a process so far (VmHWM), from /proc (Linux). */
async function peakResidentMegabytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

/** Status of GET /healthz over HTTPS, or 0 while nothing answers. */
function healthStatus(port: number): Promise<number> {
  return new Promise((resolve) => {
    const req = https.get({ host: '127.0.0.1', port, path: '/healthz', rejectUnauthorized: false, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.once('error', () => resolve(0));
  });
}

async function main(): Promise<void> {
  const database = `event_service_bench_${randomBytes(4).toString('hex')}`;
  await adminQuery(`create database "${database}"`);
  const url = benchDatabaseUrl(database);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'event-service-bench-'));
  const port = await freePort();
  const spawnedAt = performance.now();
  const server = spawn(process.execPath, [...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean), SERVER], {
    env: { ...process.env, DATABASE_URL: url, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '10000000' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const service = { port };
  while ((await healthStatus(port)) !== 200) {
    if (performance.now() - spawnedAt > 20_000 || server.exitCode !== null) throw new Error('the server did not start');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const coldStartMs = performance.now() - spawnedAt;
  try {
    const { key } = benchTenant(url, 'Bench', dataDir);
    const agent = new https.Agent({ ca: readFileSync(path.join(dataDir, 'tls', 'localhost.crt')), keepAlive: true, maxSockets: CONCURRENCY });
    const call = (method: string, route: string, body?: unknown) =>
      new Promise<number>((resolve, reject) => {
        const payload = body === undefined ? undefined : JSON.stringify(body);
        const req = https.request(
          `https://localhost:${service.port}${route}`,
          { method, agent, headers: { authorization: `Bearer ${key}`, ...(payload ? { 'content-type': 'application/json' } : {}) } },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          },
        );
        req.on('error', reject);
        req.end(payload);
      });

    const start = Date.now() + 30 * 24 * 3600 * 1000;
    for (let i = 0; i < 100; i += 1) {
      await call('POST', '/v1/events', {
        title: `Event ${i}`,
        slug: `event-${i}`,
        startDate: new Date(start).toISOString(),
        endDate: new Date(start + 3600_000).toISOString(),
        ticketTypes: [{ name: 'GA', price: 10, currency: 'EUR', quantity: 100 }],
      });
    }
    const results = [
      await measure('GET /v1/events?limit=100', TARGETS.p95Ms.list100, () => call('GET', '/v1/events?limit=100')),
      await measure('GET /v1/events/{slug}', TARGETS.p95Ms.get, () => call('GET', '/v1/events/event-42')),
      await measure('POST /graphql events(limit: 20)', TARGETS.p95Ms.graphql20, () =>
        call('POST', '/graphql', { query: '{ events(limit: 20) { total events { slug ticketTypes { name sold } } } }' }),
      ),
    ];
    let created = 0;
    const create = await measure(
      'POST /v1/events (3 ticket types, 8 in flight)',
      TARGETS.p95Ms.create,
      () => {
        created += 1;
        return call('POST', '/v1/events', {
          title: `Created ${created}`,
          slug: `created-${created}`,
          startDate: new Date(start).toISOString(),
          endDate: new Date(start + 3600_000).toISOString(),
          ticketTypes: ['GA', 'VIP', 'Student'].map((name, index) => ({ name, price: 10 + index, currency: 'EUR', quantity: 100 })),
        });
      },
      8,
    );
    results.push(create);
    const rssMb = await peakResidentMegabytes(server.pid as number);
    let failed = false;
    for (const result of results) {
      const ok = result.p95 <= result.targetMs;
      failed ||= !ok;
      process.stdout.write(
        `${ok ? 'ok  ' : 'SLOW'} ${result.name.padEnd(36)} p50 ${result.p50.toFixed(1)} ms  p95 ${result.p95.toFixed(1)} ms  p99 ${result.p99.toFixed(1)} ms  ${result.rps.toFixed(0)} req/s  (p95 target ${result.targetMs} ms)\n`,
      );
    }
    const createsOk = create.rps >= TARGETS.createsPerSecond;
    failed ||= !createsOk;
    process.stdout.write(`${createsOk ? 'ok  ' : 'SLOW'} creates ${create.rps.toFixed(0)}/s (target >= ${TARGETS.createsPerSecond}/s)\n`);
    const memoryOk = rssMb <= TARGETS.rssMb;
    failed ||= !memoryOk;
    process.stdout.write(`${memoryOk ? 'ok  ' : 'BIG '} server peak resident memory ${rssMb.toFixed(0)} MB (target <= ${TARGETS.rssMb} MB)\n`);
    const startOk = coldStartMs <= TARGETS.coldStartMs;
    failed ||= !startOk;
    process.stdout.write(`${startOk ? 'ok  ' : 'SLOW'} cold start to the first answered request ${coldStartMs.toFixed(0)} ms (target <= ${TARGETS.coldStartMs} ms)\n`);
    process.stdout.write(`concurrency ${CONCURRENCY}, ${REQUESTS} requests per route\n`);
    agent.destroy();
    process.exitCode = failed ? 1 : 0;
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
