import express from 'express';
import { OrganizationEntity, OrganizationPlan, RestrictionMode } from '../src/modules/organization/organization.entity';
import { createApiKey, createOrganization, createTenant } from './helpers/factories';
import type { HttpResponse } from './helpers/https-client';
import { insertEvents } from './helpers/event-rows';
import { startTestApp, type TestApp } from './helpers/test-app';

// Issue 8: the fast lane (src/http/fast-lane.ts, src/doors/graphql/graphql-lane.ts) answers the hot requests
// without Express and Apollo's pipeline. What a client sees must be what Express and Apollo answer:
// the same status, the same body byte for byte, the same headers (those that change per request
// aside). A request carrying an unrelated cookie takes the Express path (the lane leaves cookies to
// it) and is otherwise the same request: each case is sent both ways and compared.

// Counts the requests Express handles (the app copies `handle` from express.application when made).
let expressHandled = 0;
const originalHandle = (express.application as unknown as { handle: (...args: unknown[]) => unknown }).handle;
(express.application as unknown as { handle: (...args: unknown[]) => unknown }).handle = function handle(this: unknown, ...args: unknown[]) {
  expressHandled += 1;
  return originalHandle.apply(this, args);
};

let app: TestApp;
let key: string;
let readOnlyKey: string;
let writeOnlyKey: string;
let slug: string;

beforeAll(async () => {
  app = await startTestApp({ LOG_LEVEL: 'info' });
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

/** The answer of the lane (asserting Express did not see it) and of Express, for the same request. */
async function bothWays(send: Send): Promise<{ lane: ReturnType<typeof comparable>; express: ReturnType<typeof comparable>; viaExpress: number }> {
  await send({}); // the lane learns a GraphQL document the first time it sees it
  const before = expressHandled;
  const lane = await send({});
  const viaExpress = expressHandled - before;
  const reference = await send({ cookie: 'unrelated=1' });
  expect(expressHandled - before).toBe(viaExpress + 1);
  expect(lane.headers['x-request-id']).toEqual(expect.any(String));
  return { lane: comparable(lane), express: comparable(reference), viaExpress };
}

const rest = (path: string, withKey: string | null = key): Send => (headers) =>
  app.client.request('GET', path, { headers: { ...(withKey === null ? {} : { authorization: `Bearer ${withKey}` }), ...headers } });

const graphql = (body: unknown, withKey: string | null = key): Send => (headers) =>
  app.client.request('POST', '/graphql', { json: body, headers: { ...(withKey === null ? {} : { authorization: `Bearer ${withKey}` }), ...headers } });

const EVENT_QUERY = 'query Event($slug: String!) { event(slug: $slug) { id slug title startDate status ticketTypes { id name price quantity sold } } }';
const EVENTS_QUERY = 'query Events($page: Int, $limit: Int) { events(page: $page, limit: $limit) { total page limit events { id slug title startDate endDate } } }';

describe('REST: the lane answers as Express does', () => {
  test.each<[string, () => Send]>([
    ['an event', () => rest(`/v1/events/${slug}`)],
    ['a missing event (404)', () => rest('/v1/events/no-such-event')],
    ['a list page', () => rest('/v1/events?page=2&limit=5')],
    ['the default list', () => rest('/v1/events')],
    ['a filtered, ordered list', () => rest('/v1/events?status=DRAFT&orderBy=START_DATE_ASC&search=ROW&limit=3')],
    ['a list with a limit out of range (400)', () => rest('/v1/events?limit=0')],
    ['a list with a repeated parameter (400)', () => rest('/v1/events?limit=1&limit=2')],
    ['no key (401)', () => rest(`/v1/events/${slug}`, null)],
    ['a key in the query string (401)', () => rest('/v1/events?api_key=nk_test_abc', null)],
    ['a malformed key (401)', () => rest(`/v1/events/${slug}`, 'nope')],
    ['a well-formed unknown key (401)', () => rest(`/v1/events/${slug}`, `nk_test_${'a'.repeat(32)}`)],
    ['a key without events:read (403)', () => rest(`/v1/events/${slug}`, writeOnlyKey)],
  ])('%s', async (_name, send) => {
    const { lane, express: reference, viaExpress } = await bothWays(send());
    expect(viaExpress).toBe(0);
    expect(lane).toEqual(reference);
  });
});

describe('GraphQL: the lane answers as Apollo does', () => {
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
    const { lane, express: reference } = await bothWays(graphql(body(), withKey));
    expect(lane).toEqual(reference);
    // The same answer is also a right one: client mistakes are 4xx, never a server error.
    expect(reference.status).toBeLessThan(500);
  });

  test('the hot documents never reach Express once known', async () => {
    for (const body of [{ query: EVENT_QUERY, variables: { slug } }, { query: EVENTS_QUERY, variables: { page: 1, limit: 20 } }]) {
      const { viaExpress, lane } = await bothWays(graphql(body));
      expect(viaExpress).toBe(0);
      expect(lane.status).toBe(200);
    }
  });

  test('no key and a bad key: 401 in the GraphQL shape', async () => {
    for (const withKey of [null, 'nope']) {
      const { lane, express: reference } = await bothWays(graphql({ query: EVENTS_QUERY }, withKey));
      expect(lane).toEqual(reference);
      expect(lane.status).toBe(401);
    }
  });

  test('a body that is not JSON, and an empty one', async () => {
    for (const raw of ['{"query": ', '']) {
      const send: Send = (headers) =>
        app.client.request('POST', '/graphql', { raw, headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers } });
      const { lane, express: reference } = await bothWays(send);
      expect(lane).toEqual(reference);
      expect(lane.status).toBe(400);
    }
  });
});

