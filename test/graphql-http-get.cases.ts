import { useTestApp } from './helpers/use-test-app';

// GraphQL over HTTP beyond POST, as docs/operating.md describes it: GET runs queries only and needs
// the apollo-require-preflight header (CSRF prevention); a mutation over GET is 405 METHOD_NOT_ALLOWED,
// as a wrong method is in REST; batched requests (a JSON array) are refused.
const ctx = useTestApp({}, { tenant: true });

const get = (query: string, headers: Record<string, string>) =>
  ctx.app.client.request('GET', `/graphql?query=${encodeURIComponent(query)}`, { headers: { authorization: `Bearer ${ctx.key}`, ...headers } });

test('a GET query with apollo-require-preflight answers the data', async () => {
  const response = await get('{ events { total } }', { 'apollo-require-preflight': 'true' });
  expect(response.status).toBe(200);
  expect(response.body).toEqual({ data: { events: { total: 0 } } });
});

test('a GET query without a preflight header is refused (400), so a cross-site page cannot make one', async () => {
  const response = await get('{ events { total } }', {});
  expect(response.status).toBe(400);
  expect(response.text).toContain('apollo-require-preflight');
});

test('a GET mutation is 405 METHOD_NOT_ALLOWED with Allow: POST, like a wrong method in REST, and changes nothing', async () => {
  const mutation = 'mutation { createEvent(input: { title: "Over GET", slug: "over-get", startDate: "2030-01-01T10:00:00Z", endDate: "2030-01-01T12:00:00Z" }) { id } }';
  const response = await get(mutation, { 'apollo-require-preflight': 'true' });
  expect(response.status).toBe(405);
  expect(response.headers.allow).toBe('POST');
  expect(response.body.errors).toEqual([
    { message: expect.stringContaining('GET requests only support query operations'), extensions: { code: 'METHOD_NOT_ALLOWED', details: { allowed: ['POST'] } } },
  ]);
  const rest = await ctx.app.client.rest('PATCH', '/v1/events', ctx.key);
  expect(rest.status).toBe(405);
  expect(rest.body.error.code).toBe(response.body.errors[0].extensions.code);
  expect((await ctx.app.client.graphql(ctx.key, '{ events { total } }')).body.data.events.total).toBe(0);
});

test('batching is off: a JSON array of operations is refused with 400', async () => {
  const response = await ctx.app.client.request('POST', '/graphql', {
    headers: { authorization: `Bearer ${ctx.key}` },
    json: [{ query: '{ events { total } }' }, { query: '{ events { total } }' }],
  });
  expect(response.status).toBe(400);
  expect(response.text).toMatch(/batch/i);
});
