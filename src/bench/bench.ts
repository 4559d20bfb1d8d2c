import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { readFileSync, mkdtempSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { loadConfig } from '../config';
import { openDatabase } from '../db/database';
import { createLogger } from '../logger';
import { ApiKeyService } from '../modules/api-key/api-key.service';
import { OrganizationService } from '../modules/organization/organization.service';
import { PERMISSIONS } from '../auth/permissions';
import { startService } from '../service';

/**
 * `npm run bench`: latency and memory of the hot routes against a throw-away database on the local
 * PostgreSQL (BENCH_ADMIN_URL), checked against targets. Exits 1 when a target is missed.
 */
const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const TARGETS = { p95Ms: Number(process.env.BENCH_P95_MS ?? 50), rssMb: Number(process.env.BENCH_RSS_MB ?? 300) };

async function admin(sql: string): Promise<void> {
  const client = new Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function measure(name: string, run: () => Promise<number>): Promise<{ name: string; p50: number; p95: number; p99: number; rps: number }> {
  for (let i = 0; i < 50; i += 1) await run();
  const durations: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
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
  return { name, p50: percentile(durations, 50), p95: percentile(durations, 95), p99: percentile(durations, 99), rps: REQUESTS / elapsed };
}

async function main(): Promise<void> {
  const database = `event_service_bench_${randomBytes(4).toString('hex')}`;
  await admin(`create database "${database}"`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${database}`;
  const orm = await openDatabase({ clientUrl: url.toString() });
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'event-service-bench-'));
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '10000000' });
  const service = await startService(config, orm, createLogger('silent'));
  try {
    const organization = await new OrganizationService(orm.em.fork()).create({ name: 'Bench' });
    const { key } = await new ApiKeyService(orm.em.fork()).create({ organizationId: organization.id, name: 'bench', permissions: [...PERMISSIONS] });
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
      await measure('GET /v1/events?limit=100', () => call('GET', '/v1/events?limit=100')),
      await measure('GET /v1/events/{slug}', () => call('GET', '/v1/events/event-42')),
      await measure('POST /graphql events(limit: 20)', () =>
        call('POST', '/graphql', { query: '{ events(limit: 20) { total events { slug ticketTypes { name sold } } } }' }),
      ),
    ];
    const rssMb = process.memoryUsage().rss / 1024 / 1024;
    let failed = false;
    for (const result of results) {
      const ok = result.p95 <= TARGETS.p95Ms;
      failed ||= !ok;
      process.stdout.write(
        `${ok ? 'ok  ' : 'SLOW'} ${result.name.padEnd(36)} p50 ${result.p50.toFixed(1)} ms  p95 ${result.p95.toFixed(1)} ms  p99 ${result.p99.toFixed(1)} ms  ${result.rps.toFixed(0)} req/s\n`,
      );
    }
    const memoryOk = rssMb <= TARGETS.rssMb;
    failed ||= !memoryOk;
    process.stdout.write(`${memoryOk ? 'ok  ' : 'BIG '} resident memory ${rssMb.toFixed(0)} MB (target <= ${TARGETS.rssMb} MB)\n`);
    process.stdout.write(`targets: p95 <= ${TARGETS.p95Ms} ms at concurrency ${CONCURRENCY}, ${REQUESTS} requests per route\n`);
    agent.destroy();
    process.exitCode = failed ? 1 : 0;
  } finally {
    await service.close(1000);
    await orm.close(true);
    await admin(`drop database if exists "${database}" with (force)`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
