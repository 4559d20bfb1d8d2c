import { expressMiddleware } from '@as-integrations/express5';
import type { ApolloServer } from '@apollo/server';
import type { RequestListener } from 'node:http';
import type { MikroORM } from '@mikro-orm/postgresql';
import express, { Router, type RequestHandler, type Response } from 'express';
import type { GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import type { ApiKeyAuthenticator } from './modules/api-key/api-key-authenticator';
import type { Config, DashboardSettings } from './foundation/config';
import { createDashboardRouter } from './doors/dashboard/dashboard-router';
import { forKeysOnly, sessionOrKey } from './doors/dashboard/session-auth';
import type { UsageRecorder } from './modules/dashboard/usage-recorder';
import { createExplorerAssetsRouter, EXPLORER_ASSETS_PATH } from './doors/graphql/explorer';
import type { RequestContext } from './platform/graphql/request-context';
import type { CompiledOperations } from './platform/graphql/compiled-operations';
import { graphqlLane } from './doors/graphql/graphql-lane';
import type { QueryLimits } from './doors/graphql/query-limits';
import type { PreparedReads } from './platform/db/prepared-reads';
import { createApiDocsRouter } from './http/api-docs';
import { accessLog } from './http/access-log';
import { authenticate, keyAuthentication, type KeyAuthentication } from './http/authenticate';
import { fastLane } from './http/fast-lane';
import { HttpRequestContext, type ContextShared } from './http/http-request-context';
import { corsFor } from './http/cors';
import { errorHandler, notFound } from './http/error-handler';
import { graphqlRequestBounds } from './http/graphql-bounds';
import { requireForwardedHttps } from './http/https-only';
import { ipAllowlist } from './http/ip-allowlist';
import { jsonBody } from './platform/web/json-body';
import { authOf } from './http/locals';
import { rateLimit } from './http/rate-limit';
import { requestHygiene } from './http/request-hygiene';
import { assignRequestId } from './http/request-id';
import type { IdempotencyMiddleware } from './http/idempotent-requests';
import { healthz, readyz } from './http/health';
import { createMetrics, type Metrics } from './platform/observability/metrics';
import { packageVersion } from './doors/rest/openapi/api-version';
import { buildOpenApiDocument } from './doors/rest/openapi/openapi-document';
import type { Limits } from './platform/limits/limits';
import type { CompiledRoute } from './doors/rest/rest-executor';
import { createRestRouter } from './doors/rest/rest-router';
import type { Webhooks } from './modules/webhook/webhooks';

export interface AppDeps {
  config: Config;
  orm: MikroORM;
  schema: GraphQLSchema;
  routes: readonly CompiledRoute[];
  apollo: ApolloServer<RequestContext>;
  /** The executor Apollo's gateway uses (compiled operations), shared with the fast lane. */
  operations: CompiledOperations;
  authenticator: ApiKeyAuthenticator;
  limits: Limits;
  logger: Logger;
  dashboard: DashboardSettings;
  usage: UsageRecorder;
  idempotency: IdempotencyMiddleware;
  webhooks: Webhooks;
  /** GRAPHQL_MAX_DEPTH / GRAPHQL_MAX_COST, as Apollo's query-limits plugin applies them. */
  graphqlLimits: QueryLimits;
  /** The hot reads outside transactions: the read pool (src/platform/db/read-pool.ts), or the ORM's pool. */
  reads: PreparedReads;
}

/**
 * The request listener of the HTTPS server: the fast lane (src/http/fast-lane.ts) for the hot requests,
 * in front of the Express app for everything else. Both call the same guards, made once here.
 */
export function createRequestListener(deps: AppDeps): RequestListener {
  const { config, orm, schema, routes, apollo, authenticator, limits, logger, usage, webhooks } = deps;
  const shared: ContextShared = { orm, reads: deps.reads, webhooks: webhooks.runtime, logger };
  // Key first (D9), then where it is used from (D11), then how often (D12): both doors share these.
  const authentication = keyAuthentication(authenticator, limits.authFailures);
  const metrics = createMetrics({ token: config.metricsToken, extra: webhooks.metrics });
  const app = createApp(deps, { shared, authentication, metrics });
  return fastLane(
    {
      logger,
      schema,
      routes,
      keyAuthentication: authentication,
      rateLimiter: limits.organization,
      usage,
      metrics,
      context: shared,
      cors: config.corsOrigins.length > 0,
      trustProxy: config.trustProxy,
      graphql: graphqlLane({ schema, apollo, operations: deps.operations, limits: deps.graphqlLimits }),
    },
    app,
  );
}

interface Shared {
  readonly shared: ContextShared;
  readonly authentication: KeyAuthentication;
  readonly metrics: Metrics;
}

/** The Express app; middleware runs top to bottom in the order written here. */
function createApp(deps: AppDeps, { shared, authentication, metrics }: Shared): express.Express {
  const { config, orm, schema, routes, apollo, limits, logger, dashboard, usage, idempotency } = deps;
  const app = express();
  app.disable('x-powered-by');
  // No ETag: it hashed every response body, and no client of this API revalidates with If-None-Match.
  app.set('etag', false);
  // One hop: the proxy in front appends the real peer to X-Forwarded-For; anything left of it came
  // from the client and could be forged (which would defeat IP allowlists and per-address limits).
  app.set('trust proxy', config.trustProxy ? 1 : false);
  app.set('query parser', 'simple');

  const contextFor = (res: Response): RequestContext =>
    new HttpRequestContext(shared, res.locals.requestId, authOf(res), (res.locals.operation ??= {}), res.locals.rateLimit, res.locals);
  // Key first (D9), then where it is used from (D11), then how often (D12): both doors share these.
  const keyAuthentication = authenticate(authentication);
  const organizationRateLimit = rateLimit(limits.organization);
  const guards: RequestHandler[] = [keyAuthentication, usage.middleware, ipAllowlist, organizationRateLimit];
  // On /graphql only, a dashboard session may stand in for the key (D19); REST takes keys alone.
  const graphqlGuards: RequestHandler[] = [
    sessionOrKey(orm, dashboard, keyAuthentication),
    usage.middleware,
    ipAllowlist,
    forKeysOnly(organizationRateLimit),
  ];

  const cors = corsFor(config.corsOrigins);

  app.use(assignRequestId);
  app.use(accessLog(logger));
  app.use(metrics.record);
  app.use(requestHygiene);
  // Probes and scrapers reach the instance directly (still over TLS), without a proxy's
  // X-Forwarded-Proto; these endpoints hold no organization's data and need no key.
  app.get('/healthz', healthz);
  app.get('/readyz', readyz(orm, logger));
  app.get('/metrics', metrics.handler);
  if (config.trustProxy) app.use(requireForwardedHttps);
  if (cors) app.use(cors);

  // The API docs need no key either: they describe the API, they hold no data.
  app.use(createApiDocsRouter(buildOpenApiDocument(schema, routes, packageVersion())));

  app.use(createRestRouter({ schema, routes, guards, contextFor, beforeWrite: idempotency.rest }));
  app.use(createDashboardRouter(orm, dashboard));

  // GraphiQL's scripts and styles, for the explorer page GET /graphql shows browsers.
  if (config.graphqlExplorer === 'graphiql') app.use(EXPLORER_ASSETS_PATH, createExplorerAssetsRouter());

  const graphql = Router();
  graphql.use((req, res, next) => {
    res.locals.door = 'graphql';
    res.locals.route = '/graphql';
    // Express 5 leaves req.body unset without a body (GET); Apollo's middleware refuses to run then.
    req.body ??= {};
    next();
  });
  const apolloHandler = expressMiddleware(apollo, { context: async ({ res }) => contextFor(res) });
  // The explorer page is a static page for browsers; the queries it sends carry a key.
  const isLandingPage: RequestHandler = (req, res, next) =>
    req.method === 'GET' && req.accepts(['application/json', 'text/html']) === 'text/html' && req.query.query === undefined
      ? apolloHandler(req, res, next)
      : next();
  graphql.use(isLandingPage, ...graphqlGuards, jsonBody, graphqlRequestBounds, idempotency.graphql, apolloHandler);
  app.use('/graphql', graphql);

  app.use(notFound);
  app.use(errorHandler(logger));
  return app;
}
