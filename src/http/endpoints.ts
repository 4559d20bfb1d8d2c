import type { Request } from 'express';
import Negotiator from 'negotiator';
import type { GraphQLSchema } from 'graphql';
import { AppError } from '../foundation/errors/app-error';
import { sendJson } from '../platform/web/send-json';
import { readJsonBody } from '../platform/web/json-body';
import { runDownload, runRoute, type CompiledRoute } from '../doors/rest/rest-executor';
import { readsBody, REST_DOWNLOADS, type RestDownload } from '../doors/rest/routes';
import type { GraphqlExecution } from '../doors/graphql/graphql-execution';
import { answerByApollo, type GraphqlParameters } from '../doors/graphql/graphql-request';
import { EXPLORER_ASSETS_PATH } from '../doors/graphql/explorer';
import type { ApolloServer } from '@apollo/server';
import type { RequestContext } from '../platform/graphql/request-context';
import { assertGraphqlBounds } from './graphql-bounds';
import { idempotencyKeyOf } from './idempotent-requests';
import { pathOf, queryOf } from './url';
import type { Endpoint } from './exchange';

const GRAPHQL_PATH = '/graphql';
/** Probes and scrapers: reached directly, without a proxy's HTTPS mark. */
const PROBES = new Set(['/healthz', '/readyz', '/metrics']);

/** Is this path a probe's or a scraper's? */
export function isProbe(path: string): boolean {
  return PROBES.has(path);
}

