import { DeadlockException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';

/*
 * Attempts inside a unit of work's transaction, each undone on its own (a savepoint): for a change that
 * takes the locks of two events (an exchange, D29), which PostgreSQL may still refuse as a deadlock or a
 * serialization failure when an order it cannot see crosses its own; and for a change that must start
 * again under other locks (the seats it looked for moved). Rolling back to the savepoint releases the
 * row locks the attempt took, so the next one starts clean, while what came before the savepoint (an
 * Idempotency-Key's recovery point) stays.
 */

const SAVEPOINT = 'attempt';

/**
 * Runs `work` after a savepoint of `tx`'s transaction. When it throws, or when `keep` says its value is
 * not to be kept (an attempt that must start again), everything it did is rolled back (its row locks
 * released); the value is still returned.
 */
export async function inSavepoint<T>(tx: EntityManager, work: () => Promise<T>, keep: (value: T) => boolean = () => true): Promise<T> {
  await tx.execute(`savepoint ${SAVEPOINT}`);
  let value: T;
  try {
    value = await work();
  } catch (error) {
    await tx.execute(`rollback to savepoint ${SAVEPOINT}`);
    throw error;
  }
  await tx.execute(keep(value) ? `release savepoint ${SAVEPOINT}` : `rollback to savepoint ${SAVEPOINT}`);
  return value;
}

/** PostgreSQL's deadlock (40P01) or serialization failure (40001), as the ORM's driver reports them: worth another attempt. */
export function isLockConflict(error: unknown): boolean {
  return error instanceof DeadlockException;
}
