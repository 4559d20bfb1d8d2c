import tls from 'node:tls';
import net from 'node:net';
import { eventInput } from './helpers/factories';
import { DOORS, eventApi, expectValidationError, type Door } from './helpers/event-api';
import { storedEvent, storedEventCount } from './helpers/event-rows';
import { exchange, parseRawResponse } from './helpers/raw-http';
import { useTestApp } from './helpers/use-test-app';

// Regressions a hostile-input run found (defects 1-4 below): each once a 500, a hang or an answer
// without the envelope (D13); now a clear 4xx (or the normal answer) with an X-Request-Id.
const ctx = useTestApp({}, { tenant: true });

let logMark = 0;
beforeEach(() => {
  logMark = ctx.app.logs.length;
});
const errorLogs = () => ctx.app.logs.slice(logMark).filter((line) => /"level":(50|60)/.test(line));
const nested = (depth: number, inner: unknown = 1): unknown => {
  let value = inner;
  for (let level = 0; level < depth; level += 1) value = [value];
  return value;
};
/** JSON text of `value` with the string "NESTED" replaced by `depth` nested arrays (too deep for JSON.stringify here). */
const withNesting = (value: unknown, depth: number) => JSON.stringify(value).replace('"NESTED"', `${'['.repeat(depth)}1${']'.repeat(depth)}`);

/** A create or update with one field nested `depth` deep, through either door. */
function sendNested(door: Door, kind: 'create' | 'update', input: Record<string, unknown>, slug?: string) {
  const headers = { authorization: `Bearer ${ctx.key}`, 'content-type': 'application/json' };
  if (door === 'rest') {
    return kind === 'create'
      ? ctx.app.client.request('POST', '/v1/events', { headers, raw: withNesting(input, 5_000) })
      : ctx.app.client.request('PUT', `/v1/events/${slug}`, { headers, raw: withNesting(input, 5_000) });
  }
  const query =
    kind === 'create'
      ? 'mutation($input: CreateEventInput!) { createEvent(input: $input) { id } }'
      : 'mutation($slug: String!, $input: UpdateEventInput!) { updateEvent(slug: $slug, input: $input) { id } }';
  return ctx.app.client.request('POST', '/graphql', { headers, raw: withNesting({ query, variables: { slug, input } }, 5_000) });
}
const errorOf = (door: Door, body: any) => (door === 'rest' ? body?.error : { code: body?.errors?.[0]?.extensions?.code, details: body?.errors?.[0]?.extensions?.details });

describe.each(DOORS)('defect 1: deeply nested input through %s', (door: Door) => {
  test('a field holding thousands of nested arrays is 400 naming the field on create and update; nothing stored', async () => {
    const input = eventInput({ title: 'NESTED' });
    const created = await sendNested(door, 'create', input);
    expect(created.status).toBe(400);
    expect(errorOf(door, created.body)).toEqual({
      code: 'VALIDATION_ERROR',
      ...(door === 'rest' ? { message: expect.any(String) } : {}),
      details: { errors: [{ field: door === 'rest' ? 'title' : 'variables.input.title', message: 'is nested more than 32 levels deep' }] },
    });
    expect(created.headers['x-request-id']).toBeDefined();
    expect(await storedEventCount(ctx.app.orm, ctx.organizationId, { slug: input.slug })).toBe(0);

    const stored = eventInput({ venue: 'Hall' });
    expect((await eventApi(ctx.app.client, ctx.key, door).create(stored)).status).toBeLessThan(300);
    const updated = await sendNested(door, 'update', { venue: 'x', ticketTypes: [{ name: 'NESTED' }] }, stored.slug as string);
    expect(updated.status).toBe(400);
    expect(errorOf(door, updated.body).code).toBe('VALIDATION_ERROR');
    expect((await storedEvent(ctx.app.orm, { organizationId: ctx.organizationId, slug: stored.slug as string }))?.venue).toBe('Hall');
    expect(errorLogs()).toEqual([]);
  });

  test('nesting within the bound is judged on its content as before', async () => {
    expectValidationError(await eventApi(ctx.app.client, ctx.key, door).create(eventInput({ title: nested(20) })), door, ['title']);
  });
});

test('defect 1: a body with more values than the bound is 400, not walked', async () => {
  const response = await ctx.app.client.rest('POST', '/v1/events', ctx.key, { ...eventInput(), ticketTypes: Array(100_001).fill(0) });
  expect(response.status).toBe(400);
  expect(response.body.error.details.errors[0]).toEqual({ field: 'ticketTypes', message: 'holds more than 100000 values' });
});

