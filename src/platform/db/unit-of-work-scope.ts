import type { EntityManager } from '@mikro-orm/postgresql';
import type { SqlPart } from '../../foundation/sql-part';
import type { Actor } from '../auth/actor';
import type { TicketCodes } from '../crypto/ticket-codes';
import type { TraceScope } from '../observability/tracing';

/*
 * What a door hands a command with its arguments, for the command's unit of work
 * (src/platform/db/unit-of-work.ts): the request's entity manager and what the door knows of the
 * request. A file of its own, without the ORM at run time: the admin CLI builds its scope without
 * loading MikroORM when a running server does the work.
 */

/** A result as recorded on the idempotency record: JSON, with entities as references and dates as ISO strings. */
export type RecordedResult = null | boolean | number | string | RecordedResult[] | { [name: string]: RecordedResult };

/**
 * What the unit of work needs of the Idempotency-Key a request holds (D17: claimed at the edge, before
 * the operation runs; src/platform/idempotency/held-key.ts): its recovery points, written by each
 * change in its own transaction.
 */
export interface IdempotencyClaim {
  readonly key: string;
  /** The number of the next unit of work of this request (0, 1, …). */
  nextStep(): number;
  /** The result a previous attempt committed at `step`, if it did. */
  recorded(step: number): RecordedResult | undefined;
  /**
   * Writes the recovery point of `step` (and the actor) onto the key's record, inside `tx`: one
   * statement. False when this request no longer holds the key (another took it over).
   */
  record(tx: EntityManager, step: number, result: RecordedResult, actor: Actor): Promise<boolean>;
  /** The same recovery point as parts of the change's own statement, over `gate` (see RecoveryPointCtes). */
  recoveryPointParts(step: number, result: RecordedResult, actor: Actor, gate: string): RecoveryPointParts;
}

/** What one statement that carries the key's recovery point adds. */
export interface RecoveryPointParts {
  /** The CTE `idem_claim`, put first, which locks the held key's record (the fence). */
  readonly claim: SqlPart;
  /** A condition the change is gated on: the key is still this request's. */
  readonly gate: string;
  /** The CTE `idem_point`, after the change: writes the recovery point when the change was made. */
  readonly point: SqlPart;
  /** An expression that is false when the statement found the key no longer its request's (another took it over). */
  readonly held: string;
}

/**
 * A recovery point written by the change's own statement (a booking without a transaction): the
 * statement locks the key's record first (`idem_claim`, which has a row only while this request holds
 * the key), gates its change on it, and writes the recovery point with the change (`idem_point`).
 * When `idem_claim` had no row, the work calls `lost()`.
 */
export interface RecoveryPointCtes {
  /** The parts over `gate`, the CTE whose row the change made. */
  parts(gate: string): RecoveryPointParts;
  lost(): never;
}

/**
 * What a command runs with besides its arguments, passed by the door that calls it (the request
 * context of either door, the admin CLI, a background job): the entity manager of the request and
 * what the door knows of the request. A command passes it to inUnitOfWork unchanged.
 */
export interface UnitOfWorkScope {
  /** The request's entity manager: commands read with it, and their unit of work forks its transaction from it. */
  readonly em: EntityManager;
  readonly actor: Actor;
  /** The request's client address and id, for audit entries (D26); absent outside a request (CLI, jobs). */
  readonly clientIp?: string;
  readonly requestId?: string;
  readonly idempotency?: IdempotencyClaim;
  /** Called after the commit of a unit of work that wrote outbox messages: wakes the webhook workers. */
  readonly outboxWritten?: () => void;
  /** Called after each commit of a unit of work: counts writes towards a table's first statistics (first-statistics.ts). */
  readonly written?: () => void;
  /**
   * Called after each commit of a unit of work, before its result goes back (D25, read replicas): records
   * where the primary's WAL stands for the request's organization, so its next reads, on any instance,
   * wait for the replica to replay the write. Unset without DATABASE_READ_URL.
   */
  readonly committed?: () => Promise<void>;
  /** Where the request is in its trace, when tracing is on (D27): its statements are spans there. */
  readonly trace?: TraceScope;
  /**
   * The keys of ticket codes (D29), derived from the server secret: a command that confirms a booking
   * issues its code with them. Absent where no booking is confirmed (the admin CLI); such a command
   * then refuses to run rather than confirm a booking without a code.
   */
  readonly ticketCodes?: TicketCodes;
}

/** The scope of work nobody asked for by a request (start-up work, jobs, tests): the system acting, without a key. */
export function systemScope(em: EntityManager, task = 'unattributed', scope: Partial<Omit<UnitOfWorkScope, 'em' | 'actor'>> = {}): UnitOfWorkScope {
  return { ...scope, em, actor: { kind: 'system', task } };
}

/** What the work sees of its unit besides the transaction's entity manager. */
export interface UnitOfWork {
  /** Who makes the change (for audit entries). */
  readonly actor: Actor;
  /** Where the request came from and its id (audit entries, D26), when a request made the change. */
  readonly clientIp?: string;
  readonly requestId?: string;
  /** With an Idempotency-Key and the option `recoveryPointInStatement`: the recovery point's parts for the work's one statement. */
  readonly recoveryPoint?: RecoveryPointCtes;
}
