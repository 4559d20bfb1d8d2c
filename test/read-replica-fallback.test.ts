import 'reflect-metadata';
import type { MikroORM } from '@mikro-orm/postgresql';
import pino from 'pino';
import postgres from 'postgres';
import { DEFAULT_DATABASE_TIMEOUTS } from '../src/foundation/config';
import { OrganizationEntity } from '../src/modules/organization/organization.entity';
import { preparedStatements } from '../src/platform/db/prepared-statements';
import { openStatementPool, type StatementPool } from '../src/platform/db/statement-pool';
import { ReadReplica } from '../src/platform/db/replica/read-replica';
import { ReplicaState } from '../src/platform/db/replica/replica-state';
import { WriteMarks } from '../src/platform/db/replica/write-marks';
import { openDatabase, openReplicaDatabase } from '../src/schema/database';
import { createTestDatabase, describeOnPostgres, type TestDatabase } from './helpers/database';
import { createOrganization } from './helpers/factories';

// D25: a statement that fails on the replica (it stopped between two samples of its state, a conflict
// with recovery cancelled it) runs again on the primary: the request still answers, never a 5xx of the
// replica's making. Here the replica is a database that refuses every connection (nothing listens on
// port 1) while the instance still believes it up and caught up: every read, the ORM's and the hot
// reads', is answered by the primary and counted as a replica-error fallback.
const DEAD = 'postgresql://postgres@127.0.0.1:1/nothing';

/** A replica state pinned "up and caught up" (its probes never run): what an instance believes between two samples. */
class PinnedUp extends ReplicaState {
  override up = true;
  override replayed = Infinity;
  override sample(): Promise<void> {
    return Promise.resolve();
  }
  override tick(): Promise<void> {
    return Promise.resolve();
  }
}

let database: TestDatabase;
let primary: MikroORM;
let replicaOrm: MikroORM;
let replicaPool: StatementPool;
let readReplica: ReadReplica;
const probes = [postgres(DEAD), postgres(DEAD)];

beforeAll(async () => {
  database = await createTestDatabase();
  primary = await openDatabase({ clientUrl: database.url });
  const timeouts = { ...DEFAULT_DATABASE_TIMEOUTS, connectMs: 1_000 };
  replicaOrm = await openReplicaDatabase({ clientUrl: DEAD, timeouts });
  replicaPool = openStatementPool(replicaOrm, { max: 1, timeouts, name: 'replica reads' });
  readReplica = new ReadReplica(
    new PinnedUp(probes[0], probes[1]),
    new WriteMarks(undefined, 'fallback-test', pino({ level: 'silent' })),
    250,
    { orm: replicaOrm, pool: replicaPool },
    { orm: primary, reads: preparedStatements(primary.em), position: () => Promise.resolve(1) },
    pino({ level: 'silent' }),
  );
});
afterAll(async () => {
  readReplica?.stop();
  await replicaPool?.close();
  await Promise.all(probes.map((probe) => probe.end({ timeout: 1 })));
  await replicaOrm?.close(true);
  await primary?.close(true);
  await database?.drop();
});

async function replicaErrors(): Promise<number> {
  const fallbacks = readReplica.metrics.find((metric) => (metric as { name?: string }).name === 'read_replica_fallbacks_total');
  const values = await (fallbacks as unknown as { get(): Promise<{ values: Array<{ labels: { reason?: string }; value: number }> }> }).get();
  return values.values.find((value) => value.labels.reason === 'replica-error')?.value ?? 0;
}

describeOnPostgres('the fallback runs on the primary PostgreSQL')('a read that fails on the replica runs on the primary (D25)', () => {
  test('ORM reads and hot reads both answer from the primary, counted as replica-error', async () => {
    const organization = await createOrganization(primary, { name: 'Read on the primary' });
    const source = await readReplica.choose(organization.id);
    expect(source?.orm).toBe(replicaOrm);

    const found = await source!.orm.em.fork().findOne(OrganizationEntity, { id: organization.id });
    expect(found?.name).toBe('Read on the primary');
    expect(await replicaErrors()).toBe(1);

    const rows = await source!.reads.query<{ name: string }>('select name from organizations where id = $1', [organization.id]);
    expect(rows).toEqual([{ name: 'Read on the primary' }]);
    expect(await replicaErrors()).toBe(2);
  });
});
