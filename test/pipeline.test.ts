import { ApolloServer, type BaseContext } from '@apollo/server';
import { FINISHING_STEPS, PIPELINE_STEPS, type Exchange, type StepName } from '../src/http/exchange';
import { OrganizationEntity, OrganizationPlan, RestrictionMode } from '../src/modules/organization/organization.entity';
import { bookingInput, createPublishedEvent, CREATE_BOOKING } from './helpers/bookings';
import { createApiKey, createOrganization, createTenant, eventInput } from './helpers/factories';
import type { HttpResponse } from './helpers/https-client';
import { insertEvents } from './helpers/event-rows';
import { startTestApp, type TestApp } from './helpers/test-app';

// One request pipeline. Every request takes the steps of src/http/pipeline.ts in their one order,
// whatever its headers; the doors come in only as endpoints. Every GraphQL request is executed by
// Apollo, once: a repeated document and one Apollo has not seen answer alike (status, body byte for
// byte, headers), so each GraphQL case is sent both ways and compared.

/** The steps of the requests finished since the last call, in the order they finished. */
const finished: Array<{ method: string; url: string; steps: StepName[] }> = [];
const takeSteps = () => finished.splice(0, finished.length);
const record = (exchange: Exchange) => finished.push({ method: exchange.req.method as string, url: exchange.req.url as string, steps: [...exchange.steps] });

let app: TestApp;
let key: string;
let readOnlyKey: string;
let writeOnlyKey: string;
let slug: string;

beforeAll(async () => {
  app = await startTestApp({ LOG_LEVEL: 'info' }, { hooks: { onRequestFinished: record } });
  const tenant = await createTenant(app.orm);
  key = tenant.key;
  readOnlyKey = (await createApiKey(app.orm, tenant.organization.id, { permissions: ['events:read'] })).key;
  writeOnlyKey = (await createApiKey(app.orm, tenant.organization.id, { permissions: ['events:write'] })).key;
  const events = await insertEvents(app.orm, tenant.organization.id, 30, { ticketTypesEach: 2 });
  slug = events[0].slug;
});
afterAll(() => app.close());

/** Headers that differ between any two requests, whoever answers them. */
const PER_REQUEST = new Set(['x-request-id', 'date', 'ratelimit-remaining', 'ratelimit-reset', 'connection', 'keep-alive']);

