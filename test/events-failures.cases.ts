import { useTestApp } from './helpers/use-test-app';

// An unexpected database failure under an event operation: a generic 500 with the request id, no SQL,
// and exactly one error line in the log (with the cause) per failed request. This file breaks its own
// database on purpose, so it runs alone in it.
const ctx = useTestApp({}, { tenant: true });
beforeAll(async () => {
  await ctx.app.orm.em.getConnection().execute('alter table events rename to events_renamed_by_test');
});

const errorLinesFor = (requestId: string) =>
  ctx.app.logs.filter((line) => /"level":50/.test(line) && line.includes(requestId)).map((line) => JSON.parse(line));

test('REST: 500 INTERNAL_ERROR with the request id, nothing of the SQL, logged once with its cause', async () => {
  const response = await ctx.app.client.rest('GET', '/v1/events', ctx.key);
  expect(response.status).toBe(500);
  const requestId = response.headers['x-request-id'] as string;
  expect(response.body).toEqual({
    error: { code: 'INTERNAL_ERROR', message: 'An unexpected error occurred', details: { requestId } },
  });
  expect(response.text).not.toMatch(/select|relation|renamed_by_test/i);
  const lines = errorLinesFor(requestId);
  expect(lines).toHaveLength(1);
  expect(JSON.stringify(lines[0].err)).toMatch(/renamed_by_test|relation \\"events\\" does not exist/);
});

test('GraphQL: the same code and request id in extensions, logged once', async () => {
  const response = await ctx.app.client.graphql(ctx.key, '{ events { total events { slug venue } } }');
  const requestId = response.headers['x-request-id'] as string;
  expect(response.body.errors).toEqual([
    expect.objectContaining({ extensions: { code: 'INTERNAL_ERROR', details: { requestId } } }),
  ]);
  expect(response.text).not.toMatch(/select|relation|renamed_by_test/i);
  expect(errorLinesFor(requestId)).toHaveLength(1);
});
