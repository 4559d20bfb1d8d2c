import { helper, Utils } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../foundation/errors/app-error';
import { noteOutboxWrite, takeOutboxWrite } from '../outbox/outbox';
import { boundTrace } from '../observability/tracing';
import { traceTransaction } from './traced-statements';
import { type IdempotencyClaim, type RecordedResult, type UnitOfWork, type UnitOfWorkScope } from './unit-of-work-scope';

/*
 * The unit of work: the one place a mutation's transaction is opened and committed.
 *
 * A command runs its change through `inUnitOfWork(scope, work)` instead of `em.transactional`. The
 * change, the outbox rows it writes (enqueueWebhook, with `tx`) and, when the request holds an
 * Idempotency-Key, the key's recovery point commit together or not at all.
 *
 * The scope is the command's first argument, given by its door: the request context of either door
 * (its `scope`, src/http/http-request-context.ts) with the caller and the request's key, the admin CLI
 * with the operator, a background job or a test with the system (`systemScope`).
 *
 * Recovery points (Stripe's design): with a claim, the unit of work writes, as the last statement of
 * its transaction, a reference to its result onto the idempotency record (one UPDATE, also the fence:
 * it matches only while this request still holds the claim). If the process dies after COMMIT and
 * before the answer is stored, the record stays RUNNING; when its lease ends, the retry takes the key
 * over with the recovery points, and each unit of work that already committed returns its recorded
 * result (entities loaded again by id) instead of running the change again: the same operation
 * renders the same resource. A unit of work without a recovery point never committed and runs again.
 *
 * The key is claimed at the edge, before the operation runs (the pipeline's idempotency step, D17). A
 * unit whose change is one statement (a booking) writes its recovery point in that statement: the
 * key's record locked first and the change gated on it, so a keyed booking is one statement under the
 * event's lock, as an unkeyed one.
 *
 * The steps of one request are numbered in the order they run (GraphQL runs a document's mutation
 * fields one after the other, so a retry of the same document meets them in the same order).
 *
 * Without an Idempotency-Key the unit of work is `em.transactional` and nothing else: no statement more.
 */

/**
 * Test-only: `EVENT_SERVICE_TEST_KILL_BEFORE_COMMIT` / `EVENT_SERVICE_TEST_KILL_AFTER_COMMIT` (read
 * once at start by config.ts) make the process SIGKILL itself when the unit of work of that
 * Idempotency-Key is about to commit, or has just committed: the crash tests' window
 * (test/idempotency-crash.test.ts). Never set in production.
 */
export interface CrashForTests {
  readonly at: 'before-commit' | 'after-commit';
  readonly idempotencyKey: string;
}
let crashForTests: CrashForTests | undefined;

export function armCrashForTests(crash: CrashForTests | undefined): void {
  crashForTests = crash;
}

function crashIfArmed(at: CrashForTests['at'], claim: IdempotencyClaim): void {
  if (crashForTests?.at === at && crashForTests.idempotencyKey === claim.key) process.kill(process.pid, 'SIGKILL');
}

/** What a command may tell the unit of work before it runs. */
export interface UnitOfWorkOptions {
  /**
   * The entity the work will return, known before it runs (its id made by the command). With an
   * Idempotency-Key the recovery point is then written as the transaction's first statement, before
   * the work takes its row locks, instead of its last: a booking of a hot event holds the event's lock
   * for no more round trips with a key than without (keyed bookings at the speed of unkeyed ones).
   */
  readonly returns?: { readonly entity: string; readonly id: string };
  /**
   * The work's change is one statement: without an Idempotency-Key it runs on `em` itself,
   * without BEGIN and COMMIT (a statement is atomic on its own, and commits when it ends): two round
   * trips fewer, and a row lock it takes is held only while the statement runs and its commit flushes.
   * The work may read before its statement, never write twice. With a key it runs in a transaction as
   * any other work (the recovery point commits with it).
   */
  readonly singleStatement?: boolean;
  /**
   * With `singleStatement` and `returns`, the work writes the recovery point in its one statement
   * (`unit.recoveryPoint`): with an Idempotency-Key it too runs without a transaction, its change and
   * the key's recovery point committing together in that statement (a booking with a key as
   * fast as one without).
   */
  readonly recoveryPointInStatement?: boolean;
}

