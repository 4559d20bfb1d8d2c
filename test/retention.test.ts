import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import { Client } from 'pg';
import { ConfigError, DEFAULT_RETENTION, loadConfig } from '../src/foundation/config';
import { openDatabase } from '../src/schema/database';
import { replaceInvitation } from '../src/modules/member/credentials.repository';
import { RETENTION_LOCK } from '../src/platform/retention/retention-job';
import { createTestDatabase, describeOnPostgres, type TestDatabase } from './helpers/database';
import { createMemberWithPassword, sessionGraphql, signIn } from './helpers/dashboard';
import { createTenant, eventInput } from './helpers/factories';
import { HttpsClient } from './helpers/https-client';
import { createWithKey } from './helpers/idempotency';
import { spawnServer, type ServerProcess } from './helpers/spawned-server';
import { startTestApp, type TestApp } from './helpers/test-app';
import { CREATE_ENDPOINT, WEBHOOK_TEST_ENV, WebhookReceiver } from './helpers/webhook-receiver';

jest.setTimeout(120_000);

const HOUR = 3_600_000;

/** retention_rows_deleted_total of one table, read from a server's /metrics. */
async function deletedMetric(client: HttpsClient, table: string): Promise<number> {
  const text = (await client.request('GET', '/metrics')).text;
  const line = text.split('\n').find((row) => row.startsWith(`retention_rows_deleted_total{table="${table}"}`));
  return line === undefined ? 0 : Number(line.split(' ').pop());
}

async function runsMetric(client: HttpsClient, outcome: string): Promise<number> {
  const text = (await client.request('GET', '/metrics')).text;
  const line = text.split('\n').find((row) => row.startsWith(`retention_runs_total{outcome="${outcome}"}`));
  return line === undefined ? 0 : Number(line.split(' ').pop());
}

