import type { MikroORM } from '@mikro-orm/postgresql';

/** The response replayed for a key: what the first request got. */
export interface StoredResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export type ClaimResult =
  | { readonly kind: 'claimed' }
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
  ) {}

  private execute<T>(sql: string, params: unknown[]): Promise<T[]> {
    return this.orm.em.fork().getConnection().execute<T[]>(sql, params);
  }

  /**
   * Takes the key for a request with this fingerprint, or says what became of it: the stored answer
   * (same fingerprint, done), in use (same fingerprint, still running), or reused (another
   * fingerprint). An expired record, or a running one whose lease ran out, is taken over.
   */
  async claim(organizationId: string, key: string, fingerprint: string): Promise<ClaimResult> {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const claimed = await this.execute<{ key: string }>(
        `insert into idempotency_keys (organization_id, key, fingerprint, state, locked_until, created_at, expires_at)
         values (?, ?, ?, 'RUNNING', now() + make_interval(secs => ?), now(), now() + make_interval(hours => ?))
         on conflict (organization_id, key) do update
           set fingerprint = excluded.fingerprint, state = 'RUNNING', locked_until = excluded.locked_until,
               created_at = excluded.created_at, expires_at = excluded.expires_at,
               response_status = null, response_headers = null, response_body = null
           where idempotency_keys.expires_at <= now()
              or (idempotency_keys.state = 'RUNNING' and idempotency_keys.locked_until <= now())
         returning key`,
        [organizationId, key, fingerprint, LEASE_SECONDS, this.ttlHours],
      );
      if (claimed.length > 0) return { kind: 'claimed' };
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

  /** Stores the response of the request that holds the key. */
  async complete(organizationId: string, key: string, fingerprint: string, response: StoredResponse): Promise<void> {
    await this.execute(
      `update idempotency_keys set state = 'DONE', locked_until = null, response_status = ?, response_headers = ?, response_body = ?
       where organization_id = ? and key = ? and fingerprint = ? and state = 'RUNNING'`,
      [response.status, JSON.stringify(response.headers), this.sealer.seal(response.body), organizationId, key, fingerprint],
    );
  }

  /** Frees the key without storing anything: the retry runs for real. */
  async release(organizationId: string, key: string, fingerprint: string): Promise<void> {
    await this.execute(`delete from idempotency_keys where organization_id = ? and key = ? and fingerprint = ? and state = 'RUNNING'`, [
      organizationId,
      key,
      fingerprint,
    ]);
  }

  /** Deletes records past their lifetime; returns how many. */
  async deleteExpired(): Promise<number> {
    const rows = await this.execute<{ key: string }>('delete from idempotency_keys where expires_at <= now() returning key', []);
    return rows.length;
  }
}
