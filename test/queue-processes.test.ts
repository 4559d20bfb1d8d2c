import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import { openDatabase } from '../src/schema/database';
import { createTestDatabase, describeOnPostgres, type TestDatabase } from './helpers/database';
import { createTenant } from './helpers/factories';
import { HttpsClient } from './helpers/https-client';
import { createQueuedEvent, join, openSale } from './helpers/queue';
import { spawnServer, type ServerProcess } from './helpers/spawned-server';
import { CREATE_ENDPOINT, WEBHOOK_TEST_ENV, WebhookReceiver } from './helpers/webhook-receiver';

// D30 across processes: two server processes (node dist/server.js) admit from one queue; one is
// killed (SIGKILL) while admission runs. Admission goes on without a stall, in order, never twice
// (one admission per entry, and the rate of one queue, not of two).
jest.setTimeout(120_000);

const SECRET_KEY = 'queue-processes-test-key-0123456789';
let database: TestDatabase;
let orm: MikroORM;
let receiver: WebhookReceiver;
const running: Array<{ server: ServerProcess; client: HttpsClient; dataDir: string }> = [];

beforeAll(async () => {
  database = await createTestDatabase();
  orm = await openDatabase({ clientUrl: database.url, pool: database.pool });
  receiver = await new WebhookReceiver().listen();
});
afterAll(async () => {
  for (const { server } of running) if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGTERM');
  await Promise.all(running.map(({ server }) => server.exit));
  for (const { client, dataDir } of running) {
    client.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  await receiver.close();
  await orm.close(true);
  await database.drop();
});

async function start() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'event-service-queue-'));
  const server = await spawnServer({ ...WEBHOOK_TEST_ENV, DATABASE_URL: database.url, DATA_DIR: dataDir, SECRET_KEY, QUEUE_INTERVAL_MS: '100' });
  const client = new HttpsClient(server.url, server.ca);
  running.push({ server, client, dataDir });
  return { server, client };
}

const rows = (text: string, values: unknown[]) => orm.em.fork().getConnection().execute<any[]>(text, values);

describeOnPostgres('several server processes on one database')('the queue across processes', () => {
  test('two processes admit from one queue; one killed during admission: no stall, in order, once each, at one rate', async () => {
    const [first, second] = [await start(), await start()];
    const { key, organization } = await createTenant(orm);
    await first.client.graphql(key, CREATE_ENDPOINT, { input: { url: `${receiver.url}?org=${organization.id}`, eventTypes: ['queue.admitted'] } });
    // 300 a minute: one each 200 ms.
    const event = await createQueuedEvent(first.client, key, { admitPerMinute: 300 }, { capacity: null });
    const count = 30;
    const ids: string[] = [];
    for (let index = 0; index < count; index += 1) ids.push((await join([first, second][index % 2].client, key, event.slug, `p${index}`)).body.id);
    await openSale(second.client, key, event.slug);
    const admittedCount = async () => (await rows(`select count(*)::int as n from queue_entries where event_id = ? and admitted_at is not null`, [event.id]))[0].n as number;
    const end = Date.now() + 20_000;
    while ((await admittedCount()) < 8 && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 50));
    first.server.child.kill('SIGKILL');
    await first.server.exit;
    const killedAt = Date.now();
    const afterKill = await admittedCount();
    while ((await admittedCount()) < count && Date.now() < end + 20_000) await new Promise((resolve) => setTimeout(resolve, 100));

    const admitted = await rows(`select id, rank, admitted_at from queue_entries where event_id = ? order by rank`, [event.id]);
    expect(admitted.filter((row: { admitted_at: string | null }) => row.admitted_at !== null)).toHaveLength(count);
    // In position order: admission times never go back as ranks go up.
    const times = admitted.map((row: { admitted_at: string }) => new Date(row.admitted_at).getTime());
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    // No stall: the survivor went on within a second of the kill (a pass every 100 ms; the dead one's transaction rolled back).
    const next = times.find((time: number) => time > killedAt);
    expect(afterKill).toBeLessThan(count);
    expect(next! - killedAt).toBeLessThan(1_500);
    // One rate, not two: 30 admissions at 300 a minute take (30 − 1) × 200 ms = 5.8 s, less what the
    // survivor caught up of the dead one's last moments; two processes each at the rate would take half.
    expect(times[count - 1] - times[0]).toBeGreaterThanOrEqual(4_000);
    const inTwoSeconds = Math.max(...times.map((start: number) => times.filter((time: number) => time >= start && time <= start + 2_000).length));
    expect(inTwoSeconds).toBeLessThanOrEqual(15);
    const [{ head, waiting }] = await rows(`select head, waiting from event_queues where event_id = ?`, [event.id]);
    expect({ head, waiting }).toEqual({ head: count, waiting: 0 });
    // Every admission's queue.admitted arrives (at least once, D18), whichever process wrote it.
    const messages = await receiver.waitFor((received) => new Set(received.filter((message) => message.json.type === 'queue.admitted').map((message) => message.json.data.id)).size === count, 30_000);
    expect(new Set(messages.map((message) => message.json.data.id))).toEqual(new Set(ids));
  });
});
