import pino from 'pino';
import { inUnitOfWork } from '../src/platform/db/unit-of-work';
import { systemScope } from '../src/platform/db/unit-of-work-scope';
import { FIRST_STATISTICS_LOCK, FirstStatistics } from '../src/platform/db/first-statistics';
import { useCommandDatabase } from './helpers/command-database';
import { describeOnPostgres } from './helpers/database';

jest.setTimeout(60_000);

// D25: a table's first statistics are taken as soon as it holds rows (src/platform/db/first-statistics.ts),
// because a plan made without them read an event by its slug through the primary key, walking every
// event of its organization.

const db = useCommandDatabase();

const execute = <T extends object>(sql: string, bindings: unknown[] = []): Promise<T[]> => db.orm.em.fork().execute<T[]>(sql, bindings);

/** The table as PostgreSQL sees it before anything analyzed it (a pooled test database may have been analyzed). */
async function forgetStatistics(table: string): Promise<void> {
  await execute(`update pg_class set reltuples = -1, relpages = 0 where oid = ?::regclass`, [table]);
  await execute(`delete from pg_statistic where starelid = ?::regclass`, [table]);
}

async function neverAnalyzed(table: string): Promise<boolean> {
  const [row] = await execute<{ reltuples: number }>(`select reltuples from pg_class where oid = ?::regclass`, [table]);
  return Number(row.reltuples) < 0;
}

/** The index the generic plan of an event read by slug (as event.read-repository.ts reads it) uses. */
async function slugLookupPlan(organizationId: string): Promise<string> {
  const connection = db.orm.em.fork().getConnection();
  return connection.transactional(async (trx) => {
    const run = (sql: string) => connection.execute<Array<Record<string, string>>>(sql, [], 'all', trx);
    await run(`set local plan_cache_mode = force_generic_plan`);
    await run(`prepare slug_lookup(text, text) as select e.id from events e where e.organization_id = $1 and e.slug = $2`);
    try {
      const rows = await run(`explain execute slug_lookup('${organizationId}', 'event-00050')`);
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    } finally {
      await run(`deallocate slug_lookup`);
    }
  });
}

async function until<T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describeOnPostgres('pg_class statistics and pg_statistic are PostgreSQL server features')('first statistics (D25)', () => {
  const organizationId = 'org_firststatistics0001';
  beforeAll(async () => {
    await execute(`insert into organizations (id, name, allowed_ips, created_at, updated_at) values (?, 'Statistics', '{}', now(), now())`, [organizationId]);
    await execute(
      `insert into events (id, organization_id, slug, title, start_date, end_date, timezone, created_at, updated_at)
       select 'evt_stat' || lpad(n::text, 6, '0'), ?, 'event-' || lpad(n::text, 5, '0'), 'Event ' || n,
              now() + interval '30 days', now() + interval '31 days', 'UTC', now(), now()
         from generate_series(1, 1000) n`,
      [organizationId],
    );
    await forgetStatistics('events');
  });

  test('a table that was never analyzed and holds rows is analyzed at the next look; the slug read then uses its unique index', async () => {
    expect(await neverAnalyzed('events')).toBe(true);
    const job = new FirstStatistics(db.orm.em, pino({ level: 'silent' }), { intervalMs: 60_000, commitsPerLook: 1_000_000, minRows: 100 });
    // The live row count reaches PostgreSQL's statistics within a second of the insert's commit.
    const analyzed = await until(async () => {
      const tables = await job.runOnce();
      return tables.includes('events') ? tables : undefined;
    }, 'events analyzed');
    expect(analyzed).toContain('events');
    expect(await neverAnalyzed('events')).toBe(false);
    expect(await slugLookupPlan(organizationId)).toContain('events_organization_id_slug_unique');
    // Analyzed once: the next look leaves it to autovacuum.
    expect(await job.runOnce()).not.toContain('events');
  });

  test('a table below the row threshold, or one another instance is analyzing, is left alone', async () => {
    await forgetStatistics('events');
    const small = new FirstStatistics(db.orm.em, pino({ level: 'silent' }), { intervalMs: 60_000, commitsPerLook: 1_000_000, minRows: 1_000_000 });
    expect(await small.runOnce()).toEqual([]);
    expect(await neverAnalyzed('events')).toBe(true);

    // Another instance holds the lock: this one analyzes nothing now.
    const job = new FirstStatistics(db.orm.em, pino({ level: 'silent' }), { intervalMs: 60_000, commitsPerLook: 1_000_000, minRows: 100 });
    const holder = db.orm.em.fork();
    await holder.transactional(async (tx) => {
      const [{ locked }] = await tx.execute<Array<{ locked: boolean }>>(`select pg_try_advisory_xact_lock(${FIRST_STATISTICS_LOCK}) as locked`);
      expect(locked).toBe(true);
      expect(await job.runOnce()).toEqual([]);
    });
    expect(await neverAnalyzed('events')).toBe(true);
    expect(await job.runOnce()).toContain('events');
  });
  test('the started job looks after enough commits of units of work, not on a timer', async () => {
    await forgetStatistics('events');
    const job = new FirstStatistics(db.orm.em, pino({ level: 'silent' }), { intervalMs: 0, commitsPerLook: 3, minRows: 100 });
    job.start();
    try {
      job.committed();
      job.committed();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await neverAnalyzed('events')).toBe(true);
      job.committed();
      await until(async () => ((await neverAnalyzed('events')) ? undefined : true), 'events analyzed after the third commit');
    } finally {
      await job.stop();
    }
    // Stopped: commits no longer start looks.
    await forgetStatistics('events');
    for (let commit = 0; commit < 6; commit += 1) job.committed();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await neverAnalyzed('events')).toBe(true);
  });
  test('each committed unit of work reports itself through its scope (what drives the job in a request)', async () => {
    let written = 0;
    const scoped = () => systemScope(db.orm.em.fork(), 'test', { written: () => (written += 1) });
    await inUnitOfWork(scoped(), (tx) => tx.execute('select 1'));
    await inUnitOfWork(scoped(), (tx) => tx.execute('select 1'), { singleStatement: true });
    expect(written).toBe(2);
    await expect(inUnitOfWork(scoped(), () => Promise.reject(new Error('rolled back')))).rejects.toThrow('rolled back');
    expect(written).toBe(2);
  });
});
