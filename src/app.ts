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
import type { PreparedReads } from './platform/db/prepared-reads';
import { createApiDocsRouter } from './http/api-docs';
import { keyAuthentication } from './http/authenticate';
import { endpointRouter, isProbe } from './http/endpoints';
import type { ContextShared } from './http/http-request-context';
import type { ListCursors } from './platform/crypto/list-cursor';
import { corsFor } from './http/cors';
import { errorHandler, notFound } from './http/error-handler';
import type { IdempotencyStep } from './http/idempotent-requests';
import type { Exchange } from './http/exchange';
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
  /** Called with each request's exchange once it is finished: the steps it took (tests only). */
  onFinished?: (exchange: Exchange) => void;
  /** The hot reads outside transactions: the read pool (src/platform/db/read-pool.ts), or the ORM's pool. */
  reads: PreparedReads;
  /** Where writes that are one statement run outside a transaction (the writes' pool); the ORM's pool when undefined. */
  statements?: PreparedReads;
  /** The read replica (DATABASE_READ_URL, D25), when configured. */
  readReplica?: ReadReplica;
  /** Called after each commit of a request's unit of work (first statistics, D25). */
  written?: () => void;
  /** More metrics for /metrics (the retention job's). */
  extraMetrics?: readonly Metric[];
}

/**
 * The request listener of the HTTPS server: the request pipeline (src/http/pipeline.ts), the same
 * steps for every request. The REST route table and /graphql are its API endpoints; what is neither
 * (health, metrics, docs, the dashboard, the explorer's assets, 404) runs in the Express app below.
 */
export function createRequestListener(deps: AppDeps): RequestListener {
  const { config, orm, schema, routes, apollo, authenticator, limits, logger, usage, webhooks } = deps;
  const shared: ContextShared = {
    orm,
    reads: deps.reads,
    statements: deps.statements,
    webhooks: webhooks.runtime,
    cursors: deps.cursors,
    logger,
    replica: deps.readReplica,
    written: deps.written,
  };
  const metrics = createMetrics({
    token: config.metricsToken,
    extra: [...webhooks.metrics, ...limits.metrics, ...(deps.extraMetrics ?? []), ...(deps.readReplica?.metrics ?? [])],
  });
  const explorerAssets = config.graphqlExplorer === 'graphiql';
  return requestPipeline({
    logger,
    trustProxy: config.trustProxy,
    isProbe,
    route: endpointRouter({
      schema,
      routes,
      apollo,
      graphql: graphqlExecution({ schema, apollo }),
      publicEndpoints: publicApp(deps, metrics, explorerAssets),
      explorerAssets,
    }),
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
}

/** The endpoints that hold no organization's data and need no key, routed by Express. */
function publicApp(deps: AppDeps, metrics: Metrics, explorerAssets: boolean): express.Express {
  const { config, orm, schema, routes, logger, dashboard } = deps;
  const app = express();
  app.disable('x-powered-by');
  // No ETag: it hashed every response body, and no client of this API revalidates with If-None-Match.
  app.set('etag', false);
  // One hop, as the pipeline's client address (src/http/client-address.ts): the dashboard's req.ip.
  app.set('trust proxy', config.trustProxy ? 1 : false);
  app.set('query parser', 'simple');

  // Probes and scrapers reach the instance directly (still over TLS), without a proxy's
  // X-Forwarded-Proto (the pipeline's https step lets these three through).
  app.get('/healthz', healthz);
  app.get('/readyz', readyz(orm, logger, () => deps.limits.storeStatus(), deps.readReplica && (() => deps.readReplica!.status())));
  app.get('/metrics', metrics.handler);
  // The API docs need no key either: they describe the API, they hold no data.
  app.use(createApiDocsRouter(buildOpenApiDocument(schema, routes, packageVersion())));
  app.use(createDashboardRouter(orm, dashboard));
  // GraphiQL's scripts and styles, for the explorer page GET /graphql shows browsers.
  if (explorerAssets) app.use(EXPLORER_ASSETS_PATH, createExplorerAssetsRouter());
  app.use(notFound);
  app.use(errorHandler(logger));
  return app;
}
