import { randomUUID } from 'node:crypto';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Actor } from '../auth/actor';
import type { IdempotencyClaim, RecordedResult } from '../db/unit-of-work-scope';
import { numberedPlaceholders, type PreparedReads } from '../db/prepared-reads';
import { deleteExpiredIdempotencyKeys } from './idempotency-retention';

/** The response replayed for a key: what the first request got. */
export interface StoredResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export type ClaimResult =
  | { readonly kind: 'claimed'; readonly claim: HeldKey }
  | { readonly kind: 'replay'; readonly response: StoredResponse }
  | { readonly kind: 'in-use' }
  | { readonly kind: 'reused' };

interface Row {
  fingerprint: string;
  state: 'RUNNING' | 'DONE';
  response_status: number | null;
  response_headers: Record<string, string> | null;
  response_body: string | null;
}

/**
 * How long a RUNNING record holds its key when its request never finishes (the process died): past
 * that, a retry runs the operation. Every request is bounded well below this (database timeouts,
 * the server's request timeout of 60 s).
 */
export const LEASE_SECONDS = 120;

/**
 * A key this request holds: what the unit of work records on it (IdempotencyClaim) and what the door
 * needs to complete or release it. `claimToken` is this request's alone.
 */
export interface HeldKey extends IdempotencyClaim {
  readonly organizationId: string;
  readonly fingerprint: string;
  readonly claimToken: string;
}

/** Seals what is stored at rest (AES-256-GCM under the server key: see webhook-secret.ts). */
export interface ResponseSealer {
  seal(plain: string): string;
  open(sealed: string): string;
}

/**
 * Idempotency-Key records in PostgreSQL (table idempotency_keys), scoped to an organization. A stored
 * body can hold a secret shown once (a new API key, a webhook signing secret), so bodies are kept
 * sealed: a database dump reveals none of them.
 */
export class IdempotencyKeyStore {
  constructor(
    private readonly orm: MikroORM,
    private readonly ttlHours: number,
    private readonly sealer: ResponseSealer,
    /** The keys' pool (src/service.ts), when the service has one. */
    private readonly statements?: PreparedReads,
  ) {}

  /**
   * A statement of the store's own (each commits on its own): on the keys' pool when the service has
   * one (prepared, pipelined, `synchronous_commit = off`), else on the ORM's pool.
   *
   * Why a claim, a stored answer or a release need not wait for their own flush to disk: they are
   * visible to every other request at once, and PostgreSQL writes its log in order, so the change a
   * claim is for (a booking, whose statement commits synchronously) flushes the claim with it. What a
   * crash of the database itself can lose is only the last fraction of a second of claims with no
   * change, answers and releases: the key is then RUNNING until its lease ends (a retry meanwhile gets
   * 409, as while the first request runs), and then the retry runs again, or, where the change had
   * committed, answers it from its recovery point (D17). Not a duplicate, not a lost change.
   */
  private execute<T>(sql: string, params: unknown[]): Promise<T[]> {
    if (this.statements) return this.statements.query<T>(numberedPlaceholders(sql), params);
    return this.orm.em.fork().getConnection().execute<T[]>(sql, params);
  }

