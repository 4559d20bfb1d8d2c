import { eventInput } from './helpers/factories';
import type { HttpResponse } from './helpers/https-client';
import { useTestApp } from './helpers/use-test-app';

// D13: transport errors in the envelope (404, 405 with Allow, 413, malformed JSON), an X-Request-Id on
// every response, and GraphQL's own errors without stack traces.

const ctx = useTestApp({}, { tenant: true });

const ONE_MIB = 1024 * 1024;

function expectEnvelope(response: HttpResponse, status: number, code: string): void {
  expect(response.status).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  expect(response.body).toEqual({ error: { code, message: expect.any(String), ...(response.body?.error?.details ? { details: expect.anything() } : {}) } });
  expect(response.headers['x-request-id']).toEqual(expect.any(String));
}

describe('404 NOT_FOUND for an unknown route', () => {
  test.each([
    ['GET', '/'],
    ['GET', '/v1'],
    ['GET', '/v2/events'],
    ['GET', '/v1/events/some-slug/tickets'],
    ['POST', '/v1/organizations'],
    ['GET', '/V1/EVENTS'],
  ])('%s %s, with or without a key', async (method, path) => {
    expectEnvelope(await ctx.app.client.rest(method, path, ctx.key), 404, 'NOT_FOUND');
    expectEnvelope(await ctx.app.client.rest(method, path, undefined), 404, 'NOT_FOUND');
  });
});

test('one trailing slash reaches the same route (Express, strict routing off); two do not', async () => {
  const plain = await ctx.app.client.rest('GET', '/v1/events?limit=1', ctx.key);
  const slashed = await ctx.app.client.rest('GET', '/v1/events/?limit=1', ctx.key);
  expect([plain.status, slashed.status]).toEqual([200, 200]);
  expect(slashed.body.total).toBe(plain.body.total);
  expectEnvelope(await ctx.app.client.rest('GET', '/v1/events//', ctx.key), 404, 'NOT_FOUND');
});

test.each(['GET', 'PUT', 'DELETE'])('%s with a malformed %%-escape in the slug is 400 VALIDATION_ERROR on path, not 500', async (method) => {
  const response = await ctx.app.client.rest(method, '/v1/events/%E0%A4%A', ctx.key, method === 'PUT' ? { title: 'x' } : undefined);
  expectEnvelope(response, 400, 'VALIDATION_ERROR');
  expect(response.body.error.details).toEqual({ errors: [{ field: 'path', message: expect.any(String) }] });
});

describe('405 METHOD_NOT_ALLOWED with an Allow header', () => {
  test.each([
    ['PATCH', '/v1/events', 'GET, POST, HEAD, OPTIONS'],
    ['DELETE', '/v1/events', 'GET, POST, HEAD, OPTIONS'],
    ['PUT', '/v1/events', 'GET, POST, HEAD, OPTIONS'],
    ['POST', '/v1/events/some-slug', 'GET, PUT, DELETE, HEAD, OPTIONS'],
    ['PATCH', '/v1/events/some-slug', 'GET, PUT, DELETE, HEAD, OPTIONS'],
  ])('%s %s', async (method, path, allow) => {
    const response = await ctx.app.client.rest(method, path, ctx.key);
    expectEnvelope(response, 405, 'METHOD_NOT_ALLOWED');
    expect(response.headers.allow).toBe(allow);
    expect(response.body.error.details).toEqual({ allowed: allow.split(', ') });
  });

  test('GraphQL answers a method it does not take with 405 and Allow too', async () => {
    const response = await ctx.app.client.request('PUT', '/graphql', { headers: { authorization: `Bearer ${ctx.key}` }, json: { query: '{ events { total } }' } });
    expect(response.status).toBe(405);
    expect(response.headers.allow).toMatch(/POST/);
    expect(response.headers['x-request-id']).toEqual(expect.any(String));
  });
});

describe('413 PAYLOAD_TOO_LARGE over 1 MiB', () => {
  const oversized = JSON.stringify({ ...eventInput(), description: 'x'.repeat(ONE_MIB) });

  test('REST create', async () => {
    const before = await ctx.app.client.rest('GET', '/v1/events', ctx.key);
    const response = await ctx.app.client.request('POST', '/v1/events', {
      headers: { authorization: `Bearer ${ctx.key}`, 'content-type': 'application/json' },
      raw: oversized,
    });
    expectEnvelope(response, 413, 'PAYLOAD_TOO_LARGE');
    expect(response.body.error.details).toEqual({ limitBytes: ONE_MIB });
    expect((await ctx.app.client.rest('GET', '/v1/events', ctx.key)).body.total).toBe(before.body.total);
  });

  test('GraphQL, in the GraphQL error shape', async () => {
    const response = await ctx.app.client.request('POST', '/graphql', {
      headers: { authorization: `Bearer ${ctx.key}`, 'content-type': 'application/json' },
      raw: JSON.stringify({ query: '{ events { total } }', variables: { padding: 'x'.repeat(ONE_MIB) } }),
    });
    expect(response.status).toBe(413);
    expect(response.body.errors).toEqual([{ message: expect.any(String), extensions: { code: 'PAYLOAD_TOO_LARGE', details: { limitBytes: ONE_MIB } } }]);
  });

  test('a body just under the limit is read (and judged on its content)', async () => {
    const body = JSON.stringify({ ...eventInput(), description: 'x'.repeat(ONE_MIB - 1_000) });
    const response = await ctx.app.client.request('POST', '/v1/events', {
      headers: { authorization: `Bearer ${ctx.key}`, 'content-type': 'application/json' },
      raw: body,
    });
    expectEnvelope(response, 400, 'VALIDATION_ERROR');
    expect(response.body.error.details.errors).toEqual([{ field: 'description', message: expect.any(String) }]);
  });
});

