import type { ServerResponse } from 'node:http';
import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { AppError } from '../foundation/errors/app-error';
import type { AuthContext } from '../platform/auth/auth-context';
import type { OrganizationRateLimiter } from '../platform/limits/organization-rate-limiter';
import type { Metrics } from '../platform/observability/metrics';
import { tracing } from '../platform/observability/tracing';
import type { UsageRecorder } from '../modules/dashboard/usage-recorder';
import { writeAccessLine } from './access-log';
import { abandon } from './deadline';
import type { KeyAuthentication } from './authenticate';
import { answerError, writeError } from './error-handler';
import { Exchange, PIPELINE_STEPS, type Endpoint } from './exchange';
import type { ContextShared } from './http-request-context';
import { isForwardedHttps } from './https-only';
import type { IdempotencyStep } from './idempotent-requests';
import { assertIpAllowed } from './ip-allowlist';
import { RestrictionMode } from '../modules/organization/organization.entity';
import { assertHygienic } from './request-hygiene';
import { startRequestSpan } from './request-tracing';
import { pathOf, queryOf } from './url';
import proxyaddr from 'proxy-addr';

export interface PipelineDeps {
  readonly logger: Logger;
  readonly trustProxy: boolean;
  /** Probes and scrapers (/healthz, /readyz, /metrics) reach an instance directly, without a proxy's HTTPS mark. */
  readonly isProbe: (path: string) => boolean;
  /** CORS (D15) when CORS_ORIGINS is set: sets its headers and answers preflights (then true). */
  readonly cors?: (req: Request, res: ServerResponse) => boolean;
  readonly keyAuthentication: KeyAuthentication;
  /** A dashboard session standing in for a key on /graphql (D19), or undefined when the request has none. */
  readonly sessionAuthentication: (req: Request) => Promise<AuthContext | undefined>;
  readonly rateLimiter: OrganizationRateLimiter;
  readonly idempotency: IdempotencyStep;
  readonly usage: UsageRecorder;
  readonly metrics: Metrics;
  readonly context: ContextShared;
  /** Called with each request's steps once it is finished (tests; unset in the server). */
  readonly onFinished?: (exchange: Exchange) => void;
  /** REQUEST_DEADLINE_MS: a request not answered this long after it arrived gets 503 (src/http/deadline.ts); 0: none. */
  readonly deadlineMs?: number;
}

/**
 * The request pipeline as Express middleware: PIPELINE_STEPS, each written once, here. src/app.ts
 * mounts them in order: `begin`, the steps before routing, then, for each endpoint Express routes
 * (a REST table entry, /graphql, or the public pages), `route(endpoint)` and the steps after it;
 * `mapErrors` ends the list. The doors come in only as endpoints (what to read, who may call, what to run).
 */