  /**
   * Takes the key for a request with this fingerprint, or says what became of it: the stored answer
   * (same fingerprint, done), in use (same fingerprint, still running), or reused (another
   * fingerprint). An expired record, or a running one whose lease ran out, is taken over.
   */
  async claim(organizationId: string, key: string, fingerprint: string): Promise<ClaimResult> {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const claimToken = randomUUID();
      // A running record whose lease ran out is taken over with its recovery points (what its request
      // committed before it died), by a retry of the same request only: another fingerprint is a reuse.
      const claimed = await this.execute<{ recovery_points: Record<string, string> | null }>(
        `insert into idempotency_keys (organization_id, key, fingerprint, state, locked_until, created_at, expires_at, claim_token)
         values (?, ?, ?, 'RUNNING', now() + make_interval(secs => ?), now(), now() + make_interval(hours => ?), ?)
         on conflict (organization_id, key) do update
           set fingerprint = excluded.fingerprint, state = 'RUNNING', locked_until = excluded.locked_until,
               created_at = excluded.created_at, expires_at = excluded.expires_at, claim_token = excluded.claim_token,
               response_status = null, response_headers = null, response_body = null,
               recovery_points = case when idempotency_keys.expires_at <= now() then null else idempotency_keys.recovery_points end,
               actor = case when idempotency_keys.expires_at <= now() then null else idempotency_keys.actor end
           where idempotency_keys.expires_at <= now()
              or (idempotency_keys.state = 'RUNNING' and idempotency_keys.locked_until <= now()
                  and (idempotency_keys.recovery_points is null or idempotency_keys.fingerprint = excluded.fingerprint))
         returning recovery_points`,
        [organizationId, key, fingerprint, LEASE_SECONDS, this.ttlHours, claimToken],
      );
      if (claimed.length > 0) return { kind: 'claimed', claim: this.held(organizationId, key, fingerprint, claimToken, claimed[0].recovery_points ?? {}) };
      const [row] = await this.execute<Row>(
        `select fingerprint, state, response_status, response_headers, response_body
         from idempotency_keys where organization_id = ? and key = ? and expires_at > now()`,
        [organizationId, key],
      );
      if (!row) continue; // released or expired in between: try to take it again
      if (row.fingerprint !== fingerprint) return { kind: 'reused' };
      if (row.state === 'RUNNING') return { kind: 'in-use' };
      return {
        kind: 'replay',
        response: { status: row.response_status ?? 200, headers: row.response_headers ?? {}, body: row.response_body === null ? '' : this.sealer.open(row.response_body) },
      };
    }
    return { kind: 'in-use' };
  }

  /** The claim a request holds; `recovered` are the sealed recovery points of an earlier attempt. */
  private held(organizationId: string, key: string, fingerprint: string, claimToken: string, recovered: Record<string, string>): HeldKey {
    const { sealer } = this;
    let steps = 0;
    return {
      organizationId,
      key,
      fingerprint,
      claimToken,
      nextStep: () => steps++,
      recorded: (step) => {
        const sealed = recovered[String(step)];
        return sealed === undefined ? undefined : (JSON.parse(sealer.open(sealed)) as RecordedResult);
      },
      // Inside the change's transaction (tx): one statement, the recovery point and the fence at once.
      record: async (tx: EntityManager, step: number, result: RecordedResult, actor: Actor) => {
        const rows = await tx.execute<Array<{ key: string }>>(
          `update idempotency_keys
           set recovery_points = coalesce(recovery_points, '{}'::jsonb) || jsonb_build_object(?::text, ?::text), actor = ?::text::jsonb
           where organization_id = ? and key = ? and claim_token = ? and state = 'RUNNING'
           returning key`,
          [String(step), sealer.seal(JSON.stringify(result)), JSON.stringify(actor), organizationId, key, claimToken],
        );
        return rows.length > 0;
      },
      // Inside the change's own statement: the claim locked and checked first, the point written with the change.
      recoveryPointCtes: (step: number, result: RecordedResult, actor: Actor) => ({
        claim: {
          sql: `idem_claim as (
       select key, recovery_points from idempotency_keys
        where organization_id = ?::text and key = ?::text and claim_token = ?::uuid and state = 'RUNNING' for update)`,
          bindings: [organizationId, key, claimToken],
        },
        point: (gate: string) => ({
          // From the values idem_claim locked, not the row's own (see booking.repository.ts: a row locked
          // by a CTE is changed from that CTE's values).
          sql: `idem_point as (
       update idempotency_keys k
          set recovery_points = coalesce(c.recovery_points, '{}'::jsonb) || jsonb_build_object(?::text, ?::text), actor = ?::text::jsonb
         from idem_claim c
        where k.organization_id = ?::text and k.key = ?::text and k.claim_token = ?::uuid and exists (select 1 from ${gate})
       returning k.key)`,
          bindings: [String(step), sealer.seal(JSON.stringify(result)), JSON.stringify(actor), organizationId, key, claimToken],
        }),
      }),
    };
  }

  /** Stores the response of the request that holds the key. */
  async complete(held: HeldKey, response: StoredResponse): Promise<void> {
    await this.execute(
      `update idempotency_keys set state = 'DONE', locked_until = null, response_status = ?::int, response_headers = ?::text::jsonb, response_body = ?::text
       where organization_id = ? and key = ? and claim_token = ? and state = 'RUNNING'`,
      [response.status, JSON.stringify(response.headers), this.sealer.seal(response.body), held.organizationId, held.key, held.claimToken],
    );
  }

  /**
   * Frees the key without storing anything: the retry runs for real. A record with recovery points
   * (a change committed, then the request failed) is not deleted: its lease ends now, so the retry
   * takes it over and returns what committed instead of doing it again.
   */
  async release(held: HeldKey): Promise<void> {
    const params = [held.organizationId, held.key, held.claimToken];
    const deleted = await this.execute<{ key: string }>(
      `delete from idempotency_keys where organization_id = ? and key = ? and claim_token = ? and state = 'RUNNING' and recovery_points is null returning key`,
      params,
    );
    if (deleted.length === 0) {
      await this.execute(`update idempotency_keys set locked_until = now() where organization_id = ? and key = ? and claim_token = ? and state = 'RUNNING'`, params);
    }
  }

  /** Deletes records past their lifetime in batches, as the retention job does (src/service.ts runs it); returns how many. */
  async deleteExpired(batchSize = 1000): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await deleteExpiredIdempotencyKeys(this.orm.em.fork(), batchSize);
      total += deleted;
      if (deleted < batchSize) return total;
    }
  }
}