describe('malformed JSON: 400 VALIDATION_ERROR on field body', () => {
  test.each(['{"title": ', '{title: "x"}', 'not json', '{"a":1}}'])('REST %p', async (raw) => {
    const response = await ctx.app.client.request('POST', '/v1/events', {
      headers: { authorization: `Bearer ${ctx.key}`, 'content-type': 'application/json' },
      raw,
    });
    expectEnvelope(response, 400, 'VALIDATION_ERROR');
    expect(response.body.error.details).toEqual({ errors: [{ field: 'body', message: expect.any(String) }] });
  });

  test.each(['[1, 2]', '"a string"', '42', 'null'])('a JSON body that is not an object: %p', async (raw) => {
    const response = await ctx.app.client.request('PUT', '/v1/events/some-slug', {
      headers: { authorization: `Bearer ${ctx.key}`, 'content-type': 'application/json' },
      raw,
    });
    expectEnvelope(response, 400, 'VALIDATION_ERROR');
    expect(response.body.error.details).toEqual({ errors: [{ field: 'body', message: expect.any(String) }] });
  });

  test('GraphQL gives the same code and details', async () => {
    const rest = await ctx.app.client.request('POST', '/v1/events', {
      headers: { authorization: `Bearer ${ctx.key}`, 'content-type': 'application/json' },
      raw: '{"query": ',
    });
    const graphql = await ctx.app.client.request('POST', '/graphql', {
      headers: { authorization: `Bearer ${ctx.key}`, 'content-type': 'application/json' },
      raw: '{"query": ',
    });
    expect(graphql.status).toBe(400);
    expect(graphql.body.errors).toEqual([{ message: rest.body.error.message, extensions: { code: 'VALIDATION_ERROR', details: rest.body.error.details } }]);
  });
});

describe('X-Request-Id on every response', () => {
  test.each<[string, () => Promise<HttpResponse>, number]>([
    ['REST success', () => ctx.app.client.rest('GET', '/v1/events', ctx.key), 200],
    ['REST create', () => ctx.app.client.rest('POST', '/v1/events', ctx.key, eventInput()), 201],
    ['REST 401', () => ctx.app.client.rest('GET', '/v1/events', undefined), 401],
    ['REST 404 route', () => ctx.app.client.rest('GET', '/nowhere', ctx.key), 404],
    ['REST 404 event', () => ctx.app.client.rest('GET', '/v1/events/no-such-event', ctx.key), 404],
    ['REST 400', () => ctx.app.client.rest('GET', '/v1/events?limit=0', ctx.key), 400],
    ['REST 405', () => ctx.app.client.rest('PATCH', '/v1/events', ctx.key), 405],
    ['REST OPTIONS', () => ctx.app.client.rest('OPTIONS', '/v1/events', undefined), 204],
    ['GraphQL success', () => ctx.app.client.graphql(ctx.key, '{ events { total } }'), 200],
    ['GraphQL 401', () => ctx.app.client.graphql(undefined, '{ events { total } }'), 401],
    ['GraphQL syntax error', () => ctx.app.client.graphql(ctx.key, '{ events {'), 400],
  ])('%s', async (_label, send, status) => {
    const response = await send();
    expect(response.status).toBe(status);
    expect(response.headers['x-request-id']).toMatch(/^[A-Za-z0-9._:-]{8,128}$/);
  });

  test('each response gets its own id, and a sane caller id is echoed, an unsafe one replaced', async () => {
    const [first, second] = await Promise.all([ctx.app.client.rest('GET', '/v1/events', ctx.key), ctx.app.client.rest('GET', '/v1/events', ctx.key)]);
    expect(first.headers['x-request-id']).not.toBe(second.headers['x-request-id']);
    const echoed = await ctx.app.client.request('GET', '/v1/events', { headers: { authorization: `Bearer ${ctx.key}`, 'x-request-id': 'client-trace-42' } });
    expect(echoed.headers['x-request-id']).toBe('client-trace-42');
    const replaced = await ctx.app.client.request('GET', '/v1/events', { headers: { authorization: `Bearer ${ctx.key}`, 'x-request-id': 'bad id <script>' } });
    expect(replaced.headers['x-request-id']).not.toContain('<');
  });
});

describe('GraphQL never returns a stack trace', () => {
  test.each([
    ['a syntax error', '{ events {', 'GRAPHQL_PARSE_FAILED'],
    ['an unknown field', '{ events { nope } }', 'GRAPHQL_VALIDATION_FAILED'],
    ['an unknown root field', '{ organizations { id } }', 'GRAPHQL_VALIDATION_FAILED'],
    ['a wrong argument type (named like the same value in a variable)', '{ events(page: "one") { total } }', 'VALIDATION_ERROR'],
  ])('%s', async (_label, query, code) => {
    const response = await ctx.app.client.graphql(ctx.key, query);
    expect(response.status).toBe(400);
    expect(response.body.errors.length).toBeGreaterThan(0);
    for (const error of response.body.errors) {
      if (code === 'VALIDATION_ERROR') {
        expect(error.extensions).toEqual({ code, details: { errors: [{ field: 'page', message: 'page must be an integer' }] } });
      } else {
        expect(error.extensions).toEqual({ code });
      }
      expect(error.extensions.stacktrace).toBeUndefined();
    }
    expect(response.text).not.toMatch(/stacktrace|\.ts:\d+|\.js:\d+|node_modules/);
  });

  test('an empty or missing query is a 400 without a stack', async () => {
    const response = await ctx.app.client.request('POST', '/graphql', { headers: { authorization: `Bearer ${ctx.key}` }, json: {} });
    expect(response.status).toBe(400);
    expect(response.text).not.toMatch(/stacktrace|node_modules/);
  });
});