export function requestPipeline(deps: PipelineDeps) {
  const { logger, keyAuthentication, rateLimiter, usage, metrics, context: shared } = deps;
  const { replica } = shared;
  const accessLineEnabled = logger.isLevelEnabled('info');
  const deadlineMs = deps.deadlineMs ?? 0;
  const readBodyStep = PIPELINE_STEPS.indexOf('read-body');
  /**
   * The exchange of a request entering step `name`, recorded as the step it reached; undefined once
   * the request was answered 503 by its deadline (the steps it has not begun are not taken).
   */
  function at(res: ServerResponse, name: (typeof PIPELINE_STEPS)[number]): Exchange | undefined {
    const x = (res as ServerResponse & { locals: Exchange }).locals;
    if (x.overdue) return undefined;
    x.reached = STEP_INDEX[name];
    return x;
  }

  /**
   * The response's 'close' listener (Node emits it once the answer is written, or the connection
   * went first): the deadline stops, and an answered request is recorded, once.
   */
  function finish(this: ServerResponse & { locals: Exchange }): void {
    const x = this.locals;
    clearTimeout(x.deadline);
    if (x.recorded || !this.writableFinished) return;
    x.recorded = true;
    const status = x.res.statusCode;
    usage.recordResponse(x.auth, status);
    // The route label: the endpoint's pattern, or what a public endpoint stamped when it ran.
    const route = x.route ?? x.endpoint?.route ?? 'unmatched';
    metrics.observe(x.req.method as string, route, status, x.started);
    x.trace?.end(status, route);
    if (accessLineEnabled) {
      writeAccessLine(x.logger, {
        method: x.req.method as string,
        url: x.req.url as string,
        route,
        operation: x.operation.name,
        status,
        started: x.started,
        organizationId: x.auth?.organization.id,
      });
    }
    deps.onFinished?.(x);
  }

  /**
   * The request's deadline passed without an answer: 503 now, in the door's shape, and whatever the
   * request still does writes nowhere (src/http/deadline.ts). An answer already on its way (headers
   * sent: a stream) is left alone, and so is a request whose body is still arriving (the client's
   * pace, bounded by the server's request timeout): it is looked at again a second later.
   */
  function overdue(x: Exchange): void {
    if (x.res.headersSent || x.res.writableEnded || x.res.destroyed) return;
    if (x.reached === readBodyStep) {
      x.deadline = setTimeout(overdue, 1_000, x);
      return;
    }
    x.failed = true;
    x.overdue = true;
    x.logger.warn({ step: PIPELINE_STEPS[x.reached], deadlineMs }, 'request overdue: answered 503 while its work goes on');
    writeError(x.res, x.endpoint?.door, AppError.serviceUnavailable(undefined, { requestId: x.requestId }));
    abandon(x.res);
  }

  /** The exchange, its request id, span, deadline and records: the first middleware of every request. */
  const begin: RequestHandler = (req, res, next) => {
    // The client's address as Express's req.ip reads it (proxy-addr; TRUST_PROXY trusts one hop).
    const ip = deps.trustProxy ? proxyaddr(req, trustOneHop) : req.socket.remoteAddress;
    const x = new Exchange(req, res, ip, shared);
    // What the public pages (an Express application) read of the request, and the steps of its exchange.
    // The exchange is the request's res.locals: what the public pages (an Express application) read of
    // it (requestId, logger) and stamp on it (route, door). One object of one class: a getter written in
    // a per-request object literal gave each request a hidden class of its own, made in the old
    // generation and holding the request's objects through young collections (docs/performance.md).
    res.locals = x;
    const runtime = tracing.runtime;
    if (runtime) startRequestSpan(runtime, x);
    if (deadlineMs > 0) {
      x.dueAt = performance.now() + deadlineMs;
      x.deadline = setTimeout(overdue, deadlineMs, x);
    }
    res.once('close', finish);
    next();
  };

  /*
   * The steps, one middleware each (Express passes a thrown error or a rejected promise to mapErrors).
   * A step that does not apply to the endpoint passes the request on at once, without a promise (the
   * hot reads pass most of them); a step that answers (a preflight) does not call next.
   */
  const beforeRouting: RequestHandler[] = [
    function requestId(_req, res, next) {
      const x = at(res, 'request-id');
      if (!x) return;
      res.setHeader('X-Request-Id', x.requestId);
      next();
    },
    function hygiene(req, res, next) {
      if (!at(res, 'hygiene')) return;
      assertHygienic(req, res);
      next();
    },
    // Mounted only behind a TLS-terminating proxy (TRUST_PROXY): the proxy must say the client used
    // https; refused before any door is chosen, in the transport's envelope (as for plain HTTP).
    ...(deps.trustProxy
      ? [
          function https(req: Request, res: ServerResponse, next: (error?: unknown) => void) {
            if (!at(res, 'https')) return;
            if (!isForwardedHttps(req.headers) && !deps.isProbe(pathOf(req.url))) throw AppError.httpsRequired();
            next();
          },
        ]
      : []),
    // Mounted only when CORS_ORIGINS is set (D15).
    ...(deps.cors
      ? [
          function cors(req: Request, res: ServerResponse, next: (error?: unknown) => void) {
            if (!at(res, 'cors')) return;
            if (deps.cors?.(req, res) !== true) next();
          },
        ]
      : []),
  ];

  const [authenticate, ipAllowlist, rateBudget, readBody, idempotency, execute]: RequestHandler[] = [
    async function authenticate(req, res, next) {
      const x = at(res, 'authenticate');
      if (!x) return;
      const { caller } = x.endpoint!;
      if (caller !== 'none') {
        if (caller === 'key-or-session' && req.headers.authorization === undefined) x.auth = await deps.sessionAuthentication(req);
        x.auth ??= await keyAuthentication({ ip: x.ip, authorization: req.headers.authorization, query: x.query });
      }
      next();
    },
    function ipAllowlist(_req, res, next) {
      const x = at(res, 'ip-allowlist');
      if (!x) return;
      // D11: only an organization in STRICT mode with a non-empty list is restricted.
      const organization = x.auth?.organization;
      if (organization?.restrictionMode === String(RestrictionMode.STRICT) && organization.allowedIps.length > 0) assertIpAllowed(organization, x.ip);
      next();
    },
    async function rateBudget(_req, res, next) {
      const x = at(res, 'rate-budget');
      if (!x) return;
      // The organization's budget (D12) is its keys': a dashboard session does not draw from it.
      if (!x.auth || x.auth.session !== undefined) return next();
      // D12: one request drawn from the budget. The RateLimit-* headers go on the response (also on
      // the 429, and on any error after this), then 429 RATE_LIMITED past the budget.
      const { allowed, ...state } = await rateLimiter.consume(x.auth.organization);
      res.setHeader('RateLimit-Limit', String(state.limit));
      res.setHeader('RateLimit-Remaining', String(state.remaining));
      res.setHeader('RateLimit-Reset', String(state.resetSeconds));
      if (!allowed) {
        throw AppError.rateLimited(
          `Rate limit of ${state.limit} requests a minute exceeded for this organization; retry in ${state.resetSeconds} s`,
          { retryAfterSeconds: state.resetSeconds, limit: state.limit },
        );
      }
      x.rateLimit = state;
      next();
    },
    async function readBody(_req, res, next) {
      const x = at(res, 'read-body');
      if (!x) return;
      if (x.endpoint!.readBody) x.body = await x.endpoint!.readBody(x);
      next();
    },
    async function idempotency(_req, res, next) {
      const x = at(res, 'idempotency');
      if (!x) return;
      // Most writes carry no key: they pass without asking the endpoint.
      const write = x.auth && x.req.headers['idempotency-key'] !== undefined ? x.endpoint!.idempotency?.(x) : undefined;
      if (write && x.auth) {
        // Claimed before the operation runs (D17); a stored answer replayed here ends the list.
        x.idempotency = await deps.idempotency({ organizationId: x.auth.organization.id, key: write.key, parts: write.parts, requestId: x.requestId, trace: x.trace?.scope, dueAt: x.dueAt }, res);
        if (x.idempotency === undefined) return;
      }
      next();
    },
    async function execute(_req, res, next) {
      const x = at(res, 'execute');
      if (!x) return;
      const endpoint = x.endpoint!;
      // A public endpoint has nothing to execute: Express goes on to the pages mounted after the API (src/app.ts).
      if (endpoint.execute === undefined) return next();
      try {
        // With a replica (D25), a read-only request reads it once its organization's writes are replayed.
        if (replica !== undefined && x.auth !== undefined && endpoint.readOnly?.(x) === true) x.readSource = await replica.choose(x.auth.organization.id);
        await endpoint.execute(x);
      } finally {
        // Overdue with an Idempotency-Key claimed: the key is released (a 503 is never stored), so a retry runs at once.
        if (x.overdue && x.idempotency) {
          const { logger: log } = x;
          x.idempotency.releaseUnsettled().catch((error: unknown) => log.error({ err: error }, 'could not release the Idempotency-Key of an overdue request; its lease ends it'));
        }
      }
    },
  ];

  /**
   * The route step: the endpoint Express routed the request to, with what the URL carries. An endpoint
   * chosen per request may be none (`next('route')`: Express tries the routes mounted after this one).
   */
  function route(routed: Endpoint | ((req: Request) => Endpoint | undefined)): RequestHandler {
    return function route(req, res, next) {
      const endpoint = typeof routed === 'function' ? routed(req) : routed;
      if (endpoint === undefined) return next('route');
      const x = at(res, 'route');
      if (!x) return;
      x.endpoint = endpoint;
      // The REST table has no wildcard segments: every parameter is one string.
      x.params = (req.params as Record<string, string> | undefined) ?? x.params;
      x.query = queryOf(req.url);
      if (endpoint.operation !== undefined) x.operation.name = endpoint.operation;
      next();
    };
  }

  /** The error envelope of any step's failure, in the door's shape (the finishing step map-errors). */
  const mapErrors: ErrorRequestHandler = (error, _req, res, _next) => {
    const x = res.locals as unknown as Exchange;
    x.failed = true;
    answerError(logger, res, x.endpoint?.door ?? x.door, x.requestId, error);
  };

  /**
   * The steps after routing that can apply to `endpoint` (all of them for one chosen per request): a
   * page without a caller takes no key steps, a read no body or Idempotency-Key steps.
   */
  function afterRouting(endpoint?: Endpoint): RequestHandler[] {
    const keyed = endpoint === undefined || endpoint.caller !== 'none';
    return [
      ...(keyed ? [authenticate, ipAllowlist, rateBudget] : []),
      ...(endpoint === undefined || endpoint.readBody ? [readBody] : []),
      ...(keyed && (endpoint === undefined || endpoint.idempotency) ? [idempotency] : []),
      execute,
    ];
  }

  return { begin, beforeRouting, route, afterRouting, mapErrors };
}

/** Each step's place in PIPELINE_STEPS, found once (every step of every request records it). */
const STEP_INDEX = Object.fromEntries(PIPELINE_STEPS.map((name, index) => [name, index])) as Record<(typeof PIPELINE_STEPS)[number], number>;

/** TRUST_PROXY trusts one hop: the address the proxy saw. */
function trustOneHop(_address: string, hop: number): boolean {
  return hop < 1;
}
