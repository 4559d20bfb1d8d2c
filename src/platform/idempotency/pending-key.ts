import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../foundation/errors/app-error';
import type { SqlPart } from '../../foundation/sql-part';
import type { Actor } from '../auth/actor';
import type { IdempotencyClaim, RecordedResult, RecoveryPointCtes, RecoveryPointParts, ResourceShape } from '../db/unit-of-work-scope';
import { jsonWithHoles } from '../outbox/outbox';
import type { TraceScope } from '../observability/tracing';
import type { ClaimResult, HeldKey, IdempotencyKeyStore, StoredResponse } from './idempotency-key.store';
import { isKeyConflict, UNSEALED_ANSWER } from './idempotency-statements';

/** What became of a key another request has: its stored answer, in use, or reused. */
export type KeyOutcome = Exclude<ClaimResult, { kind: 'claimed' }>;

/** A request's answer when its change returns `resource`: its status and headers, and its body as a value (then `suffix`). */
export interface AnswerShape {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: object;
  readonly suffix?: string;
}

/**
 * What the door knows of the request's answer when its change returns a resource (a REST create: that
 * resource as its module presents it; a GraphQL mutation of a few of its fields: those, under `data`):
 * the answer for `resource`, or undefined when it cannot tell.
 */
export type ResourceAnswer = (resource: Readonly<Record<string, unknown>>) => AnswerShape | undefined;

/** Retry-After of 409 IDEMPOTENCY_KEY_IN_USE: the first request usually finishes within a second. */
export const IN_USE_RETRY_AFTER_SECONDS = 1;

/** The error a request gets for its key's outcome (a replay's is replaced by the stored answer, see PendingKey.outcome). */
export function errorOfOutcome(key: string, outcome: KeyOutcome): AppError {
  return outcome.kind === 'reused' ? AppError.idempotencyKeyReused(key) : AppError.idempotencyKeyInUse(key, IN_USE_RETRY_AFTER_SECONDS);
}

/**
 * A request's Idempotency-Key (D17) from the pipeline's idempotency step to its stored answer
 * (a booking with a key as fast as one without). The key is claimed by the request's first
 * change, not before the operation runs:
 *
 * - a change that is one statement (a booking) inserts the key's record itself, with its recovery
 *   point and, when the door knows the answer is the REST shape of the booking, with that answer: the
 *   claim, the change and the answer commit together, in one round trip (claimingPoint);
 * - any other change claims the key first (`acquire`), as every change did before;
 * - a request that changed nothing claims the key when its answer is stored (src/http/idempotent-requests.ts).
 *
 * A claim that finds the key taken (another request with it runs, or ran: its record exists) makes
 * the request change nothing; its answer is then the key's outcome, written over whatever the door made
 * of the refusal: the stored answer replayed, 409 in use or 422 reused, as when the claim came first.
 * Operations only read before their first change, so running them up to it changes nothing a retry
 * could see.
 */
export class PendingKey implements IdempotencyClaim {
  private heldKey: HeldKey | undefined = undefined;
  private keyOutcome: KeyOutcome | undefined = undefined;
  /** The token of a statement that claims the key and has not answered yet (see `conflicted`). */
  private claimingToken: string | undefined = undefined;
  private steps = 0;
  /** The answer a change's statement stored with itself (claimingPoint), to check the one sent against. */
  private storedAnswer: StoredResponse | undefined = undefined;
  /** The answer the last statement that claimed the key was to store with its change. */
  private answerShape: AnswerShape | undefined = undefined;
  /** Whether the answer's end settled the held key (stored its answer or released it). */
  settled = false;

  constructor(
    private readonly store: IdempotencyKeyStore,
    readonly organizationId: string,
    readonly key: string,
    readonly fingerprint: string,
    readonly trace: TraceScope | undefined,
    private readonly resourceAnswer: ResourceAnswer | undefined,
  ) {}

  /** The claim this request holds, once it does. */
  get holding(): HeldKey | undefined {
    return this.heldKey;
  }

  /** Another request's hold on the key, once a claim found it: the request's answer is this outcome. */
  get outcome(): KeyOutcome | undefined {
    return this.keyOutcome;
  }

  /** The answer stored with the change, when a statement stored it. */
  get answerStored(): StoredResponse | undefined {
    return this.storedAnswer;
  }

  /**
   * Releases a key the request claimed after its answer was already written (an overdue request's
   * work went on past its 503): a retry then runs at once, or recovers what committed.
   */
  async releaseUnsettled(): Promise<void> {
    if (!this.heldKey || this.settled) return;
    this.settled = true;
    await this.store.release(this.heldKey);
  }

  async acquire(): Promise<void> {
    if (this.heldKey) return;
    if (this.keyOutcome) throw errorOfOutcome(this.key, this.keyOutcome);
    const result = await this.store.claim(this.organizationId, this.key, this.fingerprint, this.trace);
    if (result.kind === 'claimed') {
      this.heldKey = result.claim;
      return;
    }
    this.keyOutcome = result;
    throw errorOfOutcome(this.key, result);
  }

  conflicted(error: unknown): boolean {
    if (this.claimingToken === undefined || !isKeyConflict(error)) return false;
    this.claimingToken = undefined;
    this.heldKey = undefined;
    return true;
  }

  nextStep(): number {
    return this.steps++;
  }

  recorded(step: number): RecordedResult | undefined {
    return this.heldKey?.recorded(step);
  }

  record(tx: EntityManager, step: number, result: RecordedResult, actor: Actor): Promise<boolean> {
    if (!this.heldKey) throw new Error('a recovery point is recorded on a held key only (acquire first)');
    return this.heldKey.record(tx, step, result, actor);
  }

  recoveryPointCtes(step: number, result: RecordedResult, actor: Actor): Omit<RecoveryPointCtes, 'lost'> {
    return {
      parts: (gate: string, resource?: ResourceShape): RecoveryPointParts => {
        if (this.heldKey) {
          this.claimingToken = undefined;
          return this.heldKey.recoveryPointCtes(step, result, actor).parts(gate);
        }
        // The statement claims the key: from the moment it is sent the request may hold it (a statement
        // whose answer never came may have committed), so a failure releases it as a held one.
        const claimToken = randomUUID();
        const held = this.store.hold(this.organizationId, this.key, this.fingerprint, claimToken, {}, this.trace);
        this.heldKey = held;
        this.claimingToken = claimToken;
        const answer = resource && this.answerFor(resource);
        this.answerShape = answer?.shape;
        return this.store.claimingPoint(held, step, result, actor, gate, answer && { ...answer.shape, body: answer.body });
      },
      answered: (body: string) => {
        if (this.answerShape) this.storedAnswer = { status: this.answerShape.status, headers: this.answerShape.headers, body: body.slice(UNSEALED_ANSWER.length) };
      },
    };
  }

  /** The answer the door says the request gets for `resource`, as SQL; undefined when it cannot tell. */
  private answerFor(resource: ResourceShape): { shape: AnswerShape; body: SqlPart } | undefined {
    const shape = this.resourceAnswer?.(resource.data as Readonly<Record<string, unknown>>);
    if (!shape) return undefined;
    try {
      return { shape, body: jsonWithHoles(shape.body, resource.holes, shape.suffix) };
    } catch {
      return undefined; // a hole the answer shows twice: stored by the door, after the change
    }
  }
}