function comparable(response: HttpResponse) {
  const headers = Object.fromEntries(Object.entries(response.headers).filter(([name]) => !PER_REQUEST.has(name)));
  // An INTERNAL_ERROR carries its own request's id.
  return { status: response.status, headers, text: response.text.replace(/"requestId":"[^"]+"/g, '"requestId":"…"') };
}

type Send = (extraHeaders: Record<string, string>) => Promise<HttpResponse>;

// Counts the requests Apollo executes.
let apolloExecuted = 0;
const originalExecute = ApolloServer.prototype.executeHTTPGraphQLRequest;
ApolloServer.prototype.executeHTTPGraphQLRequest = function executeHTTPGraphQLRequest(this: ApolloServer<BaseContext>, ...args) {
  apolloExecuted += 1;
  return originalExecute.apply(this, args);
};

/**
 * The answer to the same GraphQL request as it is (after a first sight, which fills Apollo's document
 * cache), and with `extensions: {}`; and how many times Apollo executed the repeated one.
 */
async function bothWays(body: unknown, withKey: string | null = key) {
  await graphql(body, withKey)({});
  const before = apolloExecuted;
  const compiled = comparable(await graphql(body, withKey)({}));
  const viaApollo = apolloExecuted - before;
  const isObject = body !== null && typeof body === 'object' && !Array.isArray(body);
  const apollo = comparable(await graphql(isObject ? { ...body, extensions: {} } : body, withKey)({}));
  return { compiled, apollo, viaApollo };
}

/** Every step, then the records: what a request that runs to the end takes. */
const ALL_STEPS: StepName[] = [...PIPELINE_STEPS, ...FINISHING_STEPS.filter((step) => step !== 'map-errors')];

// Changes legitimately when the pipeline's steps (PIPELINE_STEPS, src/http/exchange.ts) or where a request may end early are changed on purpose; a step that some headers skip or add is the regression.
describe('contract guard: every request takes the same steps, whatever its headers', () => {
  test('a read with and without Idempotency-Key, a cookie, conditional headers or an Origin', async () => {
    takeSteps();
    const variants: Array<Record<string, string>> = [
      {},
      { 'idempotency-key': 'read-1' },
      { cookie: 'unrelated=1' },
      { 'if-none-match': '"x"', 'if-modified-since': new Date().toUTCString() },
      { origin: 'https://example.com' },
      { range: 'bytes=0-10' },
    ];
    for (const headers of variants) {
      const response = await app.client.request('GET', `/v1/events/${slug}`, { headers: { authorization: `Bearer ${key}`, ...headers } });
      expect(response.status).toBe(200);
    }
    const steps = takeSteps();
    expect(steps).toHaveLength(variants.length);
    for (const request of steps) expect(request.steps).toEqual(ALL_STEPS);
  });

  test('a create and a booking with an Idempotency-Key take the steps of the same ones without', async () => {
    const event = await createPublishedEvent(app.client, key, { capacity: 10 });
    takeSteps();
    const create = (headers: Record<string, string>) =>
      app.client.request('POST', '/v1/events', { json: eventInput(), headers: { authorization: `Bearer ${key}`, ...headers } });
    const book = (headers: Record<string, string>) =>
      app.client.request('POST', '/graphql', {
        json: { query: CREATE_BOOKING, variables: { input: bookingInput(event.slug) } },
        headers: { authorization: `Bearer ${key}`, ...headers },
      });
    expect((await create({})).status).toBe(201);
    expect((await create({ 'idempotency-key': `create-${Date.now()}` })).status).toBe(201);
    expect((await book({})).body.data.createBooking.status).toBe('CONFIRMED');
    expect((await book({ 'idempotency-key': `book-${Date.now()}` })).body.data.createBooking.status).toBe('CONFIRMED');
    const steps = takeSteps();
    expect(steps.map(({ method, url }) => `${method} ${url}`)).toEqual(['POST /v1/events', 'POST /v1/events', 'POST /graphql', 'POST /graphql']);
    for (const request of steps) expect(request.steps).toEqual(ALL_STEPS);
  });

  test('a replayed answer is decided at the idempotency step (the edge) and is no failure; a refused key ends at authentication', async () => {
    const idempotencyKey = `replay-${Date.now()}`;
    const input = eventInput();
    const send = () => app.client.request('POST', '/v1/events', { json: input, headers: { authorization: `Bearer ${key}`, 'idempotency-key': idempotencyKey } });
    expect((await send()).status).toBe(201);
    takeSteps();
    const replay = await send();
    expect(replay.headers['idempotent-replayed']).toBe('true');
    const unknownKey = await app.client.request('GET', '/v1/events', { headers: { authorization: `Bearer nk_test_${'a'.repeat(32)}` } });
    expect(unknownKey.status).toBe(401);
    const [replayed, refused] = takeSteps();
    const upTo = (last: StepName) => PIPELINE_STEPS.slice(0, PIPELINE_STEPS.indexOf(last as (typeof PIPELINE_STEPS)[number]) + 1);
    // The key is claimed before the operation runs (D17): a retry is answered there, by the stored
    // answer, and runs nothing.
    expect(replayed.steps).toEqual([...upTo('idempotency'), 'usage', 'metrics', 'access-log']);
    expect(refused.steps).toEqual([...upTo('authenticate'), ...FINISHING_STEPS]);
  });

  test('a repeated query, a new one and a public page take the same steps', async () => {
    const query = { query: EVENTS_QUERY, variables: { limit: 1 } };
    await graphql(query)({}); // the first sight of a document fills Apollo's cache
    takeSteps();
    expect((await graphql(query)({})).status).toBe(200);
    expect((await graphql({ ...query, extensions: {} })({})).status).toBe(200);
    expect((await app.client.request('GET', '/healthz')).status).toBe(200);
    const steps = takeSteps();
    expect(steps).toHaveLength(3);
    for (const request of steps) expect(request.steps).toEqual(ALL_STEPS);
  });
});

const graphql = (body: unknown, withKey: string | null = key): Send => (headers) =>
  app.client.request('POST', '/graphql', { json: body, headers: { ...(withKey === null ? {} : { authorization: `Bearer ${withKey}` }), ...headers } });

const EVENT_QUERY = 'query Event($slug: String!) { event(slug: $slug) { id slug title startDate status ticketTypes { id name price quantity sold } } }';
const EVENTS_QUERY = 'query Events($page: Int, $limit: Int) { events(page: $page, limit: $limit) { total page limit events { id slug title startDate endDate } } }';

describe('GraphQL: one executor, the same answer for a repeated document', () => {
  test.each<[string, () => unknown, 'all' | 'readOnly' | 'writeOnly']>([
    ['an event with its ticket types', () => ({ query: EVENT_QUERY, variables: { slug } }), 'all'],
    ['a page of events', () => ({ query: EVENTS_QUERY, variables: { page: 1, limit: 20 } }), 'all'],
    ['no variables, operation named', () => ({ query: '{ events(limit: 2) { total events { slug } } }', operationName: null, variables: null }), 'all'],
    ['an error raised mid-execution (missing event)', () => ({ query: EVENT_QUERY, variables: { slug: 'no-such-event' } }), 'all'],
    ['errors mid-execution next to data', () => ({ query: '{ events(limit: 2) { total } event(slug: "nope") { id } }' }), 'all'],
    ['a field the key may not read, on every item', () => ({ query: '{ events(limit: 3) { events { slug bookings { total } } } }' }), 'readOnly'],
    ['a root field the key may not call (403)', () => ({ query: EVENTS_QUERY, variables: { limit: 2 } }), 'writeOnly'],
    ['an argument out of range (400)', () => ({ query: EVENTS_QUERY, variables: { limit: 0 } }), 'all'],
    ['a variable of the wrong type', () => ({ query: EVENTS_QUERY, variables: { limit: 'many' } }), 'all'],
    ['a missing required variable', () => ({ query: EVENT_QUERY, variables: {} }), 'all'],
    ['a query too costly (400)', () => ({ query: '{ events(limit: 100) { events { ticketTypes { id name price currency quantity sold } bookings(limit: 100) { bookings { id } } } } }' }), 'all'],
    ['a validation error (unknown field)', () => ({ query: '{ events { nope } }' }), 'all'],
    ['a syntax error', () => ({ query: '{ events { ' }), 'all'],
    ['a mutation (left to Apollo)', () => ({ query: 'mutation { deleteEvent(slug: "no-such-event") }' }), 'all'],
    ['two operations, one chosen', () => ({ query: `${EVENTS_QUERY} query Other { events(limit: 1) { total } }`, operationName: 'Other' }), 'all'],
    ['two operations, none chosen', () => ({ query: `${EVENTS_QUERY} query Other { events(limit: 1) { total } }` }), 'all'],
    ['an unknown operation name', () => ({ query: EVENTS_QUERY, operationName: 'Nope' }), 'all'],
    ['variables as a string', () => ({ query: EVENTS_QUERY, variables: '{"limit":1}' }), 'all'],
    ['no query at all', () => ({ variables: {} }), 'all'],
    ['a JSON array', () => [{ query: EVENTS_QUERY }], 'all'],
  ])('%s', async (_name, body, which) => {
    const withKey = which === 'readOnly' ? readOnlyKey : which === 'writeOnly' ? writeOnlyKey : key;
    const { compiled, apollo: reference } = await bothWays(body(), withKey);
    expect(compiled).toEqual(reference);
    // The same answer is also a right one: client mistakes are 4xx, never a server error.
    expect(reference.status).toBeLessThan(500);
  });

  // Changes legitimately only if GraphQL is given another executor by design; executing a request twice is what made refusals slow.
  test('performance guard: every request, hot or refused, is executed by Apollo exactly once', async () => {
    const bodies = [
      { query: EVENT_QUERY, variables: { slug } },
      { query: EVENTS_QUERY, variables: { page: 1, limit: 20 } },
      { query: EVENT_QUERY, variables: { slug: 'no-such-event' } },
    ];
    for (const body of bodies) {
      const { viaApollo, compiled } = await bothWays(body);
      expect(viaApollo).toBe(1);
      expect(compiled.status).toBeLessThan(500);
    }
  });

  test('no key and a bad key: 401 in the GraphQL shape', async () => {
    for (const withKey of [null, 'nope']) {
      const { compiled, apollo: reference } = await bothWays({ query: EVENTS_QUERY }, withKey);
      expect(compiled).toEqual(reference);
      expect(compiled.status).toBe(401);
    }
  });

  test('a body that is not JSON, and an empty one: 400 in the GraphQL shape', async () => {
    for (const raw of ['{"query": ', '']) {
      const response = await app.client.request('POST', '/graphql', { raw, headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` } });
      expect(response.status).toBe(400);
      expect(response.body.errors[0].extensions.code).toEqual(expect.any(String));
    }
  });
});

test('the access log names the route and operation the same way for every request', async () => {
  const lines = () => app.logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.msg === 'request');
  const seen = lines().length;
  await bothWays({ query: EVENTS_QUERY, variables: { limit: 1 } });
  await app.client.request('GET', `/v1/events/${slug}`, { headers: { authorization: `Bearer ${key}` } });
  const fresh = lines()
    .slice(seen)
    .map(({ method, url, route, operation, status }) => ({ method, url, route, operation, status }));
  // The query was sent three times (first sight, repeated, with extensions): the three lines agree.
  expect(fresh).toHaveLength(4);
  expect(fresh[1]).toEqual(fresh[0]);
  expect(fresh[2]).toEqual(fresh[0]);
  expect(fresh[0]).toEqual({ method: 'POST', url: '/graphql', route: '/graphql', operation: 'Events', status: 200 });
  expect(fresh[3]).toEqual({ method: 'GET', url: `/v1/events/${slug}`, route: '/v1/events/:slug', operation: 'GetEvent', status: 200 });
});

describe('behind a proxy (TRUST_PROXY): the client address and scheme are read as Express reads them (proxy-addr, one hop)', () => {
  let proxied: TestApp;
  let strictKey: string;
  beforeAll(async () => {
    proxied = await startTestApp({ TRUST_PROXY: 'true' });
    const organization = await createOrganization(proxied.orm, { plan: OrganizationPlan.ENTERPRISE });
    strictKey = (await createApiKey(proxied.orm, organization.id)).key;
    await proxied.orm.em.fork().nativeUpdate(
      OrganizationEntity,
      { id: organization.id },
      { allowedIps: ['203.0.113.0/24', '2001:db8::/32'], restrictionMode: RestrictionMode.STRICT },
    );
  });
  afterAll(() => proxied.close());

  test.each<[string, Record<string, string>, number, string | undefined]>([
    ['an allowed client', { 'x-forwarded-for': '203.0.113.7', 'x-forwarded-proto': 'https' }, 200, undefined],
    ['a refused client (403 naming its address)', { 'x-forwarded-for': '10.0.0.1', 'x-forwarded-proto': 'https' }, 403, 'IP_NOT_ALLOWED'],
    ['the last entry counts (allowed)', { 'x-forwarded-for': '10.0.0.1, 203.0.113.9', 'x-forwarded-proto': 'https' }, 200, undefined],
    ['the last entry counts (refused)', { 'x-forwarded-for': '203.0.113.9,10.0.0.2', 'x-forwarded-proto': 'https' }, 403, 'IP_NOT_ALLOWED'],
    ['spaces and empty entries', { 'x-forwarded-for': ' 10.0.0.1 ,  203.0.113.10 , ,', 'x-forwarded-proto': 'https' }, 200, undefined],
    ['an IPv4-mapped IPv6 client', { 'x-forwarded-for': '::ffff:203.0.113.11', 'x-forwarded-proto': 'https' }, 200, undefined],
    ['an IPv6 client', { 'x-forwarded-for': '2001:db8::1', 'x-forwarded-proto': 'https' }, 200, undefined],
    ['no X-Forwarded-For (the socket address)', { 'x-forwarded-proto': 'https' }, 403, 'IP_NOT_ALLOWED'],
    ['not a valid address', { 'x-forwarded-for': 'nonsense', 'x-forwarded-proto': 'https' }, 403, 'IP_NOT_ALLOWED'],
    ['the proxy did not say https (403)', { 'x-forwarded-for': '203.0.113.7' }, 403, 'HTTPS_REQUIRED'],
    ['the proxy said http (403)', { 'x-forwarded-for': '203.0.113.7', 'x-forwarded-proto': 'http' }, 403, 'HTTPS_REQUIRED'],
  ])('%s', async (_name, forwarded, status, code) => {
    const response = await proxied.client.request('GET', '/v1/events?limit=1', { headers: { authorization: `Bearer ${strictKey}`, ...forwarded } });
    expect(response.status).toBe(status);
    expect(response.body.error?.code).toBe(code);
    // The same request with a cookie takes the same road and gets the same answer.
    const withCookie = await proxied.client.request('GET', '/v1/events?limit=1', { headers: { authorization: `Bearer ${strictKey}`, cookie: 'unrelated=1', ...forwarded } });
    expect(comparable(withCookie)).toEqual(comparable(response));
  });
});
