import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { adminQuery, benchDatabaseUrl, benchTenant, percentile, SERVER } from './bench-database';

/**
 * `npm run --silent bench:graphql-refusals`: what refusing costly GraphQL
 * documents costs the event loop. BENCH_REFUSAL_CLIENTS clients (default 4) send distinct documents over
 * GRAPHQL_MAX_COST (650 aliased lists, ~27 kB, no two alike) for BENCH_REFUSAL_SECONDS (default 10) while
 * one prober asks GET /healthz in a loop; it reports the probe's latency (alone, then under that load),
 * the refusals' own latency and their statuses. Then, with introspection on, one document of 1,380
 * aliases of `__schema` through one fragment: its status, time and answer size. The server runs in its
 * own process on a throw-away database of the local PostgreSQL. A measurement, not a test.
 */
const CLIENTS = Number(process.env.BENCH_REFUSAL_CLIENTS ?? 4);
const SECONDS = Number(process.env.BENCH_REFUSAL_SECONDS ?? 10);

/** 650 aliased pages of 100 events: far over the default cost of 5,000; `tag` makes each one distinct. */
function overCostDocument(tag: string): string {
  const parts: string[] = [];
  for (let index = 0; index < 650; index += 1) parts.push(`${tag}${index}: events(limit: 100) { events { id } }`);
  return `{ ${parts.join(' ')} }`;
}

const INTROSPECTION_ATTACK = `query { ${Array.from({ length: 1380 }, (_, index) => `s${index}: __schema { ...S }`).join(' ')} }
fragment S on __Schema { types { name kind fields { name type { name kind ofType { name kind } } } } }`;

interface Answer {
  status: number;
  bytes: number;
  ms: number;
}

async function main(): Promise<void> {
  const database = `event_service_refusal_bench_${randomBytes(4).toString('hex')}`;
  await adminQuery(`create database "${database}"`);
  const url = benchDatabaseUrl(database);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'event-service-refusal-bench-'));
  const server = spawn(process.execPath, [...(process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean), SERVER], {
    env: {
      ...process.env,
      DATABASE_URL: url,
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      RATE_LIMIT_PER_MINUTE: '10000000',
      GRAPHQL_INTROSPECTION: 'true',
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
    const { key } = benchTenant(url, 'GraphQL refusal bench', dataDir);
    const ca = readFileSync(path.join(dataDir, 'tls', 'localhost.crt'));
    const senders = new https.Agent({ ca, keepAlive: true, maxSockets: CLIENTS });
    const prober = new https.Agent({ ca, keepAlive: true, maxSockets: 1 });
    const send = (agent: https.Agent, method: string, route: string, body?: unknown) =>
      new Promise<Answer>((resolve, reject) => {
        const started = process.hrtime.bigint();
        const payload = body === undefined ? undefined : JSON.stringify(body);
        const headers: Record<string, string> = { authorization: `Bearer ${key}` };
        if (payload !== undefined) headers['content-type'] = 'application/json';
        const req = https.request({ host: 'localhost', port, path: route, method, agent, headers }, (res) => {
          let bytes = 0;
          res.on('data', (chunk: Buffer) => (bytes += chunk.length));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, ms: Number(process.hrtime.bigint() - started) / 1e6 }));
        });
        req.on('error', reject);
        req.end(payload);
      });

    const probe = async (until: () => boolean): Promise<number[]> => {
      const times: number[] = [];
      while (!until()) {
        times.push((await send(prober, 'GET', '/healthz')).ms);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return times.sort((a, b) => a - b);
    };
    const summary = (times: number[]) =>
      `p50 ${percentile(times, 50).toFixed(1)}  p90 ${percentile(times, 90).toFixed(1)}  max ${times.at(-1)?.toFixed(1)} ms (${times.length} probes)`;
    const line = (label: string, value: string) => process.stdout.write(`${label.padEnd(52)} ${value}\n`);

    // Warm-up: the first requests compile and fill caches.
    for (let index = 0; index < 20; index += 1) await send(prober, 'GET', '/healthz');
    await send(senders, 'POST', '/graphql', { query: overCostDocument('w') });

    const quietEnd = Date.now() + 3000;
    line('GET /healthz alone', summary(await probe(() => Date.now() > quietEnd)));

    // The server's own CPU time over the load (Linux /proc, in clock ticks of 10 ms): what each refusal
    // costs the process, whatever else the machine runs.
    const cpuTicks = () => {
      const fields = readFileSync(`/proc/${server.pid}/stat`, 'utf8').split(') ')[1].split(' ');
      return Number(fields[11]) + Number(fields[12]);
    };
    const ticksBefore = cpuTicks();
    const loadEnd = Date.now() + SECONDS * 1000;
    const refusals: number[] = [];
    const statuses = new Map<number, number>();
    const load = Array.from({ length: CLIENTS }, async () => {
      while (Date.now() < loadEnd) {
        const answer = await send(senders, 'POST', '/graphql', { query: overCostDocument(`a${randomBytes(4).toString('hex')}_`) });
        refusals.push(answer.ms);
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      }
    });
    const probes = await probe(() => Date.now() > loadEnd);
    await Promise.all(load);
    const cpuMs = (cpuTicks() - ticksBefore) * 10;
    refusals.sort((a, b) => a - b);
    line(`GET /healthz while ${CLIENTS} clients send over-cost documents`, summary(probes));
    line('each over-cost document (27 kB, 650 aliased lists)', `p50 ${percentile(refusals, 50).toFixed(1)}  p90 ${percentile(refusals, 90).toFixed(1)} ms; ${(refusals.length / SECONDS).toFixed(0)}/s; statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
    line('server CPU per over-cost document (TLS and logs included)', `${(cpuMs / refusals.length).toFixed(1)} ms`);

    const attack = await send(senders, 'POST', '/graphql', { query: INTROSPECTION_ATTACK });
    line('1,380 aliases of __schema through one fragment', `status ${attack.status}, ${attack.ms.toFixed(0)} ms, ${attack.bytes} bytes`);
    senders.destroy();
    prober.destroy();
  } finally {
    server.kill('SIGTERM');
    await new Promise((resolve) => server.once('exit', resolve));
    await adminQuery(`drop database if exists "${database}" with (force)`);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`graphql refusal bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
