import { LISTENER_APPLICATION_NAME } from '../src/platform/auth/auth-change-listener';
import { startAuthentication } from '../src/modules/api-key/authentication';
import { LastUsedRecorder } from '../src/platform/auth/last-used-recorder';
import { openDatabase } from '../src/schema/database';
import { createLogger } from '../src/foundation/logger';
import { ApiKeyEntity } from '../src/modules/api-key/api-key.entity';
import { within } from './helpers/admin-cli';
import { withAdminClient } from './helpers/database';
import { createApiKey, createOrganization } from './helpers/factories';
import { startTestApp, type TestApp } from './helpers/test-app';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

async function storedKey(id: string): Promise<ApiKeyEntity> {
  return app.orm.em.fork().findOneOrFail(ApiKeyEntity, { id });
}

// Changes legitimately only with D9 ("lastUsedAt is written at most once a minute").
test('contract guard: lastUsedAt is written once for a burst of requests, not once per request', async () => {
  const organization = await createOrganization(app.orm);
  const { id, key } = await createApiKey(app.orm, organization.id);
  expect((await storedKey(id)).lastUsedAt).toBeNull();
  app.sql.reset();
  const started = new Date();
  for (let index = 0; index < 5; index += 1) expect((await app.client.rest('GET', '/v1/events', key)).status).toBe(200);
  await app.client.graphql(key, '{ events { total } }');
  await app.service.authentication.lastUsed.flush();

  const updates = app.sql.statements.filter((sql) => /update api_keys set last_used_at/.test(sql));
  expect(updates).toHaveLength(1);
  const lastUsedAt = (await storedKey(id)).lastUsedAt;
  expect(lastUsedAt).not.toBeNull();
  expect(lastUsedAt!.getTime()).toBeGreaterThanOrEqual(started.getTime() - 1_000);
});

test('the guarded UPDATE leaves lastUsedAt alone when another instance wrote it within the minute', async () => {
  const organization = await createOrganization(app.orm);
  const { id } = await createApiKey(app.orm, organization.id);
  const logger = createLogger('silent');
  const first = new LastUsedRecorder(app.orm, logger);
  first.record(id);
  await first.flush();
  const written = (await storedKey(id)).lastUsedAt;
  expect(written).not.toBeNull();
  await new Promise((resolve) => setTimeout(resolve, 20));
  // A second recorder (another process) has no in-process memory of the write: the WHERE clause stops it.
  const second = new LastUsedRecorder(app.orm, logger);
  second.record(id);
  await second.flush();
  expect((await storedKey(id)).lastUsedAt).toEqual(written);
});

test('a key in the query string is refused, pointed at the header, and never logged', async () => {
  const organization = await createOrganization(app.orm);
  const { key } = await createApiKey(app.orm, organization.id);
  const paths = [`/v1/events?api_key=${key}`, `/v1/events?page=1&token=${key}`, `/graphql?query=%7Bevents%7Btotal%7D%7D&key=${key}`, `/v1/events?x=${key}`];
  for (const path of paths) {
    const response = await app.client.request('GET', path);
    expect(response.status).toBe(401);
    const error = response.body.error ?? response.body.errors[0].extensions;
    expect(error.code).toBe('UNAUTHORIZED');
  }
  const rest = await app.client.request('GET', `/v1/events?api_key=${key}`);
  expect(rest.body.error.message).toContain('Authorization header');
  // Even beside a valid header, the URL is logged without the key.
  expect((await app.client.request('GET', `/v1/events?page=1&apiKey=${key}`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);

  await new Promise((resolve) => setTimeout(resolve, 50));
  const logged = app.logs.join('\n');
  expect(logged).not.toContain(key);
  expect(logged).not.toContain(key.slice(8));
  expect(logged).toContain('api_key=[REDACTED]');
  expect(logged).toContain('/v1/events?page=1&apiKey=[REDACTED]');
});

async function terminateListener(): Promise<number> {
  const database = new URL(app.databaseUrl).pathname.slice(1);
  return withAdminClient(async (client) => {
    const result = await client.query(
      'select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1 and datname = $2',
      [LISTENER_APPLICATION_NAME, database],
    );
    return result.rowCount ?? 0;
  });
}

test('while the change listener is down, keys are re-read often enough that a revocation still lands within a second', async () => {
  const listener = app.service.authentication.listener!;
  expect(listener.isLive()).toBe(true);
  const organization = await createOrganization(app.orm);
  const { id, key } = await createApiKey(app.orm, organization.id);
  expect((await app.client.rest('GET', '/v1/events', key)).status).toBe(200);

  expect(await terminateListener()).toBe(1);
  expect(await within(1_000, async () => !listener.isLive())).toBeDefined();
  // Revoked behind the service's back, with no notification at all.
  await app.orm.em.fork().nativeUpdate(ApiKeyEntity, { id }, { revokedAt: new Date() });
  expect(await within(1_000, async () => (await app.client.rest('GET', '/v1/events', key)).status === 401)).toBeDefined();
  expect(app.logs.some((line) => line.includes('auth change listener lost its database connection'))).toBe(true);

  // It reconnects by itself, and notifications work again.
  expect(await within(10_000, async () => listener.isLive())).toBeDefined();
  const other = await createApiKey(app.orm, organization.id);
  expect((await app.client.rest('GET', '/v1/events', other.key)).status).toBe(200);
  await app.orm.em.fork().transactional(async (em) => {
    await em.nativeUpdate(ApiKeyEntity, { id: other.id }, { revokedAt: new Date() });
    await em.execute(`select pg_notify('event_service_auth_change', ?)`, [JSON.stringify({ apiKeyIds: [other.id] })]);
  });
  expect(await within(1_000, async () => (await app.client.rest('GET', '/v1/events', other.key)).status === 401)).toBeDefined();
});

test('on a single-connection database no listener is started and cached keys are re-read within a second', async () => {
  const orm = await openDatabase({ clientUrl: app.databaseUrl, pool: { min: 0, max: 1 } });
  const authentication = await startAuthentication(orm, createLogger('silent'));
  try {
    expect(authentication.listener).toBeUndefined();
    const organization = await createOrganization(app.orm);
    const { id, key } = await createApiKey(app.orm, organization.id);
    const header = `Bearer ${key}`;
    expect((await authentication.authenticator.authenticate(header)).apiKeyId).toBe(id);
    await app.orm.em.fork().nativeUpdate(ApiKeyEntity, { id }, { revokedAt: new Date() });
    const refused = async () => authentication.authenticator.authenticate(header).then(() => false, () => true);
    expect(await within(1_000, refused)).toBeDefined();
  } finally {
    await authentication.close();
    await orm.close(true);
  }
});
