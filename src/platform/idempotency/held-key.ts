import type { EntityManager } from '@mikro-orm/postgresql';
import type { SqlPart } from '../../foundation/sql-part';
import type { Actor } from '../auth/actor';
import type { IdempotencyClaim, RecordedResult, RecoveryPointParts } from '../db/unit-of-work-scope';
import type { TraceScope } from '../observability/tracing';
import { LEASE_SECONDS } from './idempotency-lease';
import { claimingPointCte, openPoint, pointCte, RECORD_POINT, sealPoint, UNSEALED_ANSWER, type ResponseSealer } from './idempotency-statements';
import { CLAIM_CTE } from './idempotency-key.repository';

/*
 * A key a request holds, and the recovery point a change's own statement writes on it: locked and
 * checked while the request holds the key, or inserted by the statement that claims it (issue 24).
 */

/**
 * A key this request holds: what the unit of work records on it (IdempotencyClaim) and what the door
 * needs to complete or release it. `claimToken` is this request's alone.
 */
export interface HeldKey extends IdempotencyClaim {
  readonly organizationId: string;
  readonly fingerprint: string;
  readonly claimToken: string;
  /** The claiming request's place in its trace (D27): the key's statements are spans there. */
  readonly trace?: TraceScope;
}

/** The answer a statement that claims the key stores with its change: status, headers, and the body as SQL. */
export interface InStatementAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: SqlPart;
}

/** The held key for `claim`; `recovered` are the sealed recovery points of an earlier attempt. */
export function holdKey(
  sealer: ResponseSealer,
  claim: Pick<HeldKey, 'organizationId' | 'key' | 'fingerprint' | 'claimToken' | 'trace'>,
  recovered: Record<string, string>,
): HeldKey {
  const { organizationId, key, fingerprint, claimToken, trace } = claim;
  let steps = 0;
  return {
    organizationId,
    key,
    fingerprint,
    claimToken,
    trace,
    // Held from the start: nothing to acquire, and its statements never claim (see PendingKey).
    acquire: async () => undefined,
    conflicted: () => false,
    nextStep: () => steps++,
    recorded: (step) => {
      const sealed = recovered[String(step)];
      return sealed === undefined ? undefined : openPoint(sealer, sealed);
    },
    // Inside the change's transaction (tx): one statement, the recovery point and the fence at once.
    record: async (tx: EntityManager, step: number, result: RecordedResult, actor: Actor) => {
      const rows = await tx.execute<Array<{ key: string }>>(RECORD_POINT, [String(step), sealPoint(sealer, result), JSON.stringify(actor), organizationId, key, claimToken]);
      return rows.length > 0;
    },
    // Inside the change's own statement: the claim locked and checked first, the point written with the change.
    recoveryPointCtes: (step: number, result: RecordedResult, actor: Actor) => ({
      parts: (gate: string) => ({
        variant: 'keyed',
        claim: { sql: CLAIM_CTE, bindings: [organizationId, key, claimToken] },
        gate: 'and exists (select 1 from idem_claim)',
        point: { sql: pointCte(gate), bindings: [String(step), sealPoint(sealer, result), JSON.stringify(actor), organizationId, key, claimToken] },
        held: 'exists (select 1 from idem_claim)',
        answered: 'null::text',
      }),
      answered: () => undefined,
    }),
  };
}

/**
 * The recovery point of a statement that claims the key itself (claimingPointCte) for `held`, the claim
 * it makes (its token); with `answer`, the answer is stored with the change instead of a recovery
 * point (kept unsealed, see UNSEALED_ANSWER), and the statement reads it back (`answered`).
 */
export function claimingPointParts(
  sealer: ResponseSealer,
  ttlHours: number,
  held: HeldKey,
  point: { readonly step: number; readonly result: RecordedResult; readonly actor: Actor; readonly gate: string },
  answer?: InStatementAnswer,
): RecoveryPointParts {
  const body = answer && { sql: `'${UNSEALED_ANSWER}' || ${answer.body.sql}`, bindings: answer.body.bindings };
  return {
    variant: answer ? 'claim-answer' : 'claim',
    claim: { sql: '', bindings: [] },
    gate: '',
    point: {
      sql: claimingPointCte(point.gate, body),
      bindings: [
        held.organizationId, held.key, held.fingerprint, LEASE_SECONDS, ttlHours, held.claimToken,
        ...(answer && body
          ? [answer.status, JSON.stringify(answer.headers), ...body.bindings]
          : [String(point.step), sealPoint(sealer, point.result), JSON.stringify(point.actor)]),
      ],
    },
    held: 'true',
    answered: answer ? '(select response_body from idem_point)' : 'null::text',
  };
}
