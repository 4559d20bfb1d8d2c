import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { adminQuery, benchDatabaseUrl, benchTenant, percentile, SERVER } from './bench-database';

/**
 * `npm run --silent bench:webhooks`: webhook delivery latency (from the outbox write in the committing
 * transaction to the receipt, over BENCH_WEBHOOK_CHANGES REST changes) and the worker's throughput
 * on a backlog of BENCH_WEBHOOK_BACKLOG messages. The server runs in its own process on a throw-away
 * database of the local PostgreSQL; the receiver (here) answers 204 at once. A measurement, not a test.
 */
const CHANGES = Number(process.env.BENCH_WEBHOOK_CHANGES ?? 400);
const BACKLOG = Number(process.env.BENCH_WEBHOOK_BACKLOG ?? 2000);
const CLIENTS = Number(process.env.BENCH_WEBHOOK_CLIENTS ?? 4);

async function main(): Promise<void> {
  const database = `event_service_webhook_bench_${randomBytes(4).toString('hex')}`;
  await adminQuery(`create database "${database}"`);
  const url = benchDatabaseUrl(database);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'event-service-webhook-bench-'));

  const received = new Map<string, number>();
  let onReceive = () => undefined as void;
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = Date.now();
      const id = String(req.headers['webhook-id']);
      if (!received.has(id)) received.set(id, at - Date.parse((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { timestamp: string }).timestamp));
      res.writeHead(204).end();
      onReceive();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as net.AddressInfo).port}/hooks`;
  const until = (count: number) =>
    new Promise<void>((resolve) => {
      onReceive = () => {
        if (received.size >= count) resolve();
      };
      onReceive();
    });

  const server = spawn(process.execPath, [SERVER], {
    env: {
      ...process.env,
      DATABASE_URL: url,
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      RATE_LIMIT_PER_MINUTE: '10000000',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let buffer = '';
    server.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      const match = /"url":"https:\/\/localhost:(\d+)"/.exec(buffer);
      if (match) resolve(Number(match[1]));
    });
    server.once('exit', () => reject(new Error('the server did not start')));
  });
  server.stdout.resume();

  try {
    const { organizationId, key } = benchTenant(url, 'Webhook bench', dataDir);
    const agent = new https.Agent({ ca: readFileSync(path.join(dataDir, 'tls', 'localhost.crt')), keepAlive: true, maxSockets: CLIENTS });
    const call = (method: string, route: string, body: unknown) =>
      new Promise<unknown>((resolve, reject) => {
        const payload = JSON.stringify(body);
        const req = https.request(
          { host: 'localhost', port, path: route, method, agent, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () => (res.statusCode! < 300 ? resolve(JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}')) : reject(new Error(`HTTP ${res.statusCode}`))));
          },
        );
        req.on('error', reject);
        req.end(payload);
      });
    await call('POST', '/graphql', {
      query: 'mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { endpoint { id } } }',
      variables: { input: { url: receiverUrl } },
    });

    // Latency: REST changes from CLIENTS concurrent clients, each message timed from its write to receipt.
    const start = new Date(Date.now() + 30 * 24 * 3600 * 1000);
    let next = 0;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (next < CHANGES) {
          next += 1;
          const slug = `bench-${next}-${randomBytes(3).toString('hex')}`;
          await call('POST', '/v1/events', { title: 'Bench', slug, startDate: start.toISOString(), endDate: new Date(start.getTime() + 3600_000).toISOString() });
        }
      }),
    );
    await until(CHANGES);
    const latencies = [...received.values()].sort((a, b) => a - b);

    // Throughput: a backlog written in one transaction, delivered by the server's worker.
    received.clear();
    const started = Date.now();
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      await client.query('begin');
      await client.query(
        `insert into webhook_messages (id, organization_id, type, body, created_at)
         select 'msg_bench' || lpad(i::text, 11, '0'), $1, 'webhook.test', json_build_object('type', 'webhook.test', 'timestamp', to_char(now() at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'data', json_build_object('i', i))::text, now()
         from generate_series(1, $2) as i`,
        [organizationId, BACKLOG],
      );
      await client.query(
        `insert into webhook_deliveries (organization_id, message_id, endpoint_id, next_attempt_at, created_at)
         select m.organization_id, m.id, e.id, now(), now() from webhook_messages m join webhook_endpoints e on e.organization_id = m.organization_id
          where m.id like 'msg_bench%'`,
      );
      await client.query(`select pg_notify('event_service_webhooks', '')`);
      await client.query('commit');
    } finally {
      await client.end();
    }
    await until(BACKLOG);
    const seconds = (Date.now() - started) / 1000;

    const line = (label: string, value: string) => process.stdout.write(`${label.padEnd(44)} ${value}\n`);
    line(`delivery latency over ${CHANGES} REST creates (ms)`, `p50 ${percentile(latencies, 50)}  p90 ${percentile(latencies, 90)}  p99 ${percentile(latencies, 99)}  max ${latencies.at(-1)}`);
    line(`worker throughput, backlog of ${BACKLOG}`, `${(BACKLOG / seconds).toFixed(0)} messages/s (${seconds.toFixed(1)} s)`);
  } finally {
    server.kill('SIGTERM');
    await new Promise((resolve) => server.once('exit', resolve));
    receiver.closeAllConnections();
    receiver.close();
    await adminQuery(`drop database if exists "${database}" with (force)`);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`webhook bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
