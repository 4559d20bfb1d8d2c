import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { actorOf, type Actor } from '../platform/auth/actor';
import type { AuthContext } from '../platform/auth/auth-context';
import type { IdempotencyClaim, UnitOfWorkScope } from '../platform/db/unit-of-work-scope';
import type { PreparedStatements } from '../platform/db/prepared-statements';
import type { RequestContext } from '../platform/graphql/request-context';
import type { RateLimitState } from '../platform/limits/organization-rate-limiter';
import type { WebhookRuntime } from '../platform/outbox/webhook-runtime';
import type { ListCursors } from '../platform/crypto/list-cursor';
import type { TicketCodes } from '../platform/crypto/ticket-codes';
import type { ReadReplica, ReadSource } from '../platform/db/replica/read-replica';
import { IpAllowlist } from '../modules/organization/ip-allowlist';
import { tracedFor } from '../platform/db/traced-statements';
import { bindTrace, type TraceScope } from '../platform/observability/tracing';

/** What every request's context shares (made once). */
export interface ContextShared {
  readonly orm: MikroORM;
  readonly reads: PreparedStatements;
  readonly webhooks: WebhookRuntime;
  /** List cursors (D25), keyed by the server secret. */
  readonly cursors?: ListCursors;
  /** Ticket codes (D29), keyed by the server secret. */
  readonly ticketCodes?: TicketCodes;
  readonly logger: Logger;
  /** The read replica (DATABASE_READ_URL, D25): read-only requests may read it; every commit records its organization's mark. */
  readonly replica?: ReadReplica;
  /** Called after each commit of a request's unit of work (a table's first statistics, D25). */
  readonly written?: () => void;
}

/**
 * A request's context, the same for both doors and every request of the pipeline (src/http/pipeline.ts). The
 * entity manager and the request logger are made when first used (the hot reads need neither); they
 * are getters on the prototype, so Apollo's per-operation copy of the context (Object.assign of own
 * fields) keeps them lazy instead of calling them.
 */
export class HttpRequestContext implements RequestContext {
  readonly reads: PreparedStatements;
  readonly webhooks: WebhookRuntime;
  readonly cursors: ListCursors | undefined;
  readonly ticketCodes: TicketCodes | undefined;
  /** Where the request is in its trace while tracing is on (D27; its operation and statements are spans there). */
  readonly trace: TraceScope | undefined;
  /** See RequestContext.operationAllowed. */
  operationAllowed = false;
  private forked: EntityManager | undefined;
  private primary: EntityManager | undefined;
  private commandScope: UnitOfWorkScope | undefined;
  private child: Logger | undefined;

  constructor(
    private readonly shared: ContextShared,
    readonly requestId: string,
    readonly auth: AuthContext,
    readonly operation: { name?: string },
    readonly rateLimit: RateLimitState | undefined,
    /** The pipeline's exchange: the request's logger, the request's Idempotency-Key, if any, the client's address and its span (D27). */
    private readonly locals?: {
      readonly logger: Logger;
      readonly idempotency?: { readonly claim: IdempotencyClaim };
      readonly ip?: string;
      /** A read-only request the replica can answer (its organization's writes replayed): the pipeline's choice. */
      readonly readSource?: ReadSource;
      readonly trace?: { readonly scope: TraceScope };
    },
  ) {
    this.trace = locals?.trace?.scope;
    const reads = locals?.readSource?.reads ?? shared.reads;
    this.reads = this.trace ? tracedFor(reads, this.trace) : reads;
    this.webhooks = shared.webhooks;
    this.cursors = shared.cursors;
    this.ticketCodes = shared.ticketCodes;
  }

  /** Who is calling (see Actor). */
  get actor(): Actor {
    return actorOf(this.auth);
  }

  /** The request's entity manager, made when first used. */
  get em(): EntityManager {
    if (this.forked) return this.forked;
    const orm = this.locals?.readSource?.orm ?? this.shared.orm;
    this.forked = orm.em.fork();
    if (this.trace) bindTrace(this.forked, this.trace);
    return this.forked;
  }

  /** What the request's commands run with: its entity manager, the caller, the request's key (see UnitOfWorkScope). */
  get scope(): UnitOfWorkScope {
    if (this.commandScope) return this.commandScope;
    const { webhooks, replica } = this.shared;
    const organizationId = this.auth.organization.id;
    const ip = this.locals?.ip;
    let clientIp: { value: string | undefined } | undefined;
    this.commandScope = {
      em: this.em,
      actor: actorOf(this.auth),
      // For audit entries (D26): the address as the allowlist sees it (IPv4-mapped IPv6 shown as IPv4),
      // parsed only when an audited change reads it (a booking never does).
      get clientIp() {
        return (clientIp ??= { value: IpAllowlist.clientAddress(ip) }).value;
      },
      requestId: this.requestId,
      idempotency: this.locals?.idempotency?.claim,
      outboxWritten: () => webhooks.wake(),
      written: this.shared.written,
      trace: this.trace,
      ticketCodes: this.shared.ticketCodes,
      committed: replica ? () => replica.wrote(organizationId) : undefined,
    };
    return this.commandScope;
  }

  /** See RequestContext.primaryEm: a fork of the primary's when `em` reads a replica. */
  get primaryEm(): EntityManager {
    if (this.locals?.readSource === undefined) return this.em;
    if (this.primary) return this.primary;
    this.primary = this.shared.orm.em.fork();
    bindTrace(this.primary, this.trace);
    return this.primary;
  }

  get logger(): Logger {
    if (this.locals) return this.locals.logger;
    return (this.child ??= this.shared.logger.child({ requestId: this.requestId }));
  }
}
