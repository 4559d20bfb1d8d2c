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
import { abandon, setDeadline } from './deadline';
import type { KeyAuthentication } from './authenticate';
import { answerError, writeError } from './error-handler';
import { Exchange, PIPELINE_STEPS, type Endpoint, type StepName } from './exchange';
import type { ContextShared } from './http-request-context';
import { isForwardedHttps } from './https-only';
import type { IdempotencyStep } from './idempotent-requests';
import { assertIpAllowed } from './ip-allowlist';
import { drawFromBudget } from './rate-limit';
import { assertHygienic } from './request-hygiene';
import { startRequestSpan } from './request-tracing';

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

/** A step: `true` means it answered the request and the list ends there. */
type Step = (exchange: Exchange) => void | boolean | Promise<void | boolean>;

/** The request's exchange, put on `res.locals` by the pipeline's first middleware. */
export function exchangeOf(res: ServerResponse): Exchange {
  return (res as ServerResponse & { locals: { exchange: Exchange } }).locals.exchange;
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

  /** A named step as Express middleware: skipped once the request was answered 503 by its deadline. */
  function middleware(name: StepName, step: Step): RequestHandler {
    const index = PIPELINE_STEPS.indexOf(name as (typeof PIPELINE_STEPS)[number]);
    return (_req, res, next) => {
      const x = exchangeOf(res);
      if (x.overdue) return;
      x.reached = index;
      let result: ReturnType<Step>;
      try {
        result = step(x);
      } catch (error) {
        next(error);
        return;
      }
      if (result instanceof Promise) result.then((answered) => answered !== true && next(), next);
      else if (result !== true) next();
    };
  }

  function finish(x: Exchange): void {
    clearTimeout(x.deadline);
    if (x.recorded) return;
    x.recorded = true;
    const status = x.res.statusCode;
    usage.recordResponse(x.auth, status);
    const route = routeOf(x);
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

  /** Overdue with an Idempotency-Key claimed: the key is released (a 503 is never stored), so a retry runs at once. */
  function releaseIfOverdue(x: Exchange): void {
    if (!x.overdue || !x.idempotency) return;
    const { logger: log } = x;
    x.idempotency.releaseUnsettled().catch((error: unknown) => log.error({ err: error }, 'could not release the Idempotency-Key of an overdue request; its lease ends it'));
  }

  /** The exchange, its request id, span, deadline and records: the first middleware of every request. */
  const begin: RequestHandler = (req, res, next) => {
    const x = new Exchange(req, res, req.ip, shared);
    res.locals.exchange = x;
    res.locals.requestId = x.requestId;
    Object.defineProperty(res.locals, 'logger', { get: () => x.logger });
    const runtime = tracing.runtime;
    if (runtime) startRequestSpan(runtime, x);
    if (deadlineMs > 0) {
      setDeadline(res, performance.now() + deadlineMs);
      x.deadline = setTimeout(overdue, deadlineMs, x);
    }
    res.once('finish', () => finish(x));
    res.once('close', () => clearTimeout(x.deadline));
    next();
  };

  const beforeRouting: RequestHandler[] = [
    middleware('request-id', (x) => {
      x.res.setHeader('X-Request-Id', x.requestId);
    }),
    middleware('hygiene', (x) => assertHygienic(x.req)),
    middleware('https', (x) => {
      // Behind a TLS-terminating proxy (TRUST_PROXY) the proxy must say the client used https; refused
      // before any door is chosen, in the transport's envelope (as for plain HTTP).
      if (deps.trustProxy && !isForwardedHttps(x.req.headers) && !deps.isProbe((x.req as Request).path)) throw AppError.httpsRequired();
    }),
    middleware('cors', (x) => deps.cors?.(x.req as Request, x.res) ?? false),
  ];

  const afterRouting: RequestHandler[] = [
    middleware('authenticate', async (x) => {
      const endpoint = x.endpoint!;
      if (endpoint.caller === 'none') return;
      if (endpoint.caller === 'key-or-session' && x.req.headers.authorization === undefined) {
        x.auth = await deps.sessionAuthentication(x.req as Request);
        if (x.auth) return;
      }
      x.auth = await keyAuthentication({ ip: x.ip, authorization: x.req.headers.authorization, query: x.query });
    }),
    middleware('ip-allowlist', (x) => {
      if (x.auth) assertIpAllowed(x.auth, x.ip);
    }),
    // Steps that do not apply return at once, without a promise (the hot reads pass most of them).
    middleware('rate-budget', (x) => {
      // The organization's budget (D12) is its keys': a dashboard session does not draw from it.
      if (x.auth && x.auth.session === undefined) return drawFromBudget(rateLimiter, x.auth, x.res).then((state) => void (x.rateLimit = state));
    }),
    middleware('read-body', (x) => {
      const endpoint = x.endpoint!;
      if (endpoint.readBody) return endpoint.readBody(x).then((body) => void (x.body = body));
    }),
    middleware('idempotency', (x) => {
      const write = x.auth ? x.endpoint!.idempotency?.(x) : undefined;
      if (!write || !x.auth) return;
      x.idempotency = deps.idempotency(
        { organizationId: x.auth.organization.id, key: write.key, parts: write.parts, requestId: x.requestId, door: x.endpoint!.door, resourceAnswer: write.resourceAnswer, trace: x.trace?.scope },
        x.res,
      );
    }),
    // A public endpoint has nothing to execute: Express goes on to the pages mounted after the API (src/app.ts).
    middleware('execute', (x) => {
      const endpoint = x.endpoint!;
      if (endpoint.execute === undefined) return;
      // With a replica (D25), a read-only request reads it once its organization's writes are replayed.
      const run =
        replica !== undefined && x.auth !== undefined && endpoint.readOnly?.(x) === true
          ? replica.choose(x.auth.organization.id).then((source) => {
              x.readSource = source;
              return endpoint.execute!(x);
            })
          : endpoint.execute(x);
      if (!(run instanceof Promise)) return true;
      return run.then(
        () => {
          releaseIfOverdue(x);
          return true;
        },
        (error: unknown) => {
          releaseIfOverdue(x);
          throw error;
        },
      );
    }),
  ];

  const routeIndex = PIPELINE_STEPS.indexOf('route');

  /**
   * The route step: the endpoint Express routed the request to, with what the URL carries. An endpoint
   * chosen per request may be none (`next('route')`: Express tries the routes mounted after this one).
   */
  function route(routed: Endpoint | ((req: Request) => Endpoint | undefined)): RequestHandler {
    return (req, res, next) => {
      const x = exchangeOf(res);
      if (x.overdue) return;
      const endpoint = typeof routed === 'function' ? routed(req) : routed;
      if (endpoint === undefined) return next('route');
      x.reached = routeIndex;
      x.endpoint = endpoint;
      // The REST table has no wildcard segments: every parameter is one string.
      x.params = (req.params as Record<string, string> | undefined) ?? x.params;
      x.query = req.query;
      if (endpoint.operation !== undefined) x.operation.name = endpoint.operation;
      next();
    };
  }

  /** The error envelope of any step's failure, in the door's shape (the finishing step map-errors). */
  const mapErrors: ErrorRequestHandler = (error, _req, res, _next) => {
    const x = exchangeOf(res);
    // A key another request has (its claim came with the first change): the key's outcome is the
    // answer, written in place of this error (src/http/idempotent-requests.ts), and no failure.
    if (x.idempotency?.outcome === undefined) x.failed = true;
    answerError(logger, res, x.endpoint?.door ?? res.locals.door, x.requestId, error);
  };

  return { begin, beforeRouting, route, afterRouting, mapErrors };
}

/** The route label: the endpoint's pattern, or what a public endpoint stamped when it ran. */
function routeOf(x: Exchange): string {
  const stamped = (x.res as ServerResponse & { locals?: { route?: unknown } }).locals?.route;
  if (typeof stamped === 'string') return stamped;
  return x.endpoint?.route ?? 'unmatched';
}
