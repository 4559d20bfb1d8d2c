import { randomUUID } from 'node:crypto';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { openDatabase } from '../src/schema/database';
import type { Actor } from '../src/platform/auth/actor';
import { IdempotencyKeyStore, type ClaimResult, type HeldKey } from '../src/platform/idempotency/idempotency-key.store';
import { createTestDatabase, describeOnPostgres, type TestDatabase } from './helpers/database';
import { createOrganization } from './helpers/factories';

// The key store's side of recovery points (issue 24): what a takeover keeps, what a release keeps, and
// the fence that stops a request which outlived its lease. The whole path, crash included, is in
// test/idempotency-crash.test.ts.
describeOnPostgres('the key store needs a PostgreSQL server')('Idempotency-Key recovery points in the store', () => {
  let database: TestDatabase;
  let orm: MikroORM;
  let store: IdempotencyKeyStore;
  let organizationId: string;
  const actor: Actor = { kind: 'api-key', apiKeyId: 'key_recovery', prefix: 'nk_test_abcd' };
  const sealer = { seal: (plain: string) => `sealed:${plain}`, open: (sealed: string) => sealed.slice('sealed:'.length) };

  beforeAll(async () => {
    database = await createTestDatabase();
    orm = await openDatabase({ clientUrl: database.url });
    store = new IdempotencyKeyStore(orm, 24, sealer);
    organizationId = (await createOrganization(orm)).id;
  });
  afterAll(async () => {
    await orm?.close(true);
    await database?.drop();
  });

  const held = (result: ClaimResult): HeldKey => {
    if (result.kind !== 'claimed') throw new Error(`expected the key to be claimed, got ${result.kind}`);
    return result.claim;
  };
  const record = (claim: HeldKey, result: { id: string }) =>
    orm.em.fork().transactional((tx: EntityManager) => claim.record(tx, claim.nextStep(), result, actor));
  const endLease = (key: string) => orm.em.fork().getConnection().execute(`update idempotency_keys set locked_until = now() - interval '1 second' where key = ?`, [key]);

  test('a takeover after the lease keeps what committed, for the same request only', async () => {
    const key = randomUUID();
    const first = held(await store.claim(organizationId, key, 'a'.repeat(64)));
    expect(first.recorded(0)).toBeUndefined();
    expect(await record(first, { id: 'bk_1' })).toBe(true);
    expect(await store.claim(organizationId, key, 'a'.repeat(64))).toEqual({ kind: 'in-use' });
    await endLease(key);
    expect(await store.claim(organizationId, key, 'b'.repeat(64))).toEqual({ kind: 'reused' });
    const retry = held(await store.claim(organizationId, key, 'a'.repeat(64)));
    expect([retry.recorded(0), retry.recorded(1)]).toEqual([{ id: 'bk_1' }, undefined]);
    const [row] = await orm.em.fork().getConnection().execute<Array<{ actor: unknown }>>('select actor from idempotency_keys where key = ?', [key]);
    expect(row.actor).toEqual(actor);
  });

  test('the request that lost its key to a takeover cannot record: its transaction must roll back', async () => {
    const key = randomUUID();
    const slow = held(await store.claim(organizationId, key, 'a'.repeat(64)));
    await endLease(key);
    const taker = held(await store.claim(organizationId, key, 'a'.repeat(64)));
    expect(await record(slow, { id: 'bk_slow' })).toBe(false);
    expect(await record(taker, { id: 'bk_taker' })).toBe(true);
  });

  test('a release after a committed unit keeps the record: the retry takes it over at once and recovers', async () => {
    const key = randomUUID();
    const first = held(await store.claim(organizationId, key, 'a'.repeat(64)));
    await record(first, { id: 'bk_2' });
    await store.release(first); // e.g. a later step of the same request failed with a 5xx
    const retry = held(await store.claim(organizationId, key, 'a'.repeat(64)));
    expect(retry.recorded(0)).toEqual({ id: 'bk_2' });

    const other = randomUUID();
    await store.release(held(await store.claim(organizationId, other, 'a'.repeat(64))));
    const fresh = held(await store.claim(organizationId, other, 'b'.repeat(64))); // nothing committed: gone
    expect(fresh.recorded(0)).toBeUndefined();
  });
});
