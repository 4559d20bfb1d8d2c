import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import { Client } from 'pg';
import { openDatabase } from '../src/schema/database';
import { createPublishedEvent, ticket, type CreatedEvent } from './helpers/bookings';
import { createTestDatabase, describeOnPostgres, type TestDatabase } from './helpers/database';
import { createTenant } from './helpers/factories';
import { HttpsClient } from './helpers/https-client';
import { spawnServer, type ServerProcess } from './helpers/spawned-server';

// D23: GET /v1/events/{slug}/attendees.csv streams 100,000 confirmed bookings from a real server
// process without its memory growing by more than 50 MB (VmRSS of the process, sampled while the
// file is read), the file whole and exact: row count, ids once each, a few rows' content, formula
// cells neutralized and quoted cells quoted. Then a client that stops reading for a while gets it whole
// too. (That the door reads no further batch until the socket drains is shown in bookings-rest.cases.ts:
// on localhost the TCP buffers alone can hold most of these 10 MB.)
jest.setTimeout(240_000);

const ROWS = 100_000;
const MEMORY_BOUND_BYTES = 50 * 1024 * 1024;
const HEADER = 'id,attendeeName,attendeeEmail,ticketType,quantity,status,createdAt,checkedInAt';

/** The resident memory of a process, in bytes (Linux: /proc/<pid>/status). */
function residentBytes(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmRSS for process ${pid}`);
  return Number(match[1]) * 1024;
}

describeOnPostgres('a spawned server on the test PostgreSQL')('attendees.csv of 100,000 bookings, from a server process', () => {
  let database: TestDatabase;
  let orm: MikroORM;
  let key: string;
  let organizationId: string;
  let server: ServerProcess;
  let client: HttpsClient;
  let dataDir: string;
  let event: CreatedEvent;

  beforeAll(async () => {
    database = await createTestDatabase();
    orm = await openDatabase({ clientUrl: database.url });
    ({ key, organization: { id: organizationId } } = await createTenant(orm));
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'event-service-csv-'));
    server = await spawnServer({ DATABASE_URL: database.url, DATA_DIR: dataDir, SECRET_KEY: randomBytes(32).toString('base64') });
    client = new HttpsClient(server.url, server.ca);
    event = await createPublishedEvent(client, key, { ticketTypes: [ticket({ name: 'General', quantity: 1_000_000 })] });
    // 100,000 confirmed bookings one millisecond apart, a few held and cancelled ones among them
    // (left out), every 1,000th named like a formula, every 500th with a comma and a quote, half of a
    // ticket type, every 10th checked in.
    // On a connection of its own, without the service's statement timeout (a busy machine may need more than 5 s).
    const sql = new Client({ connectionString: database.url });
    await sql.connect();
    await sql.query(
      `insert into bookings (id, organization_id, event_id, ticket_type_id, quantity, attendee_email, attendee_name, status, created_at, checked_in_at, expires_at)
       select 'bk_csv' || lpad(g::text, 7, '0'), $1, $2, case when g % 2 = 0 then $3 end, 1 + g % 3,
              'attendee' || g || '@example.com',
              case when g % 1000 = 0 then '=HYPERLINK("http://x/' || g || '")' when g % 500 = 0 then 'Doe, "J" ' || g else 'Attendee ' || g end,
              'CONFIRMED', timestamptz '2026-06-01 00:00:00+00' + g * interval '1 millisecond',
              case when g % 10 = 0 then timestamptz '2026-07-01 00:00:00+00' + g * interval '1 second' end, null
       from generate_series(1, $4::int) g
       union all
       select 'bk_csvx' || lpad(g::text, 6, '0'), $1, $2, null, 1, 'x@example.com', 'Left out', case when g % 2 = 0 then 'HELD' else 'CANCELLED' end,
              timestamptz '2026-06-01 00:00:00+00' + g * interval '7 millisecond', null, case when g % 2 = 0 then now() + interval '1 hour' end
       from generate_series(1, 50) g`,
      [organizationId, event.id, event.ticketTypes[0].id, ROWS],
    );
    await sql.query('analyze bookings');
    await sql.end();
  });
  afterAll(async () => {
    client?.close();
    if (server) {
      server.child.kill('SIGTERM');
      await server.exit;
    }
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    await orm?.close(true);
    await database?.drop();
  });

  /** Downloads the file; `sample` runs for every chunk received; `pauseMs`: stop reading after the first chunk that long. */
  function download(options: { sample?: () => void; pauseMs?: number } = {}): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
    return new Promise((resolve, reject) => {
      const request = https.get(
        new URL(`/v1/events/${event.slug}/attendees.csv`, server.url),
        { ca: server.ca, headers: { authorization: `Bearer ${key}` } },
        (response) => {
          const chunks: Buffer[] = [];
          let paused = false;
          response.on('data', (chunk: Buffer) => {
            chunks.push(chunk);
            options.sample?.();
            if (options.pauseMs && !paused) {
              paused = true;
              response.pause();
              setTimeout(() => response.resume(), options.pauseMs);
            }
          });
          response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') }));
          response.on('error', reject);
        },
      );
      request.on('error', reject);
    });
  }

  function checkFile(text: string): void {
    const lines = text.split('\r\n');
    expect(lines.pop()).toBe('');
    expect(lines[0]).toBe(HEADER);
    expect(lines).toHaveLength(ROWS + 1);
    // Oldest first: row n is bk_csv<n>.
    expect(lines[1]).toBe(`bk_csv0000001,Attendee 1,attendee1@example.com,,2,CONFIRMED,2026-06-01T00:00:00.001Z,`);
    expect(lines[2]).toBe(`bk_csv0000002,Attendee 2,attendee2@example.com,General,3,CONFIRMED,2026-06-01T00:00:00.002Z,`);
    expect(lines[10]).toBe(`bk_csv0000010,Attendee 10,attendee10@example.com,General,2,CONFIRMED,2026-06-01T00:00:00.010Z,2026-07-01T00:00:10.000Z`);
    expect(lines[500]).toBe(`bk_csv0000500,"Doe, ""J"" 500",attendee500@example.com,General,3,CONFIRMED,2026-06-01T00:00:00.500Z,2026-07-01T00:08:20.000Z`);
    expect(lines[1000]).toBe(`bk_csv0001000,"'=HYPERLINK(""http://x/1000"")",attendee1000@example.com,General,2,CONFIRMED,2026-06-01T00:00:01.000Z,2026-07-01T00:16:40.000Z`);
    expect(lines[ROWS]).toBe(`bk_csv0100000,"'=HYPERLINK(""http://x/100000"")",attendee100000@example.com,General,2,CONFIRMED,2026-06-01T00:01:40.000Z,2026-07-02T03:46:40.000Z`);
    const ids = lines.slice(1).map((line) => line.slice(0, line.indexOf(',')));
    expect(new Set(ids).size).toBe(ROWS);
    expect(ids.every((id) => id.startsWith('bk_csv0'))).toBe(true);
  }

  test('100,000 rows, exact, with the server process growing by less than 50 MB', async () => {
    const pid = server.child.pid!;
    // Warm up the route and the read statements on a small event, then let the process settle.
    const small = await createPublishedEvent(client, key, { capacity: 10 });
    expect((await client.request('GET', `/v1/events/${small.slug}/attendees.csv`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const before = residentBytes(pid);
    let peak = before;
    let samples = 0;
    const sample = () => {
      samples += 1;
      if (samples % 4 === 0) peak = Math.max(peak, residentBytes(pid));
    };
    const timer = setInterval(() => (peak = Math.max(peak, residentBytes(pid))), 25);
    let file: Awaited<ReturnType<typeof download>>;
    try {
      file = await download({ sample });
    } finally {
      clearInterval(timer);
    }
    peak = Math.max(peak, residentBytes(pid));
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(file.headers['content-disposition']).toBe(`attachment; filename="${event.slug}-attendees.csv"`);
    checkFile(file.text);
    const growth = peak - before;
    process.stdout.write(`attendees.csv: ${ROWS} rows, ${file.text.length} bytes; server RSS ${(before / 1048576).toFixed(1)} MB before, peak ${(peak / 1048576).toFixed(1)} MB (+${(growth / 1048576).toFixed(1)} MB)\n`);
    expect(growth).toBeLessThan(MEMORY_BOUND_BYTES);
  });

  test('a client that stops reading for 3 s: the file still arrives whole, the server memory still bounded', async () => {
    const pid = server.child.pid!;
    const before = residentBytes(pid);
    let peak = before;
    const timer = setInterval(() => (peak = Math.max(peak, residentBytes(pid))), 50);
    let file: Awaited<ReturnType<typeof download>>;
    try {
      file = await download({ pauseMs: 3_000 });
    } finally {
      clearInterval(timer);
    }
    expect(file.status).toBe(200);
    checkFile(file.text);
    expect(peak - before).toBeLessThan(MEMORY_BOUND_BYTES);
  });
});
