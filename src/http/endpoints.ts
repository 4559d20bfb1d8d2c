import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQueryString } from 'node:querystring';
import type { GraphQLSchema } from 'graphql';
import { AppError } from '../foundation/errors/app-error';
import { JSON_CONTENT_TYPE, sendJson } from '../platform/web/send-json';
import type { ResourceAnswer } from '../platform/idempotency/pending-key';
import { readJsonBody } from '../platform/web/json-body';
import { runDownload, runRoute, type CompiledRoute } from '../doors/rest/rest-executor';
import { REST_DOWNLOADS, type RestDownload } from '../doors/rest/routes';
import type { GraphqlExecution } from '../doors/graphql/graphql-execution';
import { answerByApollo, type GraphqlParameters } from '../doors/graphql/graphql-request';
import { EXPLORER_ASSETS_PATH } from '../doors/graphql/explorer';
import type { ApolloServer } from '@apollo/server';
import type { RequestContext } from '../platform/graphql/request-context';
import { assertGraphqlBounds } from './graphql-bounds';
import { idempotencyKeyOf } from './idempotent-requests';
import type { Endpoint, Exchange } from './exchange';

const GRAPHQL_PATH = '/graphql';
/** Probes and scrapers: reached directly, without a proxy's HTTPS mark. */
const PROBES = new Set(['/healthz', '/readyz', '/metrics']);

/** Is this a request of a probe or a scraper (its path, whatever its query string)? */
export function isProbe(req: IncomingMessage): boolean {
  return PROBES.has(pathOf(req.url as string));
}

export interface EndpointDeps {
  readonly schema: GraphQLSchema;
  readonly routes: readonly CompiledRoute[];
  /** REST routes that stream a file instead of running an operation (attendees.csv); default REST_DOWNLOADS. */
  readonly downloads?: readonly RestDownload[];
  readonly graphql: GraphqlExecution;
  readonly apollo: ApolloServer<RequestContext>;
  /** Everything that is neither the REST table nor /graphql (health, metrics, docs, the dashboard, 404). */
  readonly publicEndpoints: (req: IncomingMessage, res: ServerResponse) => void;
  /** The explorer's assets are served under /graphql/… when GRAPHQL_EXPLORER is graphiql. */
  readonly explorerAssets: boolean;
}

/** A REST path pattern as a matcher: `:name` segments capture, one trailing slash is allowed (Express's `strict: false`). */
interface PathPattern {
  readonly path: string;
  readonly regex: RegExp;
  readonly names: readonly string[];
  /** The endpoint of each method the path has. */
  readonly endpoints: ReadonlyMap<string, Endpoint>;
  readonly allow: readonly string[];
}

function patternsOf(routes: ReadonlyArray<{ readonly path: string; readonly method: string; readonly endpoint: Endpoint }>): PathPattern[] {
  const byPath = new Map<string, Array<{ method: string; endpoint: Endpoint }>>();
  for (const { path, method, endpoint } of routes) byPath.set(path, [...(byPath.get(path) ?? []), { method, endpoint }]);
  return [...byPath].map(([path, entries]) => {
    const names: string[] = [];
    const source = path
      .split('/')
      .map((segment) => {
        if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        names.push(segment.slice(1));
        return '([^/]+)';
      })
      .join('/');
    const methods = entries.map((entry) => entry.method);
    return {
      path,
      regex: new RegExp(`^${source}/?$`),
      names,
      endpoints: new Map(entries.map((entry) => [entry.method, entry.endpoint])),
      allow: [...methods, ...(methods.includes('GET') ? ['HEAD'] : []), 'OPTIONS'],
    };
  });
}

/**
 * A route whose answer is its resource as the module presents it (`answerIsResource`): the status and
 * headers sendJson and the Location give that answer, for a change that stores it with itself.
 */