async function count(orm: MikroORM, table: string, where = 'true', bindings: unknown[] = []): Promise<number> {
  const [row] = await orm.em.fork().execute<Array<{ count: string }>>(`select count(*) from ${table} where ${where}`, bindings);
  return Number(row.count);
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('retention settings', () => {
  test('defaults, durations with a unit, and values refused at start', () => {
    expect(loadConfig({}).retention).toEqual(DEFAULT_RETENTION);
    expect(DEFAULT_RETENTION).toEqual({ intervalMs: 300_000, batchSize: 1000, webhookMessageMs: 30 * 86_400_000, usageDays: 400 });
    const retention = loadConfig({ WEBHOOK_MESSAGE_RETENTION: '12h', RETENTION_INTERVAL_MS: '60000', RETENTION_BATCH_SIZE: '200', USAGE_RETENTION_DAYS: '90' }).retention;
    expect(retention).toEqual({ intervalMs: 60_000, batchSize: 200, webhookMessageMs: 12 * HOUR, usageDays: 90 });
    expect(loadConfig({ WEBHOOK_MESSAGE_RETENTION: '2s' }).retention.webhookMessageMs).toBe(2000);
    for (const env of [
      { WEBHOOK_MESSAGE_RETENTION: '30' },
      { WEBHOOK_MESSAGE_RETENTION: '1.5d' },
      { WEBHOOK_MESSAGE_RETENTION: '500ms' },
      { USAGE_RETENTION_DAYS: '13' },
      { RETENTION_BATCH_SIZE: '0' },
      { RETENTION_INTERVAL_MS: '10' },
    ]) {
      expect(() => loadConfig(env)).toThrow(ConfigError);
    }
  });
});

describe('retention: rows past their time are deleted, rows inside it kept (one run of the job)', () => {
  let app: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await new WebhookReceiver().listen();
    // The job's own timer would run every 5 minutes: these tests run it themselves (runOnce).
    app = await startTestApp({ ...WEBHOOK_TEST_ENV, WEBHOOK_MESSAGE_RETENTION: '1h', USAGE_RETENTION_DAYS: '30', RETENTION_BATCH_SIZE: '2' });
  });
  afterAll(async () => {
    await app.close();
    await receiver.close();
  });

  const sql = (statement: string, bindings: unknown[] = []) => app.orm.em.fork().execute(statement, bindings);

  test('webhook messages: finished and older than the retention go with their deliveries and attempts; pending, redelivered, recent ones stay', async () => {
    const { key } = await createTenant(app.orm);
    receiver.behaviour = (message) => (message.path.endsWith('t=failing') ? 500 : 200);
    const ok = (await app.client.graphql(key, CREATE_ENDPOINT, { input: { url: `${receiver.url}?t=ok`, eventTypes: ['event.created'] } })).body.data.createWebhookEndpoint.endpoint;
    const failing = (await app.client.graphql(key, CREATE_ENDPOINT, { input: { url: `${receiver.url}?t=failing`, eventTypes: ['event.updated'] } }))
      .body.data.createWebhookEndpoint.endpoint;
    const gone = (await app.client.graphql(key, CREATE_ENDPOINT, { input: { url: `${receiver.url}?t=gone`, eventTypes: ['event.deleted'] } }))
      .body.data.createWebhookEndpoint.endpoint;

    // Five messages to the working endpoint, delivered (SUCCEEDED).
    const slugs: string[] = [];
    for (let index = 0; index < 5; index += 1) {
      const created = await app.client.rest('POST', '/v1/events', key, eventInput());
      expect(created.status).toBe(201);
      slugs.push(created.body.slug);
    }
    await receiver.waitFor((all) => all.filter((message) => message.path.endsWith('t=ok')).length >= 5);
    const messageOf = async (slug: string, type: string) =>
      (await sql(`select id from webhook_messages where type = ? and body like ?`, [type, `%"slug":"${slug}"%`]))[0].id as string;
    const [oldDone, oldDone2, oldDone3, redelivered, recent] = await Promise.all(slugs.map((slug) => messageOf(slug, 'event.created')));
    await until(async () => (await count(app.orm, 'webhook_deliveries', `status = 'PENDING' and endpoint_id = ?`, [ok.id])) === 0, 'delivered');

    // An update the failing endpoint refuses: with the test's short schedule its retries run out at
    // once, so the test puts it back to where the default schedule holds it: waiting for its next retry.
    expect((await app.client.rest('PUT', `/v1/events/${slugs[0]}`, key, { title: 'Renamed' })).status).toBe(200);
    const pending = await messageOf(slugs[0], 'event.updated');
    await until(async () => (await count(app.orm, 'webhook_deliveries', `message_id = ? and status = 'FAILED'`, [pending])) === 1, 'retries ran out');
    await sql(`update webhook_deliveries set status = 'PENDING', next_attempt_at = now() + interval '1 day' where message_id = ? and endpoint_id = ?`, [pending, failing.id]);

    // A message to an endpoint deleted since: no delivery left.
    expect((await app.client.rest('DELETE', `/v1/events/${slugs[4]}`, key)).status).toBe(204);
    const orphan = await messageOf(slugs[4], 'event.deleted');
    expect((await app.client.graphql(key, `mutation($id: ID!) { deleteWebhookEndpoint(id: $id) { id } }`, { id: gone.id })).body.errors).toBeUndefined();
    expect(await count(app.orm, 'webhook_deliveries', 'message_id = ?', [orphan])).toBe(0);

    // Two hours ago: every message but `recent` (and each of their attempts), except the redelivered one's last attempt.
    const backdate = [oldDone, oldDone2, oldDone3, redelivered, pending, orphan];
    await sql(`update webhook_messages set created_at = now() - interval '2 hours' where id = any(?::text[])`, [`{${backdate.join(',')}}`]);
    await sql(`update webhook_deliveries set created_at = now() - interval '2 hours', last_attempt_at = now() - interval '2 hours' where message_id = any(?::text[])`, [
      `{${backdate.join(',')}}`,
    ]);
    await sql(`update webhook_deliveries set last_attempt_at = now() - interval '5 minutes' where message_id = ?`, [redelivered]);
    const attemptsBefore = await count(app.orm, 'webhook_attempts');
    const attemptsOfOld = await count(
      app.orm,
      'webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id',
      'd.message_id = any(?::text[])',
      [`{${oldDone},${oldDone2},${oldDone3}}`],
    );
    const before = await deletedMetric(app.client, 'webhook_messages');

    expect(await app.service.retention.runOnce()).toBe('completed');

    const left = (await sql(`select id from webhook_messages where id = any(?::text[])`, [`{${[...backdate, recent].join(',')}}`])).map((row) => row.id);
    expect(left.sort()).toEqual([redelivered, pending, recent].sort());
    expect(await count(app.orm, 'webhook_deliveries', 'message_id = any(?::text[])', [`{${oldDone},${oldDone2},${oldDone3}}`])).toBe(0);
    expect(await count(app.orm, 'webhook_attempts')).toBe(attemptsBefore - attemptsOfOld);
    // Four messages in batches of two (RETENTION_BATCH_SIZE=2): every one counted once.
    expect((await deletedMetric(app.client, 'webhook_messages')) - before).toBe(4);
    // What stays is still there for the dashboard: the pending message with its attempts.
    expect(await count(app.orm, 'webhook_deliveries', `message_id = ? and status = 'PENDING'`, [pending])).toBe(1);
  });

  test('Idempotency-Key records: past their lifetime deleted, inside their 24 hours kept (D17)', async () => {
    const { key } = await createTenant(app.orm);
    const keys = Array.from({ length: 5 }, () => randomUUID());
    for (const idempotencyKey of keys) expect((await createWithKey(app.client, 'rest', key, idempotencyKey, eventInput())).status).toBe(201);
    const age = (idempotencyKey: string, hours: number) =>
      sql(`update idempotency_keys set created_at = now() - ? * interval '1 hour', expires_at = now() - ? * interval '1 hour' + interval '24 hours' where key = ?`, [
        hours,
        hours,
        idempotencyKey,
      ]);
    await age(keys[0], 25);
    await age(keys[1], 24.01);
    await age(keys[2], 30);
    await age(keys[3], 23.9);
    expect(await app.service.retention.runOnce()).toBe('completed');
    const left = (await sql(`select key from idempotency_keys where key = any(?::text[])`, [`{${keys.join(',')}}`])).map((row) => row.key);
    expect(left.sort()).toEqual([keys[3], keys[4]].sort());
    // A retry inside the 24 hours is still a replay.
    const replay = await createWithKey(app.client, 'rest', key, keys[3], {});
    expect([replay.status, replay.headers['idempotent-replayed']]).toEqual([422, undefined]);
  });

  test('dashboard sessions (ended by lifetime or idleness), expired invitations and old sign-in failures are deleted; live ones kept', async () => {
    const { organization } = await createTenant(app.orm);
    const admin = await createMemberWithPassword(app.orm, organization.id, 'admin');
    const sessions = [await signIn(app.client, admin.email), await signIn(app.client, admin.email), await signIn(app.client, admin.email)];
    const ids = (await sql(`select id_hash from dashboard_sessions where member_id = ? order by created_at`, [admin.id])).map((row) => row.id_hash as string);
    expect(ids).toHaveLength(3);
    await sql(`update dashboard_sessions set expires_at = now() - interval '1 second' where id_hash = ?`, [ids[0]]);
    await sql(`update dashboard_sessions set last_seen_at = now() - interval '31 minutes' where id_hash = ?`, [ids[1]]);

    const invited = await createMemberWithPassword(app.orm, organization.id, 'member');
    const other = await createMemberWithPassword(app.orm, organization.id, 'member');
    await replaceInvitation(app.orm.em.fork(), invited.id, randomBytes(32).toString('hex'), new Date(Date.now() - 1000));
    await replaceInvitation(app.orm.em.fork(), other.id, randomBytes(32).toString('hex'), new Date(Date.now() + 24 * HOUR));

    const email = `nobody-${randomBytes(3).toString('hex')}@example.com`;
    for (let index = 0; index < 3; index += 1) {
      const refused = await app.client.request('POST', '/dashboard/api/sign-in', { headers: { 'x-csrf-token': 'sign-in' }, json: { email, password: 'wrong' } });
      expect(refused.status).toBe(401);
    }
    await sql(`update sign_in_failures set at = now() - interval '16 minutes' where id = (select min(id) from sign_in_failures where email = ?)`, [email]);

    expect(await app.service.retention.runOnce()).toBe('completed');
    expect((await sql(`select id_hash from dashboard_sessions where member_id = ?`, [admin.id])).map((row) => row.id_hash)).toEqual([ids[2]]);
    expect(await count(app.orm, 'member_invitations', 'member_id = ?', [invited.id])).toBe(0);
    expect(await count(app.orm, 'member_invitations', 'member_id = ?', [other.id])).toBe(1);
    expect(await count(app.orm, 'sign_in_failures', 'email = ?', [email])).toBe(2);
    // The live session still works.
    const live = await sessionGraphql(app.client, sessions[2], '{ organization { id } }');
    expect(live.body.data?.organization.id).toBe(organization.id);
  });

  test('daily usage counters older than USAGE_RETENTION_DAYS are deleted, newer kept', async () => {
    const { organization, keyId } = await createTenant(app.orm);
    const days = [45, 31, 30, 29, 13, 0];
    for (const ago of days) {
      await sql(
        `insert into api_key_usage_daily (api_key_id, organization_id, day, requests) values (?, ?, (now() at time zone 'UTC')::date - ?::int, 7)`,
        [keyId, organization.id, ago],
      );
    }
    expect(await app.service.retention.runOnce()).toBe('completed');
    const left = await sql(`select ((now() at time zone 'UTC')::date - day) as ago from api_key_usage_daily where api_key_id = ? order by day`, [keyId]);
    expect(left.map((row) => Number(row.ago))).toEqual([30, 29, 13, 0]);
  });
});

