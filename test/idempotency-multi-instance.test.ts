import { randomBytes, randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { openDatabase } from '../src/schema/database';
import { createTestDatabase, describeOnPostgres, type TestDatabase } from './helpers/database';
import { storedEventCount } from './helpers/event-rows';
import { createTenant, eventInput } from './helpers/factories';
import { createdStatus, createWithKey, errorCodeOf } from './helpers/idempotency';
import { spawnServer, type ServerProcess } from './helpers/server-process';

// D17 across instances: two server processes on one database share the Idempotency-Key store.
jest.setTimeout(120_000);

describeOnPostgres('two server processes need a PostgreSQL server')('Idempotency-Key across two server processes', () => {
  let database: TestDatabase;
  let orm: MikroORM;
  let servers: ServerProcess[] = [];
  let key: string;
  let organizationId: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    orm = await openDatabase({ clientUrl: database.url });
    ({ key, organization: { id: organizationId } } = await createTenant(orm));
    // Instances share the server secret, as an operator sets it (stored answers are sealed with it, D24).
    const shared = { DATABASE_URL: database.url, SECRET_KEY: randomBytes(32).toString('base64') };
    servers = await Promise.all([spawnServer(shared), spawnServer(shared)]);
  }, 90_000);
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await orm?.close(true);
    await database?.drop();
  });

  test.each(['rest', 'graphql'] as const)('%s: a retry on the other instance replays; concurrent requests on both run once', async (door) => {
    const [first, second] = servers;
    const idempotencyKey = randomUUID();
    const input = eventInput();
    const created = await createWithKey(first.client, door, key, idempotencyKey, input);
    expect(created.status).toBe(createdStatus(door));
    const retried = await createWithKey(second.client, door, key, idempotencyKey, input);
    expect([retried.status, retried.text, retried.headers['idempotent-replayed']]).toEqual([created.status, created.text, 'true']);
    const reused = await createWithKey(second.client, door, key, idempotencyKey, eventInput());
    expect(errorCodeOf(reused)).toBe('IDEMPOTENCY_KEY_REUSED');

    const racing = randomUUID();
    const raced = eventInput();
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, index) => createWithKey(servers[index % 2].client, door, key, racing, raced)),
    );
    expect(await storedEventCount(orm, organizationId, { slug: raced.slug })).toBe(1);
    expect(responses.filter((response) => response.status === createdStatus(door) && !response.headers['idempotent-replayed'])).toHaveLength(1);
    expect(responses.filter((response) => response.status !== createdStatus(door)).map(errorCodeOf).filter((code) => code !== 'IDEMPOTENCY_KEY_IN_USE')).toEqual([]);
  });
});
