import { ApolloServer, type BaseContext } from '@apollo/server';
import { createApiKey } from './helpers/factories';
import type { HttpResponse } from './helpers/https-client';
import { useTestApp } from './helpers/use-test-app';

// The same GraphQL request answers the same HTTP status and media type whoever answers it (Apollo,
// the door's own refusals, the pipeline's errors),
// GET or POST, for both media types of GraphQL over HTTP (docs/auth-and-errors.md, "GraphQL over HTTP").

const ctx = useTestApp({}, { tenant: true });
let writeOnlyKey: string;
beforeAll(async () => {
  writeOnlyKey = (await createApiKey(ctx.app.orm, ctx.organizationId, { permissions: ['events:write'] })).key;
});

// Counts the requests Apollo executes (the door's own refusals never call it).
let apolloExecuted = 0;
const originalExecute = ApolloServer.prototype.executeHTTPGraphQLRequest;
beforeAll(() => {
  ApolloServer.prototype.executeHTTPGraphQLRequest = function executeHTTPGraphQLRequest(this: ApolloServer<BaseContext>, ...args) {
    apolloExecuted += 1;
    return originalExecute.apply(this, args);
  };
});
afterAll(() => {
  ApolloServer.prototype.executeHTTPGraphQLRequest = originalExecute;
});

const FULL_PAGE = 'events(limit: 100) { events { id slug title description startDate endDate status capacity ticketTypes { id name price currency quantity sold } } }';

type Caller = 'key' | 'none' | 'writeOnly';
interface Case {
  readonly query: string;
  readonly operationName?: string;
  readonly caller: Caller;
  readonly status: number;
  /** The code of the first error (none: no errors). */
  readonly code?: string;
  /** Is `data` in the answer? */
  readonly data: boolean;
}

const CASES: Record<string, Case> = {
  success: { query: 'query Total { events { total } }', caller: 'key', status: 200, data: true },
  'an empty operationName (an absent one)': { query: 'query Total { events { total } }', operationName: '', caller: 'key', status: 200, data: true },
  'a business error (EVENT_NOT_FOUND next to data)': { query: '{ event(slug: "no-such-event") { id } events { total } }', caller: 'key', status: 200, code: 'EVENT_NOT_FOUND', data: true },
  'a parse error': { query: '{ events { total ', caller: 'key', status: 400, code: 'GRAPHQL_PARSE_FAILED', data: false },
  'a validation error': { query: '{ events { nope } }', caller: 'key', status: 400, code: 'GRAPHQL_VALIDATION_FAILED', data: false },
  'an unknown operation name': { query: 'query Total { events { total } }', operationName: 'Nope', caller: 'key', status: 400, code: 'OPERATION_RESOLUTION_FAILURE', data: false },
  'an argument out of range': { query: '{ events(limit: 0) { total } }', caller: 'key', status: 400, code: 'VALIDATION_ERROR', data: false },
  'a limit refusal (cost)': { query: `{ a: ${FULL_PAGE} b: ${FULL_PAGE} c: ${FULL_PAGE} d: ${FULL_PAGE} }`, caller: 'key', status: 400, code: 'QUERY_TOO_COMPLEX', data: false },
  'no key (authentication)': { query: '{ events { total } }', caller: 'none', status: 401, code: 'UNAUTHORIZED', data: false },
  'a root field the key may not call (authorization)': { query: '{ events { total } }', caller: 'writeOnly', status: 403, code: 'FORBIDDEN', data: false },
};

const ACCEPTS = {
  'application/json': 'application/json; charset=utf-8',
  'application/graphql-response+json': 'application/graphql-response+json; charset=utf-8',
  'application/graphql-response+json, application/json (graphql-request)': 'application/graphql-response+json; charset=utf-8',
  'no Accept header': 'application/json; charset=utf-8',
} as const;
const ACCEPT_HEADER: Record<keyof typeof ACCEPTS, string | undefined> = {
  'application/json': 'application/json',
  'application/graphql-response+json': 'application/graphql-response+json',
  'application/graphql-response+json, application/json (graphql-request)': 'application/graphql-response+json, application/json',
  'no Accept header': undefined,
};

function headersFor(caller: Caller, accept: string | undefined): Record<string, string> {
  const authorization = caller === 'key' ? ctx.key : caller === 'writeOnly' ? writeOnlyKey : undefined;
  return { ...(authorization ? { authorization: `Bearer ${authorization}` } : {}), ...(accept ? { accept } : {}) };
}

function post(one: Case, accept: string | undefined, extra: Record<string, unknown> = {}): Promise<HttpResponse> {
  const body = { query: one.query, ...(one.operationName === undefined ? {} : { operationName: one.operationName }), ...extra };
  return ctx.app.client.request('POST', '/graphql', { json: body, headers: headersFor(one.caller, accept) });
}

