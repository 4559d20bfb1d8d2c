import { eventInput } from './helpers/factories';
import type { HttpResponse } from './helpers/https-client';
import { useTestApp } from './helpers/use-test-app';

// D13: an error shows at most a short prefix of any value the client sent (64
// characters and "…"), through both doors: a 1 MB slug once came back twice in one answer.

const ctx = useTestApp({}, { tenant: true });

const ECHO = 64;
/** A value of `length` characters, none of which any message of ours has 65 of in a row. */
const long = (length: number, character = 'q') => character.repeat(length);

/** The answer is an error of `code`, short, and repeats no more than 64 characters of the value. */
function expectBounded(response: HttpResponse, status: number, code: string, character = 'q'): void {
  expect(response.status).toBe(status);
  const body = response.body;
  expect(body?.error?.code ?? body?.errors?.[0]?.extensions?.code).toBe(code);
  expect(response.text.includes(character.repeat(ECHO + 1))).toBe(false);
  expect(response.text.length).toBeLessThan(4_000);
}

const GET_EVENT = 'query($slug: String!) { event(slug: $slug) { slug } }';

test('a 1 MB slug through GraphQL (a variable): EVENT_NOT_FOUND shows its first 64 characters, once in the message and once in details', async () => {
  const response = await ctx.app.client.graphql(ctx.key, GET_EVENT, { slug: long(1_000_000) });
  // `event` is nullable: its error stands beside `data: { event: null }`.
  expectBounded(response, 200, 'EVENT_NOT_FOUND');
  expect(response.body.errors[0].extensions.details).toEqual({ slug: `${long(ECHO)}…` });
  expect(response.body.errors[0].message).toBe(`No event with slug "${long(ECHO)}…"`);
});

test('a long slug through REST: the path (GET, PUT, DELETE) and the body (POST, PUT)', async () => {
  // A path's length is bounded by the HTTP parser's header limit (16 KiB); a body's by 1 MiB.
  const got = await ctx.app.client.rest('GET', `/v1/events/${long(12_000)}`, ctx.key);
  expectBounded(got, 404, 'EVENT_NOT_FOUND');
  expect(got.body.error.details).toEqual({ slug: `${long(ECHO)}…` });
  expectBounded(await ctx.app.client.rest('DELETE', `/v1/events/${long(12_000)}`, ctx.key), 404, 'EVENT_NOT_FOUND');
  expectBounded(await ctx.app.client.rest('PUT', `/v1/events/${long(12_000)}`, ctx.key, { title: 'x' }), 404, 'EVENT_NOT_FOUND');
  const created = await ctx.app.client.rest('POST', '/v1/events', ctx.key, eventInput({ slug: long(1_000_000) }));
  expectBounded(created, 400, 'VALIDATION_ERROR');
  expect(created.body.error.details.errors).toEqual([{ field: 'slug', message: expect.any(String) }]);
  const made = await ctx.app.client.rest('POST', '/v1/events', ctx.key, eventInput());
  expectBounded(await ctx.app.client.rest('PUT', `/v1/events/${made.body.slug}`, ctx.key, { slug: long(1_000_000) }), 400, 'VALIDATION_ERROR');
  // A 1 MB title (with spaces: no quoted value, no unbroken run) is refused in a message of bounded length.
  const title = await ctx.app.client.rest('POST', '/v1/events', ctx.key, eventInput({ title: 'word '.repeat(200_000) }));
  expect(title.status).toBe(400);
  expect(title.text.length).toBeLessThan(4_000);
});

test('unknown routes and ids: bounded', async () => {
  const route = await ctx.app.client.rest('GET', `/v2/${long(12_000)}`, ctx.key);
  expectBounded(route, 404, 'NOT_FOUND');
  expect(route.body.error.message).toBe(`No route for GET /v2/${long(ECHO - 4)}…`);
  const cancel = await ctx.app.client.graphql(ctx.key, 'mutation($id: ID!) { cancelBooking(id: $id) { id } }', { id: `bk_${long(1_000_000)}` });
  expectBounded(cancel, 200, 'VALIDATION_ERROR');
});

test('a long Idempotency-Key: a malformed one is not repeated; a reused one is shown by its prefix', async () => {
  const tooLong = await ctx.app.client.request('POST', '/v1/events', { headers: { authorization: `Bearer ${ctx.key}`, 'idempotency-key': long(8_000) }, json: eventInput() });
  expectBounded(tooLong, 400, 'VALIDATION_ERROR');
  const idempotencyKey = long(255);
  const send = (input: Record<string, unknown>) =>
    ctx.app.client.request('POST', '/v1/events', { headers: { authorization: `Bearer ${ctx.key}`, 'idempotency-key': idempotencyKey }, json: input });
  expect((await send(eventInput())).status).toBe(201);
  const reused = await send(eventInput());
  expectBounded(reused, 422, 'IDEMPOTENCY_KEY_REUSED');
  expect(reused.body.error.details.idempotencyKey).toBe(`${long(ECHO)}…`);
  const graphql = await ctx.app.client.request('POST', '/graphql', {
    headers: { authorization: `Bearer ${ctx.key}`, 'idempotency-key': idempotencyKey },
    json: { query: 'mutation($input: CreateEventInput!) { createEvent(input: $input) { slug } }', variables: { input: eventInput() } },
  });
  expectBounded(graphql, 422, 'IDEMPOTENCY_KEY_REUSED');
});

test("GraphQL's own messages and paths: a long field name, alias, unknown input field or operation name", async () => {
  const field = long(20_000);
  expectBounded(await ctx.app.client.graphql(ctx.key, `{ ${field} }`), 400, 'GRAPHQL_VALIDATION_FAILED');
  // An alias on a field that fails: the error's path names the alias (`data` holds it as asked).
  const aliased = await ctx.app.client.graphql(ctx.key, `{ ${long(20_000)}: event(slug: "no-such-event") { slug } }`);
  expect(aliased.body.errors[0].extensions.code).toBe('EVENT_NOT_FOUND');
  expect(aliased.body.errors[0].path).toEqual([`${long(ECHO)}…`]);
  expect(JSON.stringify(aliased.body.errors).includes(long(ECHO + 1))).toBe(false);
  const unknownField = await ctx.app.client.graphql(ctx.key, 'mutation($input: CreateEventInput!) { createEvent(input: $input) { slug } }', {
    input: { ...eventInput(), [long(20_000)]: 1 },
  });
  expect(unknownField.text.includes(long(ECHO + 1))).toBe(false);
  expect(unknownField.text.length).toBeLessThan(4_000);
  const operation = await ctx.app.client.request('POST', '/graphql', {
    headers: { authorization: `Bearer ${ctx.key}` },
    json: { query: '{ events { total } }', operationName: long(20_000) },
  });
  expect(operation.status).toBeGreaterThanOrEqual(400);
  expect(operation.text.includes(long(ECHO + 1))).toBe(false);
  expect(operation.text.length).toBeLessThan(4_000);
});