/**
 * Runs `work` in one transaction: the change, its outbox rows and (with an Idempotency-Key) its
 * recovery point commit together. On the retry of a request whose change committed, returns the
 * recorded result instead of running `work`.
 */
export async function inUnitOfWork<T>(
  scope: UnitOfWorkScope,
  work: (tx: EntityManager, unit: UnitOfWork) => Promise<T>,
  options: UnitOfWorkOptions = {},
): Promise<T> {
  const { em } = scope;
  const claim = scope.idempotency;
  let transaction: EntityManager | undefined;
  if (claim === undefined && options.singleStatement) {
    if (scope.committed) return singleStatementMarked(em, work, scope, scope.committed);
    const value = await work(em, scope);
    afterCommit(scope, em);
    return value;
  }
  if (claim === undefined) {
    const value = await em.transactional((tx) => {
      transaction = tx;
      traceTransaction(tx, scope.trace);
      return work(tx, scope);
    });
    afterCommit(scope, transaction);
    if (scope.committed) await scope.committed();
    return value;
  }

  const step = claim.nextStep();
  const { returns } = options;
  const recorded = claim.recorded(step);
  if (recorded !== undefined) {
    // A retry of a change that committed: its mark may not have been recorded (the process died first).
    if (scope.committed) await scope.committed();
    return (await restore(em, recorded)) as T;
  }
  if (options.singleStatement && options.recoveryPointInStatement && returns) {
    const result = { [ENTITY]: returns.entity, id: returns.id };
    const recoveryPoint = {
      parts: (gate: string) => claim.recoveryPointParts(step, result, scope.actor, gate),
      // Another request took the key over (this one outlived its lease): nothing changed, it runs the change.
      lost: (): never => {
        throw AppError.idempotencyKeyInUse(claim.key, 1);
      },
    };
    // The statement commits as it ends: "before the commit" is before it is sent.
    crashIfArmed('before-commit', claim);
    // clientIp stays a getter: it is parsed only when the work reads it (a booking never does).
    const value = await work(em, { actor: scope.actor, requestId: scope.requestId, get clientIp() { return scope.clientIp; }, recoveryPoint });
    crashIfArmed('after-commit', claim);
    afterCommit(scope, em);
    if (scope.committed) await scope.committed();
    return value;
  }

  // The recovery point is also the fence: it matches only while this request still holds the key.
  const fence = async (tx: EntityManager, result: RecordedResult) => {
    if (!(await claim.record(tx, step, result, scope.actor))) {
      // Another request took the key over (this one outlived its lease): roll back, it runs the change.
      throw AppError.idempotencyKeyInUse(claim.key, 1);
    }
  };
  const result = await em.transactional(async (tx) => {
    transaction = tx;
    traceTransaction(tx, scope.trace);
    if (returns) await fence(tx, { [ENTITY]: returns.entity, id: returns.id });
    const value = await work(tx, scope);
    await tx.flush();
    if (returns) {
      const made = toRecorded(tx, value);
      if (!made || typeof made !== 'object' || Array.isArray(made) || made[ENTITY] !== returns.entity || made.id !== returns.id) {
        throw new Error(`the unit of work was told it returns ${returns.entity} ${returns.id}, and returned something else`);
      }
    } else {
      await fence(tx, toRecorded(tx, value));
    }
    crashIfArmed('before-commit', claim);
    return value;
  });
  crashIfArmed('after-commit', claim);
  afterCommit(scope, transaction);
  if (scope.committed) await scope.committed();
  return result;
}