function resourceAnswerOf(route: CompiledRoute): ResourceAnswer | undefined {
  if (!route.answerIsResource) return undefined;
  const { status, location } = route;
  return (resource) => ({
    status,
    headers: { 'content-type': JSON_CONTENT_TYPE, ...(location ? { location: location(resource) } : {}) },
    body: resource,
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The pipeline's route step (src/http/pipeline.ts): which endpoint a request reached. Each REST route
 * table entry runs its GraphQL operation; /graphql runs the GraphQL door; anything else is a public
 * endpoint. Only the URL and the method decide, never another header.
 */
export function endpointRouter(deps: EndpointDeps): (exchange: Exchange) => Endpoint {
  const { schema, graphql, apollo } = deps;
  /** The mutations whose answer is a resource as its module presents it (as their REST routes declare). */
  const resourceFields = new Set(deps.routes.flatMap((route) => (route.answerIsResource && route.result ? [route.result] : [])));

  function restEndpoint(route: CompiledRoute): Endpoint {
    const write = route.method !== 'GET';
    const resourceAnswer = resourceAnswerOf(route);
    return {
      door: 'rest',
      route: route.path,
      operation: route.operation,
      caller: 'key',
      readOnly: write ? undefined : readsOnly,
      readBody: route.body ? (x) => readJsonBody(x.req, x.res) : undefined,
      idempotency: write
        ? (x) => {
            const key = idempotencyKeyOf(x.req.headers);
            if (key === undefined) return undefined;
            return { key, parts: { method: route.method, path: pathOf(x.req.url as string), body: x.body ?? null }, resourceAnswer };
          }
        : undefined,
      async execute(x) {
        const result = await runRoute(schema, route, { params: x.params, query: x.query, body: x.body }, x.context());
        if (route.status === 204) {
          x.res.statusCode = 204;
          x.res.end();
          return;
        }
        if (route.location) x.res.setHeader('Location', route.location(result as Record<string, unknown>));
        sendJson(x.res, route.status, result);
      },
    };
  }

  function restPathEndpoint(pattern: PathPattern, method: string): Endpoint {
    // OPTIONS lists the methods; any other method is 405 with the same list. Neither needs a key.
    return {
      door: 'rest',
      route: pattern.path,
      caller: 'none',
      execute(x) {
        x.res.setHeader('Allow', pattern.allow.join(', '));
        if (method !== 'OPTIONS') throw AppError.methodNotAllowed(method, [...pattern.allow]);
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
          resourceAnswer: graphql.resourceAnswer(x.req, body, resourceFields),
        };
      },
      execute: (x) => graphql.answer(x.req, x.res, x.body, x.context()),
  };

  /** GraphiQL (or Apollo's landing page) for a browser's GET /graphql: a static page, no key. */
  const landingPage: Endpoint = {
    door: 'graphql',
    route: GRAPHQL_PATH,
    caller: 'none',
    execute: (x: Exchange) =>
      answerByApollo(apollo, x.req, x.res, undefined, () => Promise.reject(new Error('the landing page runs no operation: it has no request context'))),
  };

  const publicEndpoint: Endpoint = {
    door: undefined,
    route: 'unmatched',
    caller: 'none',
    execute: (x) => {
      // Express (src/app.ts) routes it; what the pipeline knows comes along on res.locals.
      Object.assign(x.res, { locals: { requestId: x.requestId, get logger() { return x.logger; } } });
      deps.publicEndpoints(x.req, x.res);
    },
  };

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

  const patterns = patternsOf([
    ...deps.routes.map((route) => ({ path: route.path, method: route.method, endpoint: restEndpoint(route) })),
    ...(deps.downloads ?? REST_DOWNLOADS).map((download) => ({ path: download.path, method: download.method, endpoint: downloadEndpoint(download) })),
  ]);
  const pathEndpoints = new Map(patterns.map((pattern) => [pattern, new Map<string, Endpoint>()]));

  return (x) => {
    const { req } = x;
    const url = req.url as string;
    const queryAt = url.indexOf('?');
    const pathname = queryAt === -1 ? url : url.slice(0, queryAt);
    const method = req.method as string;
    // Express's "simple" query parser was node:querystring: the same values as before.
    if (queryAt !== -1) x.query = parseQueryString(url.slice(queryAt + 1));

    if (pathname === GRAPHQL_PATH || (pathname.startsWith(`${GRAPHQL_PATH}/`) && !(deps.explorerAssets && pathname.startsWith(`${EXPLORER_ASSETS_PATH}/`)))) {
      const browser = method === 'GET' && x.query.query === undefined && prefersHtml(req.headers.accept);
      return browser ? landingPage : graphqlEndpoint;
    }
    for (const pattern of patterns) {
      const match = pattern.regex.exec(pathname);
      if (!match) continue;
      const endpoint = pattern.endpoints.get(method === 'HEAD' ? 'GET' : method);
      if (!endpoint) {
        const byMethod = pathEndpoints.get(pattern)!;
        let other = byMethod.get(method);
        if (other === undefined) {
          other = restPathEndpoint(pattern, method);
          // Methods are few and known; anything else gets its endpoint made each time (no unbounded map).
          if (byMethod.size < 16) byMethod.set(method, other);
        }
        return other;
      }
      if (pattern.names.length > 0) {
        const params: Record<string, string> = {};
        // A malformed %-escape is the client's: the URIError is answered as 400 on field "path".
        pattern.names.forEach((name, index) => (params[name] = decodeURIComponent(match[index + 1])));
        x.params = params;
      }
      return endpoint;
    }
    return publicEndpoint;
  };
}

/** An endpoint that only reads (REST GET routes and downloads). */
const readsOnly = (): boolean => true;

/** The path of a URL, without its query string. */
function pathOf(url: string): string {
  const queryAt = url.indexOf('?');
  return queryAt === -1 ? url : url.slice(0, queryAt);
}

/** The quality an Accept header gives a media type: its own entry, else its type's wildcard, else any. */
function qualityOf(entries: ReadonlyMap<string, number>, type: string): number {
  return entries.get(type) ?? entries.get(`${type.split('/')[0]}/*`) ?? entries.get('*/*') ?? 0;
}

/**
 * Does this Accept header prefer HTML to JSON? As Express's req.accepts(['application/json', 'text/html']):
 * the better quality wins, a tie goes to JSON (listed first), and no header means JSON.
 */
function prefersHtml(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  const entries = new Map<string, number>();
  for (const part of accept.split(',')) {
    const [type, ...parameters] = part.trim().toLowerCase().split(';');
    const q = parameters.map((parameter) => parameter.trim()).find((parameter) => parameter.startsWith('q='));
    const quality = q === undefined ? 1 : Number(q.slice(2));
    if (type) entries.set(type.trim(), Math.max(entries.get(type.trim()) ?? 0, Number.isFinite(quality) ? quality : 0));
  }
  const html = qualityOf(entries, 'text/html');
  return html > 0 && html > qualityOf(entries, 'application/json');
}
