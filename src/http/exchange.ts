import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { AuthContext } from '../platform/auth/auth-context';
import type { ReadSource } from '../platform/db/replica/read-replica';
import type { RateLimitState } from '../platform/limits/organization-rate-limiter';
import type { RequestSpan } from '../platform/observability/tracing';
import type { Door } from './error-handler';
import type { RequestKey } from './idempotent-requests';
import { HttpRequestContext, type ContextShared } from './http-request-context';
import { requestIdOf } from './request-id';

/*
 * What a request is while it takes the pipeline's steps (src/http/pipeline.ts runs them): the names
 * of the steps in their order, the endpoint the route step finds, and the exchange that carries the
 * request from step to step.
 */

/**
 * The steps every request takes, in this order, whatever its path, method or headers. A
 * step that does not apply to the endpoint the request reached passes it on (a public page needs no
 * key, a read no Idempotency-Key); a step that answers (a CORS preflight, a replayed answer) ends
 * the list. After the list, whatever happened, the request is finished by FINISHING_STEPS.
 */
export const PIPELINE_STEPS = [
  'request-id',
  'hygiene',
  'https',
  'cors',
  'route',
  'authenticate',
  'ip-allowlist',
  'rate-budget',
  'read-body',
  'idempotency',
  'execute',
] as const;
/** Run for every request once the list above ended: the error envelope (on a failure), then the records. */
export const FINISHING_STEPS = ['map-errors', 'usage', 'metrics', 'access-log'] as const;
export type StepName = (typeof PIPELINE_STEPS)[number] | (typeof FINISHING_STEPS)[number];

/** Who may call an endpoint. */
export type Caller = 'none' | 'key' | 'key-or-session';

/** What the route step found for a request: one entry of the REST table, /graphql, or a public endpoint. */
export interface Endpoint {
  /** Which door answers: errors are written in its shape (REST envelope, GraphQL `errors`). */
  readonly door: Door | undefined;
  /** The route pattern for logs and metrics (a public endpoint may name it when it runs: `res.locals.route`). */
  readonly route: string;
  /** The named operation a REST route runs (GraphQL names its own when it resolves it). */
  readonly operation?: string;
  readonly caller: Caller;
  /**
   * Whether this request only reads (a REST GET, a GraphQL query): with DATABASE_READ_URL, a replica
   * may answer it (D25). Undefined or false: the primary.
   */
  readOnly?(exchange: Exchange): boolean;
  /** Reads and checks the body, once; the value is what `execute` gets. */
  readBody?(exchange: Exchange): Promise<unknown>;
  /**
   * For a write that carries an Idempotency-Key: its key, what makes a retry the same request, and,
   * when the answer is the REST shape of the resource the change returns, its status and headers.
   */
  idempotency?(exchange: Exchange): { key: string; parts: unknown } | undefined;
  /** What the request runs; none for a public page (Express routes it after the API, src/app.ts). */
  execute?(exchange: Exchange): Promise<void> | void;
}

/** The endpoint of everything that is neither the REST table nor /graphql: health, metrics, docs, the dashboard, 404. */
export const PUBLIC_ENDPOINT: Endpoint = { door: undefined, route: 'unmatched', caller: 'none' };

/** One request on its way through the steps (one object a request: methods on the prototype, no closures). */
export class Exchange {
  readonly started = process.hrtime.bigint();
  readonly requestId: string;
  endpoint: Endpoint | undefined = undefined;
  /** What the route matched: the path's parameters (decoded) and the parsed query string. */
  params: Readonly<Record<string, string>> = NO_PARAMS;
  query: Record<string, unknown> = NO_PARAMS;
  auth: AuthContext | undefined = undefined;
  rateLimit: RateLimitState | undefined = undefined;
  body: unknown = undefined;
  /** The request's Idempotency-Key, claimed at the idempotency step (its units of work record their recovery points on it). */
  idempotency: RequestKey | undefined = undefined;
  /** The route label a public page stamped when it ran (`res.locals.route`: the exchange is res.locals). */
  route: string | undefined = undefined;
  /** The door whose shape a public page's errors take (`res.locals.door`). */
  door: Door | undefined = undefined;
  /** What ran, for the access log (the REST route's operation, or the GraphQL operation's name). */
  readonly operation: { name?: string } = {};
  /** The index in PIPELINE_STEPS of the last step the request entered, and whether it failed there. */
  reached = -1;
  failed = false;
  /** When the answer is due (performance.now() time; REQUEST_DEADLINE_MS, src/http/deadline.ts); undefined: no deadline. */
  dueAt: number | undefined = undefined;
  /** The timer that answers the request 503 when its deadline passes (see `overdue` in requestPipeline). */
  deadline: NodeJS.Timeout | undefined = undefined;
  /** Answered 503 by its deadline while its work went on. */
  overdue = false;
  /** Usage, metrics and access line written (once). */
  recorded = false;
  /** Where a read-only request reads when the replica can answer it (D25); undefined: the primary. */
  readSource: ReadSource | undefined = undefined;
  /** The request's span while tracing is on (D27, src/http/request-tracing.ts). */
  trace: RequestSpan | undefined = undefined;
  private requestContext: HttpRequestContext | undefined = undefined;
  private requestLogger: Logger | undefined = undefined;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly ip: string | undefined,
    private readonly shared: ContextShared,
  ) {
    this.requestId = requestIdOf(req.headers['x-request-id']);
  }

  /** The steps this request took, in order (the pipeline test reads them). */
  get steps(): StepName[] {
    return [...PIPELINE_STEPS.slice(0, this.reached + 1), ...(this.failed ? FINISHING_STEPS : FINISHING_STEPS.slice(1))];
  }

  /** The request's context for the operation, made when first asked for (after authentication). */
  context(): HttpRequestContext {
    if (!this.auth) throw new Error('a request context needs an authenticated caller');
    return (this.requestContext ??= new HttpRequestContext(this.shared, this.requestId, this.auth, this.operation, this.rateLimit, this));
  }

  /** The request's logger (a child with its request id, and its trace_id and span_id when traced), made when first used. */
  get logger(): Logger {
    return (this.requestLogger ??= this.shared.logger.child(this.trace ? { requestId: this.requestId, ...this.trace.scope.logFields } : { requestId: this.requestId }));
  }
}

const NO_PARAMS: Readonly<Record<string, never>> = Object.freeze({});