export interface EndpointDeps {
  readonly schema: GraphQLSchema;
  readonly routes: readonly CompiledRoute[];
  /** REST routes that stream a file instead of running an operation (attendees.csv); default REST_DOWNLOADS. */
  readonly downloads?: readonly RestDownload[];
  readonly graphql: GraphqlExecution;
  readonly apollo: ApolloServer<RequestContext>;
  /** The explorer's assets are served under /graphql/… when GRAPHQL_EXPLORER is graphiql. */
  readonly explorerAssets: boolean;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** An endpoint and where Express routes to it: a method (`all`: any method) and a path pattern. */
export interface RoutedEndpoint {
  readonly method: 'get' | 'post' | 'put' | 'delete' | 'patch' | 'all';
  readonly path: string | string[];
  /** The endpoint, or which one for this request (undefined: none here, Express tries the next route). */
  readonly endpoint: Endpoint | ((req: Request) => Endpoint | undefined);
}

/**
 * The endpoints of the REST table and of /graphql, in the order Express tries them (src/app.ts mounts
 * each behind the pipeline's route step). A REST path answers its other methods 405 (OPTIONS: 204),
 * with the methods it has in Allow; a GET route answers HEAD too (Express). Anything else is a public
 * endpoint (`publicEndpoint`).
 */
export function apiEndpoints(deps: EndpointDeps): RoutedEndpoint[] {
  const { schema, graphql, apollo } = deps;

  function restEndpoint(route: CompiledRoute): Endpoint {
    const write = route.method !== 'GET';
    return {
      door: 'rest',
      route: route.path,
      operation: route.operation,
      caller: 'key',
      readOnly: write ? undefined : readsOnly,
      readBody: readsBody(route) ? (x) => readJsonBody(x.req, x.res) : undefined,
      idempotency: write
        ? (x) => {
            const key = idempotencyKeyOf(x.req.headers);
            if (key === undefined) return undefined;
            return { key, parts: { method: route.method, path: pathOf(x.req.url as string), body: x.body ?? null } };
          }
        : undefined,
      async execute(x) {
        const result = await runRoute(schema, route, { params: x.params, query: x.query, body: x.body }, x.context());
        if (route.status === 204) {
          x.res.statusCode = 204;
          x.res.end();
          return;
        }
        const { location, created } = route;
        if (created !== undefined) {
          // An operation that answers an existing resource when there is one (joinQueue, D30): 201 only when this call made it.
          const { [created]: made, ...body } = result as Record<string, unknown>;
          if (made === true && location) x.res.setHeader('Location', location.path + encodeURIComponent(String(body[location.field])));
          sendJson(x.res, made === true ? route.status : 200, body);
          return;
        }
        if (location) x.res.setHeader('Location', location.path + encodeURIComponent(String((result as Record<string, unknown>)[location.field])));
        sendJson(x.res, route.status, result);
      },
    };
  }

  function otherMethods(path: string, allow: readonly string[]): Endpoint {
    // OPTIONS lists the methods; any other method is 405 with the same list. Neither needs a key.
    return {
      door: 'rest',
      route: path,
      caller: 'none',
      execute(x) {
        const method = x.req.method as string;
        x.res.setHeader('Allow', allow.join(', '));
        if (method !== 'OPTIONS') throw AppError.methodNotAllowed(method, [...allow]);
        x.res.statusCode = 204;
        x.res.end();
      },
    };
  }

  const graphqlEndpoint: Endpoint = {
    door: 'graphql',
    route: GRAPHQL_PATH,
    caller: 'key-or-session',
    // A query (GET, or a POST whose operation is no mutation); a batch (an array) is the primary's.
    readOnly: (x) => {
      const parameters = x.req.method === 'POST' ? x.body : x.query;
      return isRecord(parameters) && !graphql.isMutation(parameters);
    },
    async readBody(x) {
      const method = x.req.method as string;
      if (method !== 'POST') {
        assertGraphqlBounds(method, x.query);
        return undefined;
      }
      const body = (await readJsonBody(x.req, x.res)) ?? {};
      if (isRecord(body)) assertGraphqlBounds(method, body);
      return body;
    },
    idempotency(x) {
      if (x.req.method !== 'POST' || x.req.headers['idempotency-key'] === undefined || !isRecord(x.body)) return undefined;
      const body = x.body as GraphqlParameters;
      if (!graphql.isMutation(body)) return undefined;
      const key = idempotencyKeyOf(x.req.headers) as string;
      return {
        key,
        parts: { method: 'POST', path: GRAPHQL_PATH, query: body.query, operationName: body.operationName ?? null, variables: body.variables ?? null },
      };
    },
    execute: (x) => graphql.answer(x.req, x.res, x.body, x.context()),
  };

  /** GraphiQL (or Apollo's landing page) for a browser's GET /graphql: a static page, no key. */
  const landingPage: Endpoint = {
    door: 'graphql',
    route: GRAPHQL_PATH,
    caller: 'none',
    execute: (x) => answerByApollo(apollo, x.req, x.res, undefined, () => Promise.reject(new Error('the landing page runs no operation: it has no request context'))),
  };

  /** Which GraphQL endpoint a request under /graphql reached: only the URL, the method and Accept decide. */
  function graphqlEndpointOf(req: Request): Endpoint | undefined {
    // The explorer's assets are public pages (src/app.ts mounts them).
    const url = req.url;
    if (deps.explorerAssets && url.startsWith(`${EXPLORER_ASSETS_PATH}/`)) return undefined;
    // As Express's req.accepts(['application/json', 'text/html']) (the same library): a tie goes to JSON.
    const browser = req.method === 'GET' && queryOf(url).query === undefined && new Negotiator(req).mediaType(['application/json', 'text/html']) === 'text/html';
    return browser ? landingPage : graphqlEndpoint;
  }

  function downloadEndpoint(download: RestDownload): Endpoint {
    return {
      door: 'rest',
      route: download.path,
      operation: download.name,
      caller: 'key',
      readOnly: readsOnly,
      execute: (x) => runDownload(download, x.res, x.params, x.context()),
    };
  }

  const table = [
    ...deps.routes.map((route) => ({ path: route.path, method: route.method, endpoint: restEndpoint(route) })),
    ...(deps.downloads ?? REST_DOWNLOADS).map((download) => ({ path: download.path, method: download.method, endpoint: downloadEndpoint(download) })),
  ];
  const methodsByPath = new Map<string, string[]>();
  for (const { path, method } of table) methodsByPath.set(path, [...(methodsByPath.get(path) ?? []), method]);
  // /graphql first: Express's Router tries its routes in order, and the REST table's paths never
  // match it (each route tried costs a path match per request).
  return [
    { method: 'all', path: [GRAPHQL_PATH, `${GRAPHQL_PATH}/{*rest}`], endpoint: graphqlEndpointOf },
    ...table.map(({ path, method, endpoint }) => ({ method: method.toLowerCase() as RoutedEndpoint['method'], path, endpoint })),
    ...[...methodsByPath].map(([path, methods]) => ({
      method: 'all' as const,
      path,
      endpoint: otherMethods(path, [...methods, ...(methods.includes('GET') ? ['HEAD'] : []), 'OPTIONS']),
    })),
  ];
}

/** An endpoint that only reads (REST GET routes and downloads). */
const readsOnly = (): boolean => true;
