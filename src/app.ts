import { expressMiddleware } from '@as-integrations/express5';
import type { ApolloServer } from '@apollo/server';
import type { MikroORM } from '@mikro-orm/postgresql';
import express, { Router, type RequestHandler, type Response } from 'express';
import type { GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import type { ApiKeyAuthenticator } from './auth/api-key-authenticator';
import type { Config } from './config';
import type { RequestContext } from './graphql/request-context';
import { accessLog } from './http/access-log';
import { authenticate } from './http/authenticate';
import { errorHandler, notFound } from './http/error-handler';
import { requireForwardedHttps } from './http/https-only';
import { ipAllowlist } from './http/ip-allowlist';
import { jsonBody } from './http/json-body';
import { rateLimit } from './http/rate-limit';
import { assignRequestId } from './http/request-id';
import type { Limits } from './limits/limits';
import type { CompiledRoute } from './rest/rest-executor';
import { createRestRouter } from './rest/rest-router';

export interface AppDeps {
  config: Config;
  orm: MikroORM;
  schema: GraphQLSchema;
  routes: readonly CompiledRoute[];
  apollo: ApolloServer<RequestContext>;
  authenticator: ApiKeyAuthenticator;
  limits: Limits;
  logger: Logger;
}

/** The Express app; middleware runs top to bottom in the order written here. */
export function createApp(deps: AppDeps): express.Express {
  const { config, orm, schema, routes, apollo, authenticator, limits, logger } = deps;
  const app = express();
  app.disable('x-powered-by');
  // One hop: the proxy in front appends the real peer to X-Forwarded-For; anything left of it came
  // from the client and could be forged (which would defeat IP allowlists and per-address limits).
  app.set('trust proxy', config.trustProxy ? 1 : false);
  app.set('query parser', 'simple');

  const contextFor = (res: Response): RequestContext => ({
    requestId: res.locals.requestId as string,
    auth: res.locals.auth,
    em: orm.em.fork(),
    logger: res.locals.logger as Logger,
  });
  // Key first (D9), then where it is used from (D11), then how often (D12): both doors share these.
  const guards: RequestHandler[] = [
    authenticate(authenticator, limits.authFailures),
    ipAllowlist,
    rateLimit(limits.organization),
  ];

  app.use(assignRequestId);
  app.use(accessLog(logger));
  if (config.trustProxy) app.use(requireForwardedHttps);

  app.use(createRestRouter({ schema, routes, guards, contextFor }));

  const graphql = Router();
  graphql.use((_req, res, next) => {
    res.locals.door = 'graphql';
    next();
  });
  const apolloHandler = expressMiddleware(apollo, { context: async ({ res }) => contextFor(res) });
  // The Sandbox landing page is a static page for browsers; the queries it sends carry a key.
  const isLandingPage: RequestHandler = (req, res, next) =>
    req.method === 'GET' && req.accepts(['application/json', 'text/html']) === 'text/html' && req.query.query === undefined
      ? apolloHandler(req, res, next)
      : next();
  graphql.use(isLandingPage, ...guards, jsonBody, apolloHandler);
  app.use('/graphql', graphql);

  app.use(notFound);
  app.use(errorHandler(logger));
  return app;
}