/**
 * Runs `work` in a transaction: `em`'s own when it is in one (a unit of work with an Idempotency-Key),
 * else a new one, for the rare path of a command whose usual path is one statement (singleStatement)
 * and which needs several under one set of locks. Outbox messages written in a new transaction are
 * reported on `em`, for the unit of work to wake the workers after its commit.
 */
export async function withinTransaction<T>(em: EntityManager, work: (tx: EntityManager) => Promise<T>): Promise<T> {
  if (em.isInTransaction()) return work(em);
  return em.transactional(async (tx) => {
    traceTransaction(tx, boundTrace(em));
    const value = await work(tx);
    if (takeOutboxWrite(tx)) noteOutboxWrite(em);
    return value;
  });
}

/**
 * A single-statement unit with a read replica (D25): its mark is recorded even when the work throws,
 * since the work may have committed a transaction of its own first (withinTransaction) before refusing.
 */
async function singleStatementMarked<T>(
  em: EntityManager,
  work: (tx: EntityManager, unit: UnitOfWork) => Promise<T>,
  scope: UnitOfWorkScope,
  committed: () => Promise<void>,
): Promise<T> {
  try {
    const value = await work(em, scope);
    afterCommit(scope, em);
    return value;
  } finally {
    await committed();
  }
}

/** What follows a commit: the webhook workers woken when the unit wrote outbox messages (never inside the transaction). */
function afterCommit(scope: UnitOfWorkScope, tx: EntityManager | undefined): void {
  if (tx !== undefined && takeOutboxWrite(tx)) scope.outboxWritten?.();
  scope.written?.();
}

// ---- Results as recorded ------------------------------------------------------------------------

/** An entity: its class and primary key; `removed` holds its last state when the work deleted it. */
const ENTITY = '$entity';
const DATE = '$date';

/** Utils.isEntity without its type guard (which narrows every other value away). */
const isEntity = (value: unknown): value is object => Utils.isEntity(value);

function toRecorded(tx: EntityManager, value: unknown): RecordedResult {
  if (value === undefined || value === null) return null;
  if (value instanceof Date) return { [DATE]: value.toISOString() };
  if (isEntity(value)) {
    const wrapped = helper(value);
    const className = wrapped.__meta.className;
    const id = wrapped.getSerializedPrimaryKey();
    // A deleted entity cannot be loaded again: keep its last state (scalars and references by id).
    const removed = tx.getUnitOfWork().getById(className, wrapped.getPrimaryKey() as never) === undefined;
    return { [ENTITY]: className, id, ...(removed ? { removed: toRecorded(tx, wrapped.toPOJO()) } : {}) };
  }
  if (Array.isArray(value)) return value.map((item) => toRecorded(tx, item));
  if (typeof value === 'object') {
    const recorded: Record<string, RecordedResult> = {};
    for (const [name, item] of Object.entries(value)) if (item !== undefined) recorded[name] = toRecorded(tx, item);
    return recorded;
  }
  if (typeof value === 'boolean' || typeof value === 'number' || typeof value === 'string') return value;
  throw new Error(`the unit of work cannot record a result of type ${typeof value}`);
}

async function restore(em: EntityManager, recorded: RecordedResult): Promise<unknown> {
  if (recorded === null) return undefined;
  if (Array.isArray(recorded)) return Promise.all(recorded.map((item) => restore(em, item)));
  if (typeof recorded !== 'object') return recorded;
  const date = recorded[DATE];
  if (typeof date === 'string') return new Date(date);
  const className = recorded[ENTITY];
  if (typeof className === 'string') {
    const { id, removed } = recorded;
    if (removed !== undefined) return em.create(className, (await restore(em, removed)) as object, { managed: false, persist: false });
    return em.findOneOrFail(className, id as string);
  }
  const restored: Record<string, unknown> = {};
  for (const [name, item] of Object.entries(recorded)) restored[name] = await restore(em, item);
  return restored;
}
