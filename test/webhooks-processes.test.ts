import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import { openDatabase } from '../src/schema/database';
import { createTestDatabase, describeOnPostgres, type TestDatabase } from './helpers/database';
import { createTenant, eventInput } from './helpers/factories';
import { HttpsClient } from './helpers/https-client';
import { spawnServer, type ServerProcess } from './helpers/spawned-server';
import { CREATE_ENDPOINT, MESSAGES, verify, WEBHOOK_TEST_ENV, WebhookReceiver } from './helpers/webhook-receiver';

jest.setTimeout(120_000);

const SECRET_KEY = 'processes-test-webhook-key-0123456789';
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
  await Promise.all(running.map(({ server }) => stop(server, 'SIGTERM')));
  for (const { client, dataDir } of running) {
    client.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  await receiver.close();
  await orm.close(true);
  await database.drop();
});

async function start(env: Record<string, string> = {}) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'event-service-webhooks-'));
  const server = await spawnServer({ ...WEBHOOK_TEST_ENV, DATABASE_URL: database.url, DATA_DIR: dataDir, WEBHOOK_SECRET_KEY: SECRET_KEY, ...env });
  const client = new HttpsClient(server.url, server.ca);
  running.push({ server, client, dataDir });
  return { server, client };
}

async function stop(server: ServerProcess, signal: NodeJS.Signals): Promise<void> {
  if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill(signal);
  await server.exit;
}

describeOnPostgres('several server processes on one database')('webhooks across processes', () => {
  test('killed between commit and delivery, nothing is lost: the next process delivers every message', async () => {
    const { key } = await createTenant(orm);
    // This process serves but does not deliver: every commit is left in the outbox when it dies.
    const first = await start({ WEBHOOK_WORKER: 'false' });
    const { secret } = (await first.client.graphql(key, CREATE_ENDPOINT, { input: { url: `${receiver.url}?t=kill` } })).body.data
      .createWebhookEndpoint;
    const slugs: string[] = [];
    for (let index = 0; index < 5; index += 1) {
      const created = await first.client.rest('POST', '/v1/events', key, eventInput());
      expect(created.status).toBe(201);
      slugs.push(created.body.slug);
    }
    await stop(first.server, 'SIGKILL');
    expect(receiver.received.filter((message) => message.path.endsWith('t=kill'))).toHaveLength(0);

    await start();
    const received = await receiver.waitFor((all) => all.filter((message) => message.path.endsWith('t=kill')).length >= 5);
    const mine = received.filter((message) => message.path.endsWith('t=kill'));
    expect(mine.map((message) => message.json.data.slug).sort()).toEqual([...slugs].sort());
    for (const message of mine) expect(verify(secret, message)).toEqual(message.json);
  });

  test('killed during an attempt, the message is retried by another process with the same webhook-id once the lease ends', async () => {
    const { key } = await createTenant(orm);
    // The dying process must be the only worker. A short lease (1.5 s): the test need not wait 30 s.
    await Promise.all(running.map(({ server }) => stop(server, 'SIGTERM')));
    const dying = await start({ WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_LEASE_MS: '1500' });
    const { endpoint } = (await dying.client.graphql(key, CREATE_ENDPOINT, { input: { url: `${receiver.url}?t=lease` } })).body.data
      .createWebhookEndpoint;
    receiver.behaviour = (message) => (message.path.endsWith('t=lease') && receiver.received.filter((m) => m.path.endsWith('t=lease')).length === 1 ? 'hang' : 200);
    await dying.client.rest('POST', '/v1/events', key, eventInput());
    const inFlight = (await receiver.waitFor((all) => all.some((message) => message.path.endsWith('t=lease')))).find((message) =>
      message.path.endsWith('t=lease'),
    )!;
    await stop(dying.server, 'SIGKILL');

    // The default 10 s timeout: this process is one of the two in the next test (a start costs seconds of CPU).
    const next = await start({ WEBHOOK_TIMEOUT_MS: '10000' });
    const received = await receiver.waitFor((all) => all.filter((message) => message.path.endsWith('t=lease')).length === 2);
    const attempts = received.filter((message) => message.path.endsWith('t=lease'));
    expect(attempts[1].id).toBe(attempts[0].id);
    expect(attempts[0].id).toBe(inFlight.id);
    const list = (await next.client.graphql(key, MESSAGES, { endpointId: endpoint.id })).body.data.webhookMessages;
    expect(list.messages[0].status).toBe('SUCCEEDED');
    expect(list.messages[0].attempts).toEqual([
      expect.objectContaining({ attemptNumber: 1, statusCode: null, error: expect.stringMatching(/^interrupted/) }),
      expect.objectContaining({ attemptNumber: 2, statusCode: 200 }),
    ]);
    receiver.behaviour = 200;
  });

  test('two processes on one database deliver every message, and no attempt is sent twice', async () => {
    const { key } = await createTenant(orm);
    // The default 10 s timeout: a receiver slowed by this busy test process must not cause retries.
    // The process the previous test started, and one more: two processes, each delivering.
    const alive = running.filter(({ server }) => server.child.exitCode === null && server.child.signalCode === null);
    expect(alive).toHaveLength(1);
    const servers = [alive[0], await start({ WEBHOOK_TIMEOUT_MS: '10000' })];
    const { secret, endpoint } = (await servers[0].client.graphql(key, CREATE_ENDPOINT, { input: { url: `${receiver.url}?t=two` } })).body.data
      .createWebhookEndpoint;
    const count = 60;
    const slugs = await Promise.all(
      Array.from({ length: count }, async (_, index) => {
        const created = await servers[index % 2].client.rest('POST', '/v1/events', key, eventInput());
        expect(created.status).toBe(201);
        return created.body.slug as string;
      }),
    );
    const all = await receiver.waitFor((received) => new Set(received.filter((m) => m.path.endsWith('t=two')).map((m) => m.id)).size === count);
    // Settle: a duplicate would arrive right behind the first copy.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const mine = all.filter((message) => message.path.endsWith('t=two'));
    expect(mine).toHaveLength(count);
    expect(new Set(mine.map((message) => message.json.data.slug))).toEqual(new Set(slugs));
    for (const message of mine.slice(0, 5)) expect(verify(secret, message)).toEqual(message.json);
    const [row] = await orm.em.fork().execute(
      `select count(*)::int as attempts, count(distinct d.id)::int as deliveries, max(d.attempt_count)::int as most
       from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id where d.endpoint_id = ?`,
      [endpoint.id],
    );
    // A message attempted twice shows its attempts here: why the first one was not the last.
    const retried = await orm.em.fork().execute(
      `select a.attempt_number, a.status_code, a.error from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id
       where d.endpoint_id = ? and d.attempt_count > 1 order by a.delivery_id, a.attempt_number`,
      [endpoint.id],
    );
    expect({ ...row, retried }).toEqual({ attempts: count, deliveries: count, most: 1, retried: [] });
  });
});
