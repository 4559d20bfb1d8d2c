import { Router, type RequestHandler } from 'express';
import type { GraphQLSchema } from 'graphql';
import { AppError } from '../../foundation/errors/app-error';
import type { RequestContext } from '../../platform/graphql/request-context';
import { jsonBody } from '../../platform/web/json-body';
import { sendJson } from '../../platform/web/send-json';
import { runRoute, type CompiledRoute } from './rest-executor';

export interface RestRouterDeps {
  schema: GraphQLSchema;
  routes: readonly CompiledRoute[];
  /** Middleware run before a route's operation (authentication, limits). */
  guards: readonly RequestHandler[];
  contextFor: (res: import('express').Response) => RequestContext;
  /** Run after the body is read, before a write's operation (Idempotency-Key). */
  beforeWrite?: RequestHandler;
}

/** The /v1 door: each route table entry runs its GraphQL operation; wrong methods get 405. */
export function createRestRouter({ schema, routes, guards, contextFor, beforeWrite }: RestRouterDeps): Router {
  const router = Router({ caseSensitive: true, strict: false });
  for (const route of routes) {
    const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'delete';
    // The route pattern and operation name, for logs and metrics (never the raw URL).
    const stamp: RequestHandler = (_req, res, next) => {
      res.locals.route = route.path;
      res.locals.operation = { name: route.operation };
      next();
    };
    const writeSteps = method !== 'get' && beforeWrite ? [beforeWrite] : [];
    router[method](route.path, stamp, ...guards, ...(route.body ? [jsonBody] : []), ...writeSteps, async (req, res) => {
      const result = await runRoute(
        schema,
        route,
        { params: req.params as Record<string, string>, query: req.query, body: req.body },
        contextFor(res),
      );
      if (route.status === 204) {
        res.status(204).end();
        return;
      }
      if (route.location) res.setHeader('Location', route.location(result as { slug: string }));
      sendJson(res, route.status, result);
    });
  }
  const methodsByPath = new Map<string, string[]>();
  for (const route of routes) methodsByPath.set(route.path, [...(methodsByPath.get(route.path) ?? []), route.method]);
  for (const [path, methods] of methodsByPath) {
    const allow = [...methods, ...(methods.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].join(', ');
    router.options(path, (_req, res) => {
      res.locals.route = path;
      res.setHeader('Allow', allow);
      res.status(204).end();
    });
    router.all(path, (req, res) => {
      res.locals.route = path;
      res.setHeader('Allow', allow);
      throw AppError.methodNotAllowed(req.method, allow.split(', '));
    });
  }
  return router;
}
