import { TransactionContext, type EntityManager } from '@mikro-orm/postgresql';
import { useCommandDatabase } from './helpers/command-database';

// MikroORM keeps a transaction's entity manager in an AsyncLocalStorage (TransactionContext); the
// service runs on Node's own AsyncLocalStorage, unpatched. And the ORM the service opens forks without
// applying its configuration again (withLightForks, src/platform/db/orm-config.ts).

const db = useCommandDatabase();

const later = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const current = (tx: EntityManager) => TransactionContext.getEntityManager(tx.name);

describe('the transaction context follows its transaction', () => {
  test('across statements, awaits and timers, and in work started without awaiting it', async () => {
    let unawaited: Promise<boolean> | undefined;
    const seen = await db.orm.em.fork().transactional(async (tx) => {
      const found = [current(tx) === tx];
      await tx.execute('select 1');
      found.push(current(tx) === tx);
      await later(5);
      found.push(current(tx) === tx);
      unawaited = later(20).then(() => current(tx) === tx);
      return found;
    });
    expect(seen).toEqual([true, true, true]);
    // Still the transaction's context after it ended (Node keeps a store for everything its run started).
    expect(await unawaited).toBe(true);
    expect(TransactionContext.getEntityManager()).toBeUndefined();
  });

  test('two transactions at once each see their own', async () => {
    const run = (value: number) =>
      db.orm.em.fork().transactional(async (tx) => {
        await later(value * 5);
        const rows = await tx.execute<Array<{ value: number }>>(`select ${value}::int as value`);
        return current(tx) === tx && rows[0]?.value === value;
      });
    expect(await Promise.all([run(2), run(1), run(3)])).toEqual([true, true, true]);
  });
});

describe('forks stay light (withLightForks)', () => {
  test('a fork does not apply the configuration again, and the global context stays refused', async () => {
    const colors = process.env.MIKRO_ORM_COLORS;
    process.env.MIKRO_ORM_COLORS = 'untouched';
    try {
      const fork = db.orm.em.fork();
      await fork.execute('select 1');
      // MikroORM's own fork() would have written process.env here (Configuration.sync).
      expect(process.env.MIKRO_ORM_COLORS).toBe('untouched');
      expect(db.orm.config.get('allowGlobalContext')).toBe(false);
      expect(() => db.orm.em.getContext()).toThrow(/global EntityManager/);
      // Any other key is set as MikroORM sets it.
      db.orm.config.set('debug', false);
      expect(process.env.MIKRO_ORM_COLORS).toBe('false');
    } finally {
      process.env.MIKRO_ORM_COLORS = colors;
    }
  });
});
