import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { parse as parseQueryString } from 'node:querystring';
import type { GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import type { AuthContext } from '../platform/auth/auth-context';
import type { UsageRecorder } from '../modules/dashboard/usage-recorder';
import type { OrganizationRateLimiter, RateLimitState } from '../platform/limits/organization-rate-limiter';
import type { Metrics } from '../platform/observability/metrics';
import type { GraphqlLane, GraphqlLaneRequest } from '../doors/graphql/graphql-lane';
import { runRoute, type CompiledRoute } from '../doors/rest/rest-executor';
import { writeAccessLine } from './access-log';
import type { KeyAuthentication } from './authenticate';
import { clientIpOf } from './client-address';
import { answerError, type Door } from './error-handler';
import { isForwardedHttps } from './https-only';
import { HttpRequestContext, type ContextShared } from './http-request-context';
import { assertIpAllowed } from './ip-allowlist';
import { drawFromBudget } from './rate-limit';
import { requestIdOf } from './request-id';
import { sendJson } from '../platform/web/send-json';

export interface FastLaneDeps {
  readonly logger: Logger;
  readonly schema: GraphQLSchema;
  readonly routes: readonly CompiledRoute[];
  readonly keyAuthentication: KeyAuthentication;
  readonly rateLimiter: OrganizationRateLimiter;
  readonly usage: UsageRecorder;
  readonly metrics: Metrics;
  readonly context: ContextShared;
  /** CORS is configured: every response varies on Origin, requests with one go to Express. */
  readonly cors: boolean;
  /** TRUST_PROXY: the client's address and scheme come from the proxy's headers (one hop), as in Express. */
  readonly trustProxy: boolean;
  readonly graphql?: GraphqlLane;
}

const EVENTS_PATH = '/v1/events';
const EVENT_PREFIX = '/v1/events/';
const GRAPHQL_PATH = '/graphql';
const NO_QUERY: Record<string, unknown> = Object.freeze({});

/** Headers that ask for something the lane does not do (conditional requests, ranges, CORS, sessions). */
const EXPRESS_ONLY_HEADERS = ['if-none-match', 'if-modified-since', 'if-match', 'if-unmodified-since', 'range', 'cookie', 'idempotency-key', 'expect'];

function isPlain(req: IncomingMessage, cors: boolean): boolean {
  const { headers } = req;
  // HTTP/1.1 without Host is refused by request-hygiene.ts; HTTP/1.0 and HTTP/2 take the usual path.
  if (headers.host === undefined || req.httpVersion !== '1.1') return false;
  if (cors && headers.origin !== undefined) return false;
  for (const name of EXPRESS_ONLY_HEADERS) if (headers[name] !== undefined) return false;
  return true;
}

/** What a hot request is, once recognized. */
interface Hot {
  readonly door: Door;
  readonly route: string;
  readonly operation: { name?: string };
  readonly query: Record<string, unknown>;
  run(res: ServerResponse, context: HttpRequestContext): Promise<void>;
}

/**
 * The fast lane (issue 8): a plain request listener in front of Express on the same server. It answers
 * the hot requests (`GET /v1/events/{slug}`, `GET /v1/events?…`, and on `POST /graphql` a document it
 * has already parsed, validated and compiled) without Express's router, middleware chain or Apollo's
 * request pipeline, calling the very guards and error writer Express calls (request id, key
 * authentication and its failure limiter, usage, IP allowlist, rate limit, metrics, access log,
 * the error envelope). Anything else, or anything it is unsure about, goes to `fallback` unchanged.
 */
export function fastLane(deps: FastLaneDeps, fallback: RequestListener): RequestListener {
  const { logger, schema, keyAuthentication, rateLimiter, usage, metrics, context: shared, cors } = deps;
  const accessLineEnabled = logger.isLevelEnabled('info');
  const getRoute = new Map(deps.routes.filter((route) => route.method === 'GET').map((route) => [route.path, route]));
  const eventRoute = getRoute.get('/v1/events/:slug');
  const listRoute = getRoute.get(EVENTS_PATH);

  function restRoute(route: CompiledRoute, params: Record<string, string>, query: Record<string, unknown>): Hot {
    return {
      door: 'rest',
      route: route.path,
      operation: { name: route.operation },
      query,
      run: async (res, context) => sendJson(res, route.status, await runRoute(schema, route, { params, query, body: undefined }, context)),
    };
  }

  /** The REST request the lane answers, or undefined. */
  function restHot(url: string): Hot | undefined {
    if (url.startsWith(EVENT_PREFIX)) {
      const slug = url.slice(EVENT_PREFIX.length);
      // Percent-escapes, sub-paths, a trailing slash or a query string: Express decodes and routes them.
      if (!eventRoute || slug === '' || /[/?%#]/.test(slug)) return undefined;
      return restRoute(eventRoute, { slug }, NO_QUERY);
    }
    if (!listRoute || !url.startsWith(EVENTS_PATH)) return undefined;
    if (url.length === EVENTS_PATH.length) return restRoute(listRoute, {}, NO_QUERY);
    if (url.charCodeAt(EVENTS_PATH.length) !== 0x3f /* ? */ || url.includes('#')) return undefined;
    // Express's "simple" query parser is node:querystring.
    return restRoute(listRoute, {}, parseQueryString(url.slice(EVENTS_PATH.length + 1)));
  }

  async function serve(req: IncomingMessage, res: ServerResponse, hot: Hot, started: bigint): Promise<void> {
    const requestId = requestIdOf(req.headers['x-request-id']);
    res.setHeader('X-Request-Id', requestId);
    if (cors) res.setHeader('Vary', 'Origin');
    const ip = clientIpOf(req, deps.trustProxy);
    let auth: AuthContext | undefined;
    try {
      auth = await keyAuthentication({ ip, authorization: req.headers.authorization, query: hot.query });
      assertIpAllowed(auth, ip);
      const rateLimit: RateLimitState = await drawFromBudget(rateLimiter, auth, res);
      await hot.run(res, new HttpRequestContext(shared, requestId, auth, hot.operation, rateLimit));
    } catch (error) {
      answerError(logger, res, hot.door, requestId, error);
    }
    const status = res.statusCode;
    usage.recordResponse(auth, status);
    metrics.observe(req.method as string, hot.route, status, started);
    if (accessLineEnabled) {
      writeAccessLine(logger.child({ requestId }), {
        method: req.method as string,
        url: req.url as string,
        route: hot.route,
        operation: hot.operation.name,
        status,
        started,
        organizationId: auth?.organization.id,
      });
    }
  }

  async function graphql(req: IncomingMessage, res: ServerResponse, lane: GraphqlLane, started: bigint): Promise<void> {
    let accepted: GraphqlLaneRequest | undefined;
    try {
      accepted = await lane.accept(req);
    } catch {
      accepted = undefined;
    }
    if (accepted === undefined) {
      fallback(req, res);
      return;
    }
    const request = accepted;
    const operation = { name: request.operationName };
    await serve(req, res, { door: 'graphql', route: GRAPHQL_PATH, operation, query: NO_QUERY, run: (out, context) => request.answer(out, context) }, started);
  }

  // Nothing above lets an error escape; should one, it is logged and the connection let go, never
  // left to crash the process as an unhandled rejection.
  const failed = (res: ServerResponse) => (error: unknown) => {
    logger.error({ err: error }, 'fast lane failed');
    if (!res.writableEnded) res.destroy();
  };

  return (req, res) => {
    const url = req.url as string;
    // Behind a proxy, a request it did not mark as HTTPS is refused by Express (403 HTTPS_REQUIRED).
    if (!isPlain(req, cors) || (deps.trustProxy && !isForwardedHttps(req.headers))) {
      fallback(req, res);
      return;
    }
    if (req.method === 'GET') {
      const hot = restHot(url);
      if (hot) {
        serve(req, res, hot, process.hrtime.bigint()).catch(failed(res));
        return;
      }
    } else if (req.method === 'POST' && url === GRAPHQL_PATH && deps.graphql) {
      graphql(req, res, deps.graphql, process.hrtime.bigint()).catch(failed(res));
      return;
    }
    fallback(req, res);
  };
}
