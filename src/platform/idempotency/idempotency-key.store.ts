import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import DataLoader from 'dataloader';
import { queryStatement, type PreparedStatements } from '../db/prepared-statements';
import type { SqlStatement } from '../db/sql-statement';
import { tracedFor } from '../db/traced-statements';
import type { TraceScope } from '../observability/tracing';
import { CLAIM_MANY, CLAIM_ONE, COMPLETE_MANY, COMPLETE_ONE, END_LEASE, FORGET_CLAIM, openStored, READ_KEY, type ResponseSealer } from './idempotency-statements';
import { holdKey, type HeldKey } from './held-key';
import { LEASE_SECONDS, retryInBackground } from './idempotency-lease';

export type { ResponseSealer } from './idempotency-statements';
export type { HeldKey } from './held-key';
import { deleteExpiredIdempotencyKeys } from './idempotency-key.repository';

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

interface ClaimedRow {
  recovery_points: Record<string, string> | null;
}

interface PendingClaim {
  readonly organizationId: string;
  readonly key: string;
  readonly fingerprint: string;
  readonly claimToken: string;
  readonly trace?: TraceScope;
}

interface PendingAnswer {
  readonly held: HeldKey;
  readonly response: StoredResponse;
}

/** A batch is what arrived in one turn of the event loop (setImmediate), at most 100; nothing cached. */
const BATCHED = { cache: false, maxBatchSize: 100, batchScheduleFn: (run: () => void) => setImmediate(run) } as const;


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
    private readonly statements?: PreparedStatements,
  ) {
    if (statements) {
      this.claims = new DataLoader((claims) => this.claimBatch(claims), BATCHED);
      this.answers = new DataLoader((answers) => this.completeBatch(answers), BATCHED);
    }
  }

  /**
   * With the keys' pool, claims and stored answers are batched: the requests of one turn of the event
   * loop claim their keys in one statement, and store their answers in another (D17: a booking
   * with a key as fast as one without). Every statement to PostgreSQL costs the service a write to a
   * socket and wakes a server process; a burst of 64 keyed bookings costs a few of each instead of 128.
   */
  private readonly stopped = new AbortController();
  private readonly claims?: DataLoader<PendingClaim, ClaimedRow | undefined>;
  private readonly answers?: DataLoader<PendingAnswer, void>;

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
  private execute<Params extends object, T>(statement: SqlStatement<Params, T>, params: Params, trace?: TraceScope): Promise<T[]> {
    // A batch's statement is a span of the first request in it (D27).
    if (this.statements) return queryStatement(tracedFor(this.statements, trace), statement, params);
    return this.orm.em.fork().getConnection().execute<T[]>(statement.knexText, statement.knexValues(params));
  }

  /**
   * Takes the key for a request with this fingerprint, or says what became of it: the stored answer
   * (same fingerprint, done), in use (same fingerprint, still running), or reused (another
   * fingerprint). An expired record, or a running one whose lease ran out, is taken over.
   */
  async claim(organizationId: string, key: string, fingerprint: string, trace?: TraceScope): Promise<ClaimResult> {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const claimToken = randomUUID();
      // The first attempt joins the claims of other requests made in the same turn of the event loop.
      // A claim whose statement failed (a database that stopped answering) is forgotten in the
      // background (orForget), as it may still run once the database answers again.
      const claimed = await this.orForget(
        organizationId,
        key,
        claimToken,
        attempt === 0 && this.claims
          ? this.claims.load({ organizationId, key, fingerprint, claimToken, trace })
          : this.execute(CLAIM_ONE, { organizationId, key, fingerprint, leaseSeconds: LEASE_SECONDS, ttlHours: this.ttlHours, claimToken }, trace).then((rows) => rows[0]),
      );
      if (claimed) return { kind: 'claimed', claim: this.hold(organizationId, key, fingerprint, claimToken, claimed.recovery_points ?? {}, trace) };
      const [row] = await this.execute(READ_KEY, { organizationId, key }, trace);
      if (!row) continue; // released or expired in between: try to take it again
      if (row.fingerprint !== fingerprint) return { kind: 'reused' };
      if (row.state === 'RUNNING') return { kind: 'in-use' };
      return {
        kind: 'replay',
        response: { status: row.response_status ?? 200, headers: row.response_headers ?? {}, body: row.response_body === null ? '' : openStored(this.sealer, row.response_body) },
      };
    }
    return { kind: 'in-use' };
  }

  /**
   * Claims made in one turn of the event loop, as one statement (keys' pool only). A key claimed twice
   * in one batch is claimed once; its other requests get no row here and find it taken (in use).
   */
  private async claimBatch(claims: readonly PendingClaim[]): Promise<Array<ClaimedRow | undefined>> {
    const first = new Map<string, PendingClaim>();
    for (const claim of claims) {
      const name = `${claim.organizationId}\u0000${claim.key}`;
      if (!first.has(name)) first.set(name, claim);
    }
    const unique = [...first.values()];
    const rows = await this.execute(
      CLAIM_MANY,
      {
        leaseSeconds: LEASE_SECONDS,
        ttlHours: this.ttlHours,
        organizationIds: unique.map((claim) => claim.organizationId),
        keys: unique.map((claim) => claim.key),
        fingerprints: unique.map((claim) => claim.fingerprint),
        claimTokens: unique.map((claim) => claim.claimToken),
      },
      unique[0]?.trace,
    );
    const byToken = new Map(rows.map((row) => [row.claim_token, row]));
    return claims.map((claim) => byToken.get(claim.claimToken));
  }

  /** Answers stored in one turn of the event loop, as one statement (keys' pool only). */
  private async completeBatch(answers: readonly PendingAnswer[]): Promise<void[]> {
    await this.execute(
      COMPLETE_MANY,
      {
        organizationIds: answers.map(({ held }) => held.organizationId),
        keys: answers.map(({ held }) => held.key),
        claimTokens: answers.map(({ held }) => held.claimToken),
        statuses: answers.map(({ response }) => response.status),
        headers: answers.map(({ response }) => JSON.stringify(response.headers)),
        bodies: answers.map(({ response }) => this.sealer.seal(response.body)),
      },
      answers[0]?.held.trace,
    );
    return answers.map(() => undefined);
  }

  /**
   * `claiming`, the claim's statement; when it fails (a database that stopped answering: the driver
   * gave up waiting), the statement may still run once the database answers again, and leave a
   * RUNNING record nobody holds, which would answer every retry 409 until its lease ended. So the
   * claim is deleted in the background, again until a delete finds it or the lease would have ended
   * (the delete may reach the database before the claim does, on another connection).
   */
  private async orForget<T>(organizationId: string, key: string, claimToken: string, claiming: Promise<T>): Promise<T> {
    try {
      return await claiming;
    } catch (error) {
      retryInBackground(async () => {
        const deleted = await this.execute(FORGET_CLAIM, { organizationId, key, claimToken });
        return deleted.length > 0;
      }, undefined, this.stopped.signal);
      throw error;
    }
  }

  /** The claim a request holds; `recovered` are the sealed recovery points of an earlier attempt. */
  hold(organizationId: string, key: string, fingerprint: string, claimToken: string, recovered: Record<string, string>, trace?: TraceScope): HeldKey {
    return holdKey(this.sealer, { organizationId, key, fingerprint, claimToken, trace }, recovered);
  }

  /** Stores the response of the request that holds the key. */
  async complete(held: HeldKey, response: StoredResponse): Promise<void> {
    if (this.answers) return this.answers.load({ held, response });
    await this.execute(
      COMPLETE_ONE,
      {
        status: response.status,
        headers: JSON.stringify(response.headers),
        body: this.sealer.seal(response.body),
        organizationId: held.organizationId,
        key: held.key,
        claimToken: held.claimToken,
      },
      held.trace,
    );
  }

  /**
   * Frees the key without storing anything: the retry runs for real. A record with recovery points
   * (a change committed, then the request failed) is not deleted: its lease ends now, so the retry
   * takes it over and returns what committed instead of doing it again.
   */
  async release(held: HeldKey): Promise<void> {
    const params = { organizationId: held.organizationId, key: held.key, claimToken: held.claimToken };
    const deleted = await this.execute(FORGET_CLAIM, params);
    if (deleted.length === 0) {
      await this.execute(END_LEASE, params);
    }
  }

  /** Background retries of this store's records stop: the service is closing its pools (a key's lease ends what they would have done). */
  close(): void {
    this.stopped.abort();
  }

  /** Aborted by close(): what retryInBackground watches. */
  get stopping(): AbortSignal {
    return this.stopped.signal;
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