function get(one: Case, accept: string | undefined): Promise<HttpResponse> {
  const search = new URLSearchParams({ query: one.query, ...(one.operationName === undefined ? {} : { operationName: one.operationName }) });
  return ctx.app.client.request('GET', `/graphql?${search.toString()}`, { headers: { ...headersFor(one.caller, accept), 'apollo-require-preflight': 'true' } });
}

/** What a client sees of an answer, for comparing paths. */
function seen(response: HttpResponse) {
  const body = response.body as { data?: unknown; errors?: Array<{ extensions?: { code?: string } }> };
  return { status: response.status, contentType: response.headers['content-type'], code: body.errors?.[0]?.extensions?.code, data: body.data !== undefined };
}

describe.each(Object.keys(ACCEPTS) as Array<keyof typeof ACCEPTS>)('Accept: %s', (acceptName) => {
  const accept = ACCEPT_HEADER[acceptName];
  const contentType = ACCEPTS[acceptName];

  test.each(Object.keys(CASES))('%s: a repeated POST, a new one and GET answer alike', async (name) => {
    const one = CASES[name];
    await post(one, accept); // the first sight of a document fills Apollo's cache
    const before = apolloExecuted;
    const compiled = seen(await post(one, accept));
    const compiledViaApollo = apolloExecuted - before;
    const apollo = seen(await post(one, accept, { extensions: {} }));
    const overGet = seen(await get(one, accept));
    const expected = { status: one.status, contentType, code: one.code, data: one.data };
    expect({ compiled, apollo, overGet }).toEqual({ compiled: expected, apollo: expected, overGet: expected });
    // One executor: a repeated query is executed by Apollo, once, whatever the media type.
    if (one.status === 200 && one.code === undefined) expect(compiledViaApollo).toBe(1);
  });
});

test('operationName "" never answers 500, first sight or not, over POST and GET (item 2)', async () => {
  const query = `query Named${Date.now()} { events { total } }`;
  for (let round = 0; round < 3; round += 1) {
    const overPost = await ctx.app.client.request('POST', '/graphql', { json: { query, operationName: '' }, headers: { authorization: `Bearer ${ctx.key}` } });
    expect([overPost.status, overPost.body]).toEqual([200, { data: { events: { total: 0 } } }]);
    const overGet = await ctx.app.client.request('GET', `/graphql?query=${encodeURIComponent(query)}&operationName=`, {
      headers: { authorization: `Bearer ${ctx.key}`, 'apollo-require-preflight': 'true' },
    });
    expect([overGet.status, overGet.body]).toEqual([200, { data: { events: { total: 0 } } }]);
  }
  // With two operations an empty name chooses none, as an absent one: 400, never 500.
  const two = 'query A { events { total } } query B { events { total } }';
  const response = await ctx.app.client.request('POST', '/graphql', { json: { query: two, operationName: '' }, headers: { authorization: `Bearer ${ctx.key}` } });
  expect(response.status).toBe(400);
  expect(response.body.errors[0].extensions.code).toBe('OPERATION_RESOLUTION_FAILURE');
  const viaGet = await ctx.app.client.request('GET', `/graphql?query=${encodeURIComponent(two)}&operationName=`, {
    headers: { authorization: `Bearer ${ctx.key}`, 'apollo-require-preflight': 'true' },
  });
  expect(viaGet.status).toBe(400);
});

test('errors answered before the door (a body that is not JSON) are written in the media type asked for', async () => {
  for (const [accept, contentType] of [
    ['application/graphql-response+json', 'application/graphql-response+json; charset=utf-8'],
    ['application/json', 'application/json; charset=utf-8'],
  ]) {
    const response = await ctx.app.client.request('POST', '/graphql', { raw: '{"query": ', headers: { 'content-type': 'application/json', authorization: `Bearer ${ctx.key}`, accept } });
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toBe(contentType);
    expect(response.body.errors[0].extensions.code).toBe('VALIDATION_ERROR');
  }
});

test('the REST facade keeps its statuses and its envelope', async () => {
  const missing = await ctx.app.client.request('GET', '/v1/events/no-such-event', { headers: { authorization: `Bearer ${ctx.key}`, accept: 'application/graphql-response+json' } });
  expect(missing.status).toBe(404);
  expect(missing.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(missing.body.error.code).toBe('EVENT_NOT_FOUND');
  const noKey = await ctx.app.client.request('GET', '/v1/events', { headers: { accept: 'application/graphql-response+json' } });
  expect(noKey.status).toBe(401);
  expect(noKey.body.error.code).toBe('UNAUTHORIZED');
});
