#!/usr/bin/env node
// `node scripts/measure-memory.js` (after `npm run build`): the server's resident memory in the
// zero-configuration start (embedded PostgreSQL, first start on an empty DATA_DIR, then a second start
// on the same data) and on PostgreSQL, after start and under load (REST and GraphQL, 16 clients).
// Targets for the embedded start: ≤ 350 MB after start, ≤ 450 MB under load; exit 1 when missed.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { admin, client, startServer, temporaryDirectory, throwAwayDatabase } = require('./lib/measure');

const REQUESTS = Number(process.env.MEASURE_REQUESTS ?? 3000);
const CONCURRENCY = 16;
const TARGETS = { afterStartMb: 350, underLoadMb: 450 };

/** Loads 100 events, then REQUESTS requests (list of 100, one event, GraphQL page with ticket types), sampling RSS. */
async function underLoad(server, ca, key) {
  const http = client(server.port, ca, key, CONCURRENCY);
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, server.memory().rssMb)), 50);
  try {
    const prefix = `m${Date.now().toString(36)}`;
    for (let i = 0; i < 100; i += 1) {
      const { status, body } = await http.request('POST', '/v1/events', {
        title: `Memory test event ${i}`,
        slug: `${prefix}-${i}`,
        description: 'x'.repeat(200),
        startDate: '2030-01-01T18:00:00Z',
        endDate: '2030-01-01T22:00:00Z',
        venue: 'Hall',
        capacity: 500,
        ticketTypes: [{ name: 'Standard', price: 10, currency: 'EUR', quantity: 100 }],
      });
      if (status !== 201) throw new Error(`create: ${status} ${body}`);
    }
    const routes = [
      () => http.request('GET', '/v1/events?limit=100'),
      () => http.request('GET', `/v1/events/${prefix}-${Math.floor(Math.random() * 100)}`),
      () => http.request('POST', '/graphql', { query: '{ events(limit: 20) { total events { slug title ticketTypes { name price } } } }' }),
    ];
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < REQUESTS) {
          const route = routes[next % routes.length];
          next += 1;
          const { status, body } = await route();
          if (status !== 200) throw new Error(`HTTP ${status}: ${body.slice(0, 200)}`);
        }
      }),
    );
  } finally {
    clearInterval(sampler);
    http.close();
  }
  return { peakMb: Math.max(peak, server.memory().rssMb), afterMb: server.memory().rssMb };
}

async function settle(server) {
  await new Promise((resolve) => setTimeout(resolve, 2000));
  return server.memory().rssMb;
}

async function main() {
  const rows = [];
  const dataDir = temporaryDirectory('memory');
  try {
    let key;
    for (const mode of ['embedded, first start (empty DATA_DIR)', 'embedded, later start (existing data)']) {
      const server = await startServer({ DATA_DIR: dataDir });
      try {
        key ??= server.key;
        const ca = fs.readFileSync(path.join(dataDir, 'tls', 'localhost.crt'));
        const afterStart = await settle(server);
        rows.push({ mode, afterStart, ...(await underLoad(server, ca, key)), embedded: true });
      } finally {
        await server.stop();
      }
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }

  const database = await throwAwayDatabase('memory');
  if (database) {
    const pgDir = temporaryDirectory('memory-pg');
    try {
      const organization = admin(['org', 'create', '--name', 'Memory'], { DATABASE_URL: database.url });
      const { key } = admin(['key', 'create', '--org', organization.id, '--name', 'm', '--permissions', 'events:read,events:write'], {
        DATABASE_URL: database.url,
      });
      const server = await startServer({ DATABASE_URL: database.url, DATA_DIR: pgDir });
      try {
        const ca = fs.readFileSync(path.join(pgDir, 'tls', 'localhost.crt'));
        const afterStart = await settle(server);
        rows.push({ mode: 'PostgreSQL (DATABASE_URL)', afterStart, ...(await underLoad(server, ca, key)), embedded: false });
      } finally {
        await server.stop();
      }
    } finally {
      fs.rmSync(pgDir, { recursive: true, force: true });
      await database.drop();
    }
  }

  const mb = (value) => `${Math.round(value)} MB`;
  console.log(`| Mode | RSS after start | Peak RSS under load (${REQUESTS} requests, ${CONCURRENCY} clients) | RSS after load |`);
  console.log('|---|---|---|---|');
  for (const row of rows) console.log(`| ${row.mode} | ${mb(row.afterStart)} | ${mb(row.peakMb)} | ${mb(row.afterMb)} |`);
  const missed = rows.filter((row) => row.embedded && (row.afterStart > TARGETS.afterStartMb || row.peakMb > TARGETS.underLoadMb));
  for (const row of missed) console.log(`MISSED: ${row.mode} (targets ${TARGETS.afterStartMb} MB after start, ${TARGETS.underLoadMb} MB under load)`);
  process.exitCode = missed.length > 0 ? 1 : 0;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
