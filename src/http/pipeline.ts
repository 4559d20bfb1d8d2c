import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
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
import { clientIpOf } from './client-address';
import { answerError, writeError } from './error-handler';
import { Exchange, PIPELINE_STEPS, type Endpoint } from './exchange';
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
  /**
   * Finds the endpoint of a request (src/http/endpoints.ts) and puts what the URL carries on the
   * exchange (path parameters, query); may throw a client error (a malformed path).
   */
  readonly route: (exchange: Exchange) => Endpoint;
  /** Probes and scrapers (/healthz, /readyz, /metrics) reach an instance directly, without a proxy's HTTPS mark. */
  readonly isProbe: (req: IncomingMessage) => boolean;
  /** CORS (D15) when CORS_ORIGINS is set: sets its headers and answers preflights (then true). */
  readonly cors?: (req: IncomingMessage, res: ServerResponse) => boolean;
  readonly keyAuthentication: KeyAuthentication;
  /** A dashboard session standing in for a key on /graphql (D19), or undefined when the request has none. */
  readonly sessionAuthentication: (req: IncomingMessage) => Promise<AuthContext | undefined>;
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

type Step = (exchange: Exchange) => void | boolean | Promise<void | boolean>;

/**
 * The request listener of the HTTPS server: every request runs PIPELINE_STEPS in order, then
 * FINISHING_STEPS. Each step is written once, here; the doors come in only as endpoints (what to read,
 * who may call, what to run).
 */
export function requestPipeline(deps: PipelineDeps): RequestListener {
  const { logger, keyAuthentication, rateLimiter, usage, metrics, context: shared } = deps;
  const { replica } = shared;
  const accessLineEnabled = logger.isLevelEnabled('info');
  const deadlineMs = deps.deadlineMs ?? 0;
  const readBodyStep = PIPELINE_STEPS.indexOf('read-body');

  /** Each step, by name; `true` means the step answered the request and the list ends there. */
  const steps: Record<(typeof PIPELINE_STEPS)[number], Step> = {
    'request-id': (x) => {
      x.res.setHeader('X-Request-Id', x.requestId);
    },
    hygiene: (x) => assertHygienic(x.req, x.res),
    route: (x) => {
      x.endpoint = deps.route(x);
      if (x.endpoint.operation !== undefined) x.operation.name = x.endpoint.operation;
    },
    https: (x) => {
      // Behind a TLS-terminating proxy (TRUST_PROXY) the proxy must say the client used https; refused
      // before any door is chosen, in the transport's envelope (as for plain HTTP).
      if (deps.trustProxy && !isForwardedHttps(x.req.headers) && !deps.isProbe(x.req)) throw AppError.httpsRequired();
    },
    cors: (x) => deps.cors?.(x.req, x.res) ?? false,
    authenticate: async (x) => {
      const endpoint = x.endpoint!;
      if (endpoint.caller === 'none') return;
      if (endpoint.caller === 'key-or-session' && x.req.headers.authorization === undefined) {
        x.auth = await deps.sessionAuthentication(x.req);
        if (x.auth) return;
      }
      x.auth = await keyAuthentication({ ip: x.ip, authorization: x.req.headers.authorization, query: x.query });
    },
    'ip-allowlist': (x) => {
      if (x.auth) assertIpAllowed(x.auth, x.ip);
    },
    // Steps that do not apply return at once, without a promise (the hot reads pass most of them).
    'rate-budget': (x) => {
      // The organization's budget (D12) is its keys': a dashboard session does not draw from it.
      if (x.auth && x.auth.session === undefined) return drawFromBudget(rateLimiter, x.auth, x.res).then((state) => void (x.rateLimit = state));
    },
    'read-body': (x) => {
      const endpoint = x.endpoint!;
      if (endpoint.readBody) return endpoint.readBody(x).then((body) => void (x.body = body));
    },
    idempotency: (x) => {
      const write = x.auth ? x.endpoint!.idempotency?.(x) : undefined;
      if (!write || !x.auth) return;
      x.idempotency = deps.idempotency(
        { organizationId: x.auth.organization.id, key: write.key, parts: write.parts, requestId: x.requestId, door: x.endpoint!.door, resourceAnswer: write.resourceAnswer, trace: x.trace?.scope },
        x.res,
      );
    },
    execute: (x) => {
      // With a replica (D25), a read-only request reads it once its organization's writes are replayed.
      if (replica !== undefined && x.auth !== undefined && x.endpoint!.readOnly?.(x) === true) {
        return replica.choose(x.auth.organization.id).then((source) => {
          x.readSource = source;
          return x.endpoint!.execute(x);
        });
      }
      return x.endpoint!.execute(x);
    },
  };
  const ordered: readonly Step[] = PIPELINE_STEPS.map((name) => steps[name]);

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
    // Recorded (usage, metrics, access line) when the 503 ends; the run, when it ends, finds it recorded.
    x.res.once('finish', () => finish(x));
    x.logger.warn({ step: PIPELINE_STEPS[x.reached], deadlineMs }, 'request overdue: answered 503 while its work goes on');
    writeError(x.res, x.endpoint?.door, AppError.serviceUnavailable(undefined, { requestId: x.requestId }));
    abandon(x.res);
  }

  async function run(x: Exchange): Promise<void> {
    if (deadlineMs > 0) {
      setDeadline(x.res, performance.now() + deadlineMs);
      x.deadline = setTimeout(overdue, deadlineMs, x);
    }
    try {
      for (let index = 0; index < ordered.length; index += 1) {
        // An overdue request was answered: the steps it has not begun are not taken.
        if (x.overdue) break;
        x.reached = index;
        const result = ordered[index](x);
        const answered = result instanceof Promise ? await result : result;
        if (answered === true) break;
      }
    } catch (error) {
      // A key another request has (its claim came with the first change): the key's outcome is the
      // answer, written in place of this error (src/http/idempotent-requests.ts), and no failure.
      if (x.idempotency?.outcome === undefined) x.failed = true;
      answerError(logger, x.res, x.endpoint?.door, x.requestId, error);
    }
    // Overdue with an Idempotency-Key claimed after its 503: the key is released (the answer's end is
    // what settles a claim; the 503 is never stored), so a retry runs at once.
    if (x.overdue && x.idempotency) {
      const { logger: log } = x;
      x.idempotency.releaseUnsettled().catch((error: unknown) => log.error({ err: error }, 'could not release the Idempotency-Key of an overdue request; its lease ends it'));
    }
    // A public endpoint's answer may still be streaming (a static file), or not begun (Express runs it
    // on its own): it is recorded when it ends.
    if (x.res.writableEnded) finish(x);
    else {
      x.res.once('finish', () => finish(x));
      x.res.once('close', () => clearTimeout(x.deadline));
    }
  }

  // Nothing above lets an error escape; should one, it is logged and the connection let go, never
  // left to crash the process as an unhandled rejection.
  const failed = (res: ServerResponse) => (error: unknown) => {
    logger.error({ err: error }, 'request pipeline failed');
    if (!res.writableEnded) res.destroy();
  };

  return (req, res) => {
    const exchange = new Exchange(req, res, clientIpOf(req, deps.trustProxy), shared);
    const runtime = tracing.runtime;
    if (runtime) startRequestSpan(runtime, exchange);
    run(exchange).catch(failed(res));
  };
}

/** The route label: the endpoint's pattern, or what a public endpoint stamped when it ran. */
function routeOf(x: Exchange): string {
  const stamped = (x.res as ServerResponse & { locals?: { route?: unknown } }).locals?.route;
  if (typeof stamped === 'string') return stamped;
  return x.endpoint?.route ?? 'unmatched';
}