describeOnPostgres('two server processes on one database')('retention across instances', () => {
  const SECRET_KEY = 'retention-test-webhook-key-0123456789';
  let database: TestDatabase;
  let orm: MikroORM;
  let receiver: WebhookReceiver;
  const servers: Array<{ server: ServerProcess; client: HttpsClient; dataDir: string }> = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    orm = await openDatabase({ clientUrl: database.url, pool: database.pool });
    receiver = await new WebhookReceiver().listen();
  });
  afterAll(async () => {
    await Promise.all(
      servers.map(async ({ server }) => {
        if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGTERM');
        await server.exit;
      }),
    );
    for (const { client, dataDir } of servers) {
      client.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
    await receiver.close();
    await orm.close(true);
    await database.drop();
  });

  async function start(): Promise<{ server: ServerProcess; client: HttpsClient }> {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'event-service-retention-'));
    const server = await spawnServer({
      ...WEBHOOK_TEST_ENV,
      DATABASE_URL: database.url,
      DATA_DIR: dataDir,
      WEBHOOK_SECRET_KEY: SECRET_KEY,
      RETENTION_INTERVAL_MS: '200',
      RETENTION_BATCH_SIZE: '50',
      WEBHOOK_MESSAGE_RETENTION: '2s',
    });
    const client = new HttpsClient(server.url, server.ca);
    servers.push({ server, client, dataDir });
    return { server, client };
  }

  test('one instance at a time: while the retention lock is held nobody deletes; then every batch is deleted once', async () => {
    const { organization } = await createTenant(orm);
    // 1,000 records whose lifetime has passed (what 24 hours of traffic leaves).
    await orm.em.fork().execute(
      `insert into idempotency_keys (organization_id, key, fingerprint, state, created_at, expires_at)
       select ?, 'expired-' || n, repeat('0', 64), 'DONE', now() - interval '25 hours', now() - interval '1 hour' from generate_series(1, 1000) n`,
      [organization.id],
    );
    // Another instance is deleting: the test holds the job's lock (the same advisory lock) in a transaction.
    const holder = new Client({ connectionString: database.url });
    holder.on('error', () => undefined);
    await holder.connect();
    let first: { client: HttpsClient };
    let second: { client: HttpsClient };
    try {
      await holder.query('begin');
      expect((await holder.query<{ locked: boolean }>(RETENTION_LOCK.text)).rows[0].locked).toBe(true);
      [first, second] = [await start(), await start()];
      await until(async () => (await runsMetric(first.client, 'skipped')) >= 2 && (await runsMetric(second.client, 'skipped')) >= 2, 'both skipped runs');
      expect(await count(orm, 'idempotency_keys', `organization_id = ?`, [organization.id])).toBe(1000);
      expect((await deletedMetric(first.client, 'idempotency_keys')) + (await deletedMetric(second.client, 'idempotency_keys'))).toBe(0);
      await holder.query('commit');
    } finally {
      await holder.end();
    }
    await until(async () => (await count(orm, 'idempotency_keys', `organization_id = ?`, [organization.id])) === 0, 'all deleted');
    // Twenty batches of 50 between two instances running every ~200 ms: each row deleted, and counted, once.
    const byFirst = await deletedMetric(first.client, 'idempotency_keys');
    const bySecond = await deletedMetric(second.client, 'idempotency_keys');
    expect(byFirst + bySecond).toBe(1000);
  });

  test('under steady load the webhook tables stop growing (WEBHOOK_MESSAGE_RETENTION=2s)', async () => {
    const [first, second] = servers.length >= 2 ? servers : [await start(), await start()];
    const { key } = await createTenant(orm);
    receiver.behaviour = 200;
    const created = await first.client.graphql(key, CREATE_ENDPOINT, { input: { url: `${receiver.url}?t=steady` } });
    expect(created.body.errors).toBeUndefined();

    const samples: Array<{ at: number; messages: number; deliveries: number; attempts: number }> = [];
    const started = Date.now();
    let sent = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const [messages, deliveries, attempts] = await Promise.all([
          count(orm, 'webhook_messages'),
          count(orm, 'webhook_deliveries'),
          count(orm, 'webhook_attempts'),
        ]);
        samples.push({ at: Date.now() - started, messages, deliveries, attempts });
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    })();
    // About 20 creates a second for 12 seconds, half through each instance.
    const clients = [first.client, second.client];
    await Promise.all(
      clients.map(async (client) => {
        while (Date.now() - started < 12_000) {
          const response = await client.rest('POST', '/v1/events', key, eventInput());
          expect(response.status).toBe(201);
          sent += 1;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }),
    );
    sampling = false;
    await sampler;

    const received = receiver.received.filter((message) => message.path.endsWith('t=steady')).length;
    expect(received).toBeGreaterThan(sent * 0.9);
    // From 5 s on the counts hold at about rate × (retention + interval): they stop growing, far below what was sent.
    const late = samples.filter((sample) => sample.at >= 5_000);
    const middle = late.filter((sample) => sample.at < 8_500);
    const end = late.filter((sample) => sample.at >= 8_500);
    expect(middle.length).toBeGreaterThan(2);
    expect(end.length).toBeGreaterThan(2);
    for (const table of ['messages', 'deliveries', 'attempts'] as const) {
      const plateau = Math.max(...middle.map((sample) => sample[table]));
      const last = Math.max(...end.map((sample) => sample[table]));
      expect({ table, last, bounded: last <= plateau * 1.25 + 5 }).toEqual({ table, last, bounded: true });
      expect(last).toBeLessThan(sent * 0.6);
    }
    expect((await deletedMetric(first.client, 'webhook_messages')) + (await deletedMetric(second.client, 'webhook_messages'))).toBeGreaterThan(sent * 0.3);
  });
});
