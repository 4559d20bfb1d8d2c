import { AsyncLocalStorage } from 'node:async_hooks';
import { TransactionContext, type MikroORM } from '@mikro-orm/postgresql';
import { isEnabled, releaseIdleAsyncLocalStorage } from '../src/foundation/async-local-storage';
import { openCommandDatabase, type CommandDatabase } from './helpers/command-database';

// src/foundation/async-local-storage.ts: an AsyncLocalStorage is disabled once its last run ended, so
// that Node's promise hooks are off whenever none is in use (the server installs it at start).

releaseIdleAsyncLocalStorage();

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('idle AsyncLocalStorage is released', () => {
  test('a synchronous run: the store inside, disabled after; a throw still releases it', () => {
    const storage = new AsyncLocalStorage<string>();
    expect(storage.run('a', () => storage.getStore())).toBe('a');
    expect(isEnabled(storage)).toBe(false);
    expect(storage.getStore()).toBeUndefined();
    expect(() =>
      storage.run('b', () => {
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(isEnabled(storage)).toBe(false);
  });

  test('an asynchronous run keeps its store across awaits, and is released when its promise settles', async () => {
    const storage = new AsyncLocalStorage<string>();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const seen: Array<string | undefined> = [];
    const running = storage.run('outer', async () => {
      seen.push(storage.getStore());
      await gate;
      seen.push(storage.getStore());
      // A nested run of the same storage: the outer one still holds it enabled after this ends.
      await storage.run('inner', async () => {
        await tick();
        seen.push(storage.getStore());
      });
      await tick();
      seen.push(storage.getStore());
      return 'done';
    });
    await tick();
    expect(isEnabled(storage)).toBe(true);
    release();
    await expect(running).resolves.toBe('done');
    await tick();
    expect(seen).toEqual(['outer', 'outer', 'inner', 'outer']);
    expect(isEnabled(storage)).toBe(false);

    const failing = storage.run('failing', async () => {
      await tick();
      throw new Error('rejected');
    });
    await expect(failing).rejects.toThrow('rejected');
    await tick();
    expect(isEnabled(storage)).toBe(false);
  });

  test('two runs in flight at once: released after the last one', async () => {
    const storage = new AsyncLocalStorage<number>();
    let endFirst!: () => void;
    const gate = new Promise<void>((resolve) => (endFirst = resolve));
    const first = storage.run(1, async () => {
      await gate;
      return storage.getStore();
    });
    const second = storage.run(2, async () => {
      await tick();
      return storage.getStore();
    });
    await expect(second).resolves.toBe(2);
    await tick();
    expect(isEnabled(storage)).toBe(true);
    endFirst();
    await expect(first).resolves.toBe(1);
    await tick();
    expect(isEnabled(storage)).toBe(false);
  });
});

describe('MikroORM transactions and flushes leave no storage enabled', () => {
  let database: CommandDatabase;
  let orm: MikroORM;
  beforeAll(async () => {
    database = await openCommandDatabase();
    orm = database.orm;
  });
  afterAll(async () => {
    await database?.close();
  });

  test('inside em.transactional the transaction context is there; after it, the storage is disabled', async () => {
    const inside = await orm.em.fork().transactional(async (tx) => {
      await tx.execute('select 1');
      return TransactionContext.getEntityManager(tx.name) === tx;
    });
    expect(inside).toBe(true);
    await tick();
    // MikroORM's own storage of transaction contexts (private in its types).
    expect(isEnabled((TransactionContext as unknown as { storage: AsyncLocalStorage<unknown> }).storage)).toBe(false);
  });

  test('a fork does not apply the configuration again, and the global context stays refused (withLightForks)', async () => {
    const colors = process.env.MIKRO_ORM_COLORS;
    process.env.MIKRO_ORM_COLORS = 'untouched';
    try {
      const fork = orm.em.fork();
      await fork.execute('select 1');
      // MikroORM's own fork() would have written process.env here (Configuration.sync).
      expect(process.env.MIKRO_ORM_COLORS).toBe('untouched');
      expect(orm.config.get('allowGlobalContext')).toBe(false);
      expect(() => orm.em.getContext()).toThrow(/global EntityManager/);
      // Any other key is set as MikroORM sets it.
      orm.config.set('debug', false);
      expect(process.env.MIKRO_ORM_COLORS).toBe('false');
    } finally {
      process.env.MIKRO_ORM_COLORS = colors;
    }
  });
});