test('defect 1: GET /graphql with deeply nested variables in the query string is 400', async () => {
  const variables = encodeURIComponent(JSON.stringify({ slug: nested(2_000, 'x') }));
  const response = await ctx.app.client.request('GET', `/graphql?query=${encodeURIComponent('query($slug: String!) { event(slug: $slug) { id } }')}&variables=${variables}`, {
    headers: { authorization: `Bearer ${ctx.key}`, 'apollo-require-preflight': 'true' },
  });
  expect(response.status).toBe(400);
  expect(response.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_ERROR', details: { errors: [{ field: 'variables.slug' }] } });
  expect(response.headers['x-request-id']).toBeDefined();
});

describe('defect 1: GraphQL documents are bounded before parsing', () => {
  test.each([
    ['thousands of nested list literals', `{ event(slug: ${'['.repeat(5_000)}"a"${']'.repeat(5_000)}) { id } }`, 'depth', 64],
    ['more tokens than the bound', `{ ${Array.from({ length: 2_000 }, (_, index) => `a${index}: events { total }`).join(' ')} }`, 'tokens', 10_000],
    ['longer than the bound', `{ events { total } } # ${'x'.repeat(70_000)}`, 'size', 65_536],
  ])('%s: 400 QUERY_TOO_COMPLEX naming the bound', async (_name, query, limit, maximum) => {
    ctx.app.sql.reset();
    const response = await ctx.app.client.graphql(ctx.key, query);
    expect(response.status).toBe(400);
    expect(response.body.errors[0].extensions).toEqual({ code: 'QUERY_TOO_COMPLEX', details: { limit, maximum } });
    expect(response.headers['x-request-id']).toBeDefined();
    expect(ctx.app.sql.statements.filter((statement) => /from "event/.test(statement))).toEqual([]);
    expect(errorLogs()).toEqual([]);
  });
});

describe.each(DOORS)('defect 2: a ticket price in exponent form through %s', (door: Door) => {
  test.each([-1e-7, 1e-7, 1.5e-3])('price %p on create is 400 on the price field', async (price) => {
    const input = eventInput({ ticketTypes: [{ name: 'A', price, currency: 'EUR', quantity: 1 }] });
    expectValidationError(await eventApi(ctx.app.client, ctx.key, door).create(input), door, ['ticketTypes[0].price']);
    expect(await storedEventCount(ctx.app.orm, ctx.organizationId, { slug: input.slug })).toBe(0);
    expect(errorLogs()).toEqual([]);
  });

  test('a price such as 1e2 or 19.99 is accepted', async () => {
    const input = eventInput({ ticketTypes: [{ name: 'A', price: 1e2, currency: 'EUR', quantity: 1 }, { name: 'B', price: 19.99, currency: 'EUR', quantity: 1 }] });
    const created = await eventApi(ctx.app.client, ctx.key, door).create(input);
    expect(created.data.ticketTypes.map((type: { price: number }) => type.price)).toEqual([100, 19.99]);
  });
});

test('defect 2: price 1e-7 on addTicketType and updateTicketType is 400 on price', async () => {
  const input = eventInput({ ticketTypes: [{ name: 'A', price: 1, currency: 'EUR', quantity: 1 }] });
  const created = await eventApi(ctx.app.client, ctx.key, 'rest').create(input);
  const added = await ctx.app.client.graphql(
    ctx.key,
    'mutation($slug: String!, $input: TicketTypeInput!) { addTicketType(eventSlug: $slug, input: $input) { id } }',
    { slug: input.slug, input: { name: 'B', price: 1e-7, currency: 'EUR', quantity: 1 } },
  );
  expect(added.body.data).toBeNull();
  expect(added.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_ERROR', details: { errors: [{ field: 'price' }] } });
  const updated = await ctx.app.client.graphql(ctx.key, 'mutation($id: ID!) { updateTicketType(id: $id, input: { price: 1e-7 }) { id } }', {
    id: created.data.ticketTypes[0].id,
  });
  expect(updated.body.data).toBeNull();
  expect(updated.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_ERROR', details: { errors: [{ field: 'price' }] } });
  expect(errorLogs()).toEqual([]);
});

describe('defect 3: the cost check refuses what it cannot estimate', () => {
  test('2,600 aliased pages are refused before anything runs', async () => {
    ctx.app.sql.reset();
    const aliases = Array.from({ length: 2_600 }, (_, index) => `a${index}: events(limit: 100) { events { ticketTypes { id } } }`).join(' ');
    const response = await ctx.app.client.graphql(ctx.key, `query Greedy { ${aliases} }`);
    expect(response.status).toBe(400);
    expect(response.body.errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
    expect(ctx.app.sql.statements.filter((statement) => /from "event/.test(statement))).toEqual([]);
  });

  test('fragments that multiply past what the estimator walks are refused, not run', async () => {
    ctx.app.sql.reset();
    const query = `query Fan { ...F5 }
      fragment F0 on Query { events(limit: 1) { total } }
      fragment F1 on Query { ...F0 ...F0 ...F0 ...F0 ...F0 ...F0 ...F0 ...F0 ...F0 ...F0 }
      fragment F2 on Query { ...F1 ...F1 ...F1 ...F1 ...F1 ...F1 ...F1 ...F1 ...F1 ...F1 }
      fragment F3 on Query { ...F2 ...F2 ...F2 ...F2 ...F2 ...F2 ...F2 ...F2 ...F2 ...F2 }
      fragment F4 on Query { ...F3 ...F3 ...F3 ...F3 ...F3 ...F3 ...F3 ...F3 ...F3 ...F3 }
      fragment F5 on Query { ...F4 ...F4 ...F4 ...F4 ...F4 ...F4 ...F4 ...F4 ...F4 ...F4 }`;
    const response = await ctx.app.client.graphql(ctx.key, query);
    expect(response.status).toBe(400);
    expect(response.body.errors[0].extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', details: { limit: 'cost', maximum: 5000 } });
    expect(ctx.app.sql.statements.filter((statement) => /from "event/.test(statement))).toEqual([]);
  });
});

describe('defect 4: every answer in the envelope, with an X-Request-Id', () => {
  const overTls = () => tls.connect({ host: '127.0.0.1', port: ctx.app.service.port, servername: 'localhost', rejectUnauthorized: false });
  const inClear = () => net.connect(ctx.app.service.port, '127.0.0.1');

  test('an unknown Expect is ignored: the request is served as usual', async () => {
    const raw = await exchange(overTls, `GET /v1/events?limit=1 HTTP/1.1\r\nHost: localhost\r\nExpect: foo\r\nAuthorization: Bearer ${ctx.key}\r\nConnection: close\r\n\r\n`);
    expect(raw).toMatch(/^HTTP\/1\.1 200 /);
    expect(raw).toMatch(/\r\nx-request-id: /i);
  });

  test('an HTTP/1.1 request without Host is 400 VALIDATION_ERROR on field Host', async () => {
    const response = parseRawResponse(await exchange(overTls, 'GET /v1/events HTTP/1.1\r\nConnection: close\r\n\r\n'));
    expect(response.status).toBe(400);
    expect(response.headers['x-request-id']).toBeDefined();
    expect(response.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { errors: [{ field: 'Host' }] } });
  });

  test('CONNECT is 405 METHOD_NOT_ALLOWED over TLS and 403 HTTPS_REQUIRED in clear', async () => {
    const secure = parseRawResponse(await exchange(overTls, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'));
    expect(secure.status).toBe(405);
    expect(secure.headers['x-request-id']).toBeDefined();
    expect(secure.body.error.code).toBe('METHOD_NOT_ALLOWED');
    const plain = parseRawResponse(await exchange(inClear, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'));
    expect(plain.status).toBe(403);
    expect(plain.body.error.code).toBe('HTTPS_REQUIRED');
  });

  test('a persisted query of an unknown version is 400 with a catalogue code', async () => {
    const response = await ctx.app.client.request('POST', '/graphql', {
      headers: { authorization: `Bearer ${ctx.key}` },
      json: { query: '{ events { total } }', extensions: { persistedQuery: { version: 2, sha256Hash: 'abc' } } },
    });
    expect(response.status).toBe(400);
    expect(response.body.errors[0].extensions.code).toBe('BAD_REQUEST');
    expect(response.headers['x-request-id']).toBeDefined();
  });

  test('If-None-Match: * on a list is a 200 with the list, not a 304', async () => {
    const response = await ctx.app.client.request('GET', '/v1/events', { headers: { authorization: `Bearer ${ctx.key}`, 'if-none-match': '*' } });
    expect(response.status).toBe(200);
    expect(response.body.events).toEqual(expect.any(Array));
  });
});

test('a request line over the size limit while the body is still on its way: the client still gets the 414, not a reset', async () => {
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const response = await ctx.app.client.request('DELETE', `/graphql?page=${'%5B'.repeat(10_000)}`, {
      headers: { authorization: `Bearer ${ctx.key}`, 'content-type': 'application/json' },
      raw: JSON.stringify({ query: 'x'.repeat(10_000) }),
    });
    expect(response.status).toBe(414);
    expect(response.body.error.code).toBe('URI_TOO_LONG');
  }
});

test('a HEAD request refused for its head (414) gets no body (a body would corrupt the next answer)', async () => {
  const response = await ctx.app.client.request('HEAD', `/v1/events?x=${'a'.repeat(120_000)}`, { headers: { authorization: `Bearer ${ctx.key}` } });
  expect(response.status).toBe(414);
  expect(response.text).toBe('');
  expect(response.headers['x-request-id']).toBeDefined();
});
