import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../auth/actor';
import type { IdempotencyClaim, RecordedResult } from '../db/unit-of-work-scope';
import type { TraceScope } from '../observability/tracing';
import { openPoint, pointCte, RECORD_POINT, sealPoint, type ResponseSealer } from './idempotency-statements';
import { CLAIM_CTE } from './idempotency-key.repository';

/*
 * A key a request holds (claimed at the edge, D17), and the recovery points its changes write on it:
 * in their transaction (`record`), or in the change's own statement (`recoveryPointParts`), the key's
 * record locked and checked first.
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

const CLAIM_GATE = 'and exists (select 1 from idem_claim)';
const CLAIM_HELD = 'exists (select 1 from idem_claim)';

/**
 * The texts of a recovery point inside a change's own statement over `gate` (recoveryPointParts
 * without its values): what a statement that carries one shows in its snapshot (sql/).
 */
export function recoveryPointTexts(gate: string): { claim: string; gate: string; point: string; held: string } {
  return { claim: CLAIM_CTE, gate: CLAIM_GATE, point: pointCte(gate), held: CLAIM_HELD };
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
    recoveryPointParts: (step: number, result: RecordedResult, actor: Actor, gate: string) => ({
      claim: { sql: CLAIM_CTE, bindings: [organizationId, key, claimToken] },
      gate: CLAIM_GATE,
      point: { sql: pointCte(gate), bindings: [String(step), sealPoint(sealer, result), JSON.stringify(actor), organizationId, key, claimToken] },
      held: CLAIM_HELD,
    }),
  };
}