test('the access log names the route and operation the same way on both paths', async () => {
  const lines = () => app.logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.msg === 'request');
  const seen = lines().length;
  await bothWays(graphql({ query: EVENTS_QUERY, variables: { limit: 1 } }));
  await bothWays(rest(`/v1/events/${slug}`));
  const fresh = lines()
    .slice(seen)
    .map(({ method, url, route, operation, status }) => ({ method, url, route, operation, status }));
  // Each request was sent three times (learn, lane, Express): the three lines agree.
  expect(fresh).toHaveLength(6);
  expect(fresh[1]).toEqual(fresh[0]);
  expect(fresh[2]).toEqual(fresh[0]);
  expect(fresh[0]).toEqual({ method: 'POST', url: '/graphql', route: '/graphql', operation: 'Events', status: 200 });
  expect(fresh[4]).toEqual(fresh[3]);
  expect(fresh[5]).toEqual(fresh[3]);
  expect(fresh[3]).toEqual({ method: 'GET', url: `/v1/events/${slug}`, route: '/v1/events/:slug', operation: 'GetEvent', status: 200 });
});

describe('behind a proxy (TRUST_PROXY): the client address and scheme are read as Express reads them', () => {
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

  test.each<[string, Record<string, string>]>([
    ['an allowed client', { 'x-forwarded-for': '203.0.113.7', 'x-forwarded-proto': 'https' }],
    ['a refused client (403 naming its address)', { 'x-forwarded-for': '10.0.0.1', 'x-forwarded-proto': 'https' }],
    ['the last entry counts (allowed)', { 'x-forwarded-for': '10.0.0.1, 203.0.113.9', 'x-forwarded-proto': 'https' }],
    ['the last entry counts (refused)', { 'x-forwarded-for': '203.0.113.9,10.0.0.2', 'x-forwarded-proto': 'https' }],
    ['spaces and empty entries', { 'x-forwarded-for': ' 10.0.0.1 ,  203.0.113.10 , ,', 'x-forwarded-proto': 'https' }],
    ['an IPv4-mapped IPv6 client', { 'x-forwarded-for': '::ffff:203.0.113.11', 'x-forwarded-proto': 'https' }],
    ['an IPv6 client', { 'x-forwarded-for': '2001:db8::1', 'x-forwarded-proto': 'https' }],
    ['no X-Forwarded-For (the socket address)', { 'x-forwarded-proto': 'https' }],
    ['not a valid address', { 'x-forwarded-for': 'nonsense', 'x-forwarded-proto': 'https' }],
    ['the proxy did not say https (403)', { 'x-forwarded-for': '203.0.113.7' }],
    ['the proxy said http (403)', { 'x-forwarded-for': '203.0.113.7', 'x-forwarded-proto': 'http' }],
  ])('%s', async (_name, forwarded) => {
    const send: Send = (headers) =>
      proxied.client.request('GET', '/v1/events?limit=1', { headers: { authorization: `Bearer ${strictKey}`, ...forwarded, ...headers } });
    const before = expressHandled;
    const lane = comparable(await send({}));
    // Requests the proxy marked as HTTPS are the lane's; the others are refused by Express.
    expect(expressHandled - before).toBe(forwarded['x-forwarded-proto'] === 'https' ? 0 : 1);
    const reference = comparable(await send({ cookie: 'unrelated=1' }));
    expect(lane).toEqual(reference);
  });
});
