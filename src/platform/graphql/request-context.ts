import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Actor } from '../auth/actor';
import type { AuthContext } from '../auth/auth-context';
import { preparedStatements, type PreparedStatements } from '../db/prepared-statements';
import type { UnitOfWorkScope } from '../db/unit-of-work-scope';
import type { RateLimitState } from '../limits/organization-rate-limiter';
import type { WebhookRuntime } from '../outbox/webhook-runtime';
import type { ListCursors } from '../crypto/list-cursor';
import type { TicketCodes } from '../crypto/ticket-codes';
import type { TraceScope } from '../observability/tracing';

/** The per-request context, identical for /graphql and for REST routes executed in-process. */
export interface RequestContext {
  readonly requestId: string;
  readonly auth: AuthContext;
  /** Who is calling, as one typed value (src/platform/auth/actor.ts). */
  readonly actor: Actor;
  /** A fork of the entity manager for this request only (made when first used). */
  readonly em: EntityManager;
  /**
   * What the request's commands run with (their first argument): `em`, the actor, the request's
   * Idempotency-Key claim (src/platform/db/unit-of-work.ts).
   */
  readonly scope: UnitOfWorkScope;
  /**
   * The primary's entity manager, for what must never be read behind a write: the calling key or member
   * itself (authentication's data, D25). `em` itself unless the request reads a replica.
   */
  readonly primaryEm?: EntityManager;
  /** The prepared hot reads (shared by every request; no entity manager needed). */
  readonly reads?: PreparedStatements;
  readonly logger: Logger;
  /** The organization's budget after this request (set by the rate limit at the door). */
  readonly rateLimit?: RateLimitState;
  /** The secret key and destination rule of webhook commands (D18); absent where none run. */
  readonly webhooks?: WebhookRuntime;
  /** Seals and opens list cursors (D25): a key derived from the server secret; absent where no list is read. */
  readonly cursors?: ListCursors;
  /** Opens ticket codes to show them (D29: Booking.ticketCode); the request's commands have them in `scope`. */
  readonly ticketCodes?: TicketCodes;
  /** What ran, for the access log: the REST route's operation, or the GraphQL operation's name. */
  readonly operation?: { name?: string };
  /**
   * Set by a door once the operation's root-field permissions passed (assertOperationAllowed, before
   * the arguments): the root fields' wrappers then leave them alone (each check once a request).
   */
  operationAllowed?: boolean;
  /** Where the request is in its trace, when tracing is on (D27): the operation's span goes below it. */
  readonly trace?: TraceScope;
}

export function readsOf(context: RequestContext): PreparedStatements {
  return context.reads ?? preparedStatements(context.em);
}
