import type { ApolloServer } from '@apollo/server';
import type { RequestListener } from 'node:http';
import type { MikroORM } from '@mikro-orm/postgresql';
import express from 'express';
import type { GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import type { ApiKeyAuthenticator } from './modules/api-key/api-key-authenticator';
import type { Config } from './foundation/config';
import type { DashboardSettings } from './foundation/dashboard-settings';
import { createDashboardRouter } from './doors/dashboard/dashboard-router';
import { sessionAuthentication } from './doors/dashboard/session-auth';
import type { UsageRecorder } from './modules/dashboard/usage-recorder';
import { createExplorerAssetsRouter, EXPLORER_ASSETS_PATH } from './doors/graphql/explorer';
import type { RequestContext } from './platform/graphql/request-context';
import { graphqlExecution } from './doors/graphql/graphql-execution';
import { useStatementPool, type PreparedStatements } from './platform/db/prepared-statements';
import { createApiDocsRouter } from './http/api-docs';
import { keyAuthentication } from './http/authenticate';
import { apiEndpoints, isProbe } from './http/endpoints';
import type { ContextShared } from './http/http-request-context';
import type { ListCursors } from './platform/crypto/list-cursor';
import type { TicketCodes } from './platform/crypto/ticket-codes';
import { corsFor } from './http/cors';
import { notFound } from './http/error-handler';
import type { IdempotencyStep } from './http/idempotent-requests';
import { PUBLIC_ENDPOINT, type Exchange } from './http/exchange';
import { requestPipeline } from './http/pipeline';
import { healthz, readyz } from './http/health';
import { createMetrics, type Metrics } from './platform/observability/metrics';
import { packageVersion } from './doors/rest/openapi/api-version';
import { buildOpenApiDocument } from './doors/rest/openapi/openapi-document';
import type { Limits } from './platform/limits/limits';
import type { CompiledRoute } from './doors/rest/rest-executor';
import type { Webhooks } from './modules/webhook/webhooks';
import type { Metric } from 'prom-client';
import type { ReadReplica } from './platform/db/replica/read-replica';

export interface AppDeps {
  config: Config;
  orm: MikroORM;
  schema: GraphQLSchema;
  routes: readonly CompiledRoute[];
  apollo: ApolloServer<RequestContext>;
  authenticator: ApiKeyAuthenticator;
  limits: Limits;
  logger: Logger;
  dashboard: DashboardSettings;
  usage: UsageRecorder;
  idempotency: IdempotencyStep;
  webhooks: Webhooks;
  /** List cursors (D25), keyed by the server secret. */
  cursors?: ListCursors;
  /** Ticket codes (D29), keyed by the server secret. */
  ticketCodes?: TicketCodes;
  /** Called with each request's exchange once it is finished: the steps it took (tests only). */
  onFinished?: (exchange: Exchange) => void;
  /** The hot reads outside transactions: the read pool (src/platform/db/statement-pool.ts), or the ORM's pool. */
  reads: PreparedStatements;
  /** Where writes that are one statement run outside a transaction (the writes' pool); the ORM's pool when undefined. */
  statements?: PreparedStatements;
  /** The read replica (DATABASE_READ_URL, D25), when configured. */
  readReplica?: ReadReplica;
  /** Called after each commit of a request's unit of work (first statistics, D25). */
  written?: () => void;
  /** More metrics for /metrics (the retention job's). */
  extraMetrics?: readonly Metric[];
}

/**
 * The request listener of the HTTPS server: Express's Router, read top to bottom. Every request takes
 * the pipeline's steps (src/http/pipeline.ts) in one order: those before routing, the route step of the
 * endpoint Express's Router finds (a REST table entry, /graphql, else the public pages), the steps
 * after it, and the error envelope. The public pages (health, metrics, docs, the dashboard) come last.
 */
export function createRequestListener(deps: AppDeps): RequestListener {
  const { config, orm, schema, routes, apollo, authenticator, limits, logger, usage, webhooks } = deps;
  useStatementPool(orm.em, deps.statements);
  const shared: ContextShared = {
    orm,
    reads: deps.reads,
    webhooks: webhooks.runtime,
    cursors: deps.cursors,
    ticketCodes: deps.ticketCodes,
    logger,
    replica: deps.readReplica,
    written: deps.written,
  };
  const metrics = createMetrics({
    token: config.metricsToken,
    extra: [...webhooks.metrics, ...limits.metrics, ...(deps.extraMetrics ?? []), ...(deps.readReplica?.metrics ?? [])],
  });
  const explorerAssets = config.graphqlExplorer === 'graphiql';
  const steps = requestPipeline({
    logger,
    trustProxy: config.trustProxy,
    isProbe,
    cors: corsFor(config.corsOrigins),
    // Key first (D9), then where it is used from (D11), then how often (D12).
    keyAuthentication: keyAuthentication(authenticator, limits.authFailures),
    sessionAuthentication: sessionAuthentication(orm, deps.dashboard),
    rateLimiter: limits.organization,
    idempotency: deps.idempotency,
    usage,
    metrics,
    context: shared,
    onFinished: deps.onFinished,
    deadlineMs: config.requestDeadlineMs,
  });

  // Express's Router runs the API: the routes and the pipeline's middleware, in order. Not an
  // Express application at this level: an application gives every request and response its own
  // prototypes (Object.setPrototypeOf), which slows everything Node's HTTP code then does with them:
  // a warmed GET cost twice the CPU (docs/performance.md). The public pages, which use the
  // application's helpers, are an Express application mounted after the API's routes.
  // REST paths are case-sensitive (/V1/EVENTS is not /v1/events); one trailing slash is allowed.
  const api = express.Router({ caseSensitive: true, strict: false });
  api.use(steps.begin, ...steps.beforeRouting);
  const graphql = graphqlExecution({ apollo });
  for (const { method, path, endpoint } of apiEndpoints({ schema, routes, apollo, graphql, explorerAssets })) {
    api[method](path, steps.route(endpoint), ...steps.afterRouting(typeof endpoint === 'function' ? undefined : endpoint));
  }
  api.use(steps.route(PUBLIC_ENDPOINT), ...steps.afterRouting(PUBLIC_ENDPOINT), publicPages(deps, metrics, explorerAssets));
  api.use(steps.mapErrors);
  return (req, res) => {
    // mapErrors answers every error; anything that reaches here was answered already.
    api(req as express.Request, res as express.Response, () => undefined);
  };
}

/** The pages that hold no organization's data and need no key: an Express application. */
function publicPages(deps: AppDeps, metrics: Metrics, explorerAssets: boolean): express.Express {
  const { config, orm, schema, routes, logger, dashboard } = deps;
  const app = express();
  app.disable('x-powered-by');
  // No ETag: it hashed every response body, and no client of this API revalidates with If-None-Match.
  app.set('etag', false);
  // One hop (TRUST_PROXY): req.ip is the address the proxy saw, as the pipeline reads it.
  app.set('trust proxy', config.trustProxy ? 1 : false);
  app.set('query parser', 'simple');
  // Probes and scrapers reach the instance directly (still over TLS), without a proxy's
  // X-Forwarded-Proto (the https step lets them through).
  app.get('/healthz', healthz);
  app.get('/readyz', readyz(orm, logger, () => deps.limits.storeStatus(), deps.readReplica && (() => deps.readReplica!.status())));
  app.get('/metrics', metrics.handler);
  app.use(createApiDocsRouter(buildOpenApiDocument(schema, routes, packageVersion())));
  app.use(createDashboardRouter(orm, dashboard));
  // GraphiQL's scripts and styles, for the explorer page GET /graphql shows browsers.
  if (explorerAssets) app.use(EXPLORER_ASSETS_PATH, createExplorerAssetsRouter());
  app.use(notFound);
  return app;
}
