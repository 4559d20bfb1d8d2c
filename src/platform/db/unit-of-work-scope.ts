import type { EntityManager } from '@mikro-orm/postgresql';
import type { SqlPart } from '../../foundation/sql-part';
import type { Actor } from '../auth/actor';
import type { TraceScope } from '../observability/tracing';

/*
 * What a door attaches to the entity manager it hands to commands, for their unit of work
 * (src/platform/db/unit-of-work.ts). A file of its own, without the ORM at run time: the admin CLI
 * attaches its scope without loading MikroORM when a running server does the work.
 */

/** A result as recorded on the idempotency record: JSON, with entities as references and dates as ISO strings. */
export type RecordedResult = null | boolean | number | string | RecordedResult[] | { [name: string]: RecordedResult };

/** What the unit of work needs of a request's Idempotency-Key (implemented by src/platform/idempotency/pending-key.ts). */
export interface IdempotencyClaim {
  readonly key: string;
  /**
   * Claims the key now, when the request does not hold it yet (a request claims its key with its first
   * change, D17: a change that is one statement claims it in that statement, see RecoveryPointCtes;
   * any other calls this first; a request that changed nothing claims it when its answer is stored). Throws when another request has it: 409 in use, 422 reused,
   * or (the same request answered before) an error that the door's answer is replaced by the stored one.
   */
  acquire(): Promise<void>;
  /** Whether `error` is the failure of a statement that claimed the key because another request has it: the key is then not held. */
  conflicted(error: unknown): boolean;
  /** The number of the next unit of work of this request (0, 1, …). */
  nextStep(): number;
  /** The result a previous attempt committed at `step`, if it did. */
  recorded(step: number): RecordedResult | undefined;
  /**
   * Writes the recovery point of `step` (and the actor) onto the key's record, inside `tx`: one
   * statement. False when this request no longer holds the key (another took it over). Held keys only.
   */
  record(tx: EntityManager, step: number, result: RecordedResult, actor: Actor): Promise<boolean>;
  /** The same recovery point as parts of the change's own statement (see RecoveryPointCtes). */
  recoveryPointCtes(step: number, result: RecordedResult, actor: Actor): Omit<RecoveryPointCtes, 'lost'>;
}

/** A resource as the REST door shows it, with the SQL expressions (over `g`) that fill its hole()s. */
export interface ResourceShape {
  readonly data: object;
  readonly holes: readonly string[];
}

/** What one statement that carries the key's recovery point adds (RecoveryPointCtes.parts). */
export interface RecoveryPointParts {
  /** Which text of the statement this is: the key held (`keyed`), or claimed by the statement (`claim`, `claim-answer`). */
  readonly variant: 'keyed' | 'claim' | 'claim-answer';
  /** The CTE `idem_claim`, put first, which locks the held key's record; no SQL when the statement claims the key. */
  readonly claim: SqlPart;
  /** A condition the change is gated on (`exists (select 1 from idem_claim)`), or none. */
  readonly gate: string;
  /** The CTE `idem_point`, after the change. */
  readonly point: SqlPart;
  /** An expression that is false when the statement found the key no longer its request's (another took it over). */
  readonly held: string;
  /** An expression: the answer's body as the statement stored it with its change, else null. */
  readonly answered: string;
}

/**
 * A recovery point written by the change's own statement (a booking without a transaction).
 * Each statement asks for its parts once (`parts`). While the request holds its key, `idem_claim` locks
 * the key's record and has a row only while this request holds it (the statement gates its change on
 * it), and `idem_point` writes the recovery point when the CTE `gate` has a row. While the request
 * does not hold it yet, `idem_point` inserts the key's record (claimed, with the recovery point when
 * `gate` has a row, and with the request's answer when the door knows it is `answer`'s REST shape): a
 * key another request has fails the statement (a unique violation, before COMMIT: nothing changed), and
 * the unit of work claims the key the usual way (`conflicted`, `acquire`). When `idem_claim` had no
 * row the work calls `lost()`; when the statement stored the answer, `answered()`.
 */
export interface RecoveryPointCtes {
  /**
   * `resource`: what the change returns as the API's REST door shows it (its module's presenter: the
   * webhook payload's data), with hole()s (src/platform/outbox/outbox.ts) for values only the statement
   * knows, read from `g`, the gate's row: from it the key's answer may be stored with the change.
   */
  parts(gate: string, resource?: ResourceShape): RecoveryPointParts;
  /** The statement stored the request's answer with its change: `body`, as stored. */
  answered(body: string): void;
  lost(): never;
}

/** What the door knows about the request a command runs for. */
export interface UnitOfWorkScope {
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
   * Where a fixed statement outside a transaction runs (executePrepared): the service's pool for hot
   * statements, which pipelines the statements of concurrent requests (src/platform/db/read-pool.ts).
   * Without it, the ORM's pool.
   */
  readonly statements?: { query<Row>(text: string, values: readonly unknown[]): Promise<Row[]> };
  /**
   * Called after each commit of a unit of work, before its result goes back (D25, read replicas): records
   * where the primary's WAL stands for the request's organization, so its next reads, on any instance,
   * wait for the replica to replay the write. Unset without DATABASE_READ_URL.
   */
  readonly committed?: () => Promise<void>;
  /** Where the request is in its trace, when tracing is on (D27): its statements are spans there. */
  readonly trace?: TraceScope;
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

const scopes = new WeakMap<EntityManager, UnitOfWorkScope>();
const SYSTEM_SCOPE: UnitOfWorkScope = { actor: { kind: 'system', task: 'unattributed' } };

/** Attaches the request's scope to its entity manager (the door does this once); returns `em`. */
export function withUnitOfWorkScope<E extends EntityManager>(em: E, scope: UnitOfWorkScope): E {
  scopes.set(em, scope);
  return em;
}

/** The scope attached to `em`, or the system's. */
export function unitOfWorkScopeOf(em: EntityManager): UnitOfWorkScope {
  return scopes.get(em) ?? SYSTEM_SCOPE;
}

