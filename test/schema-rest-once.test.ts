import { createTenant, eventInput } from './helpers/factories';
import { startTestApp, type TestApp } from './helpers/test-app';

// "Nothing per request that can be done once": REST requests run pre-parsed, pre-validated operations.
// graphql's parse and validate are wrapped (same functions, counted) for this file only.
jest.mock('graphql', () => {
  const actual = jest.requireActual('graphql');
  return { ...actual, parse: jest.fn(actual.parse), validate: jest.fn(actual.validate) };
});
// eslint-disable-next-line @typescript-eslint/no-require-imports
const graphql = require('graphql') as { parse: jest.Mock; validate: jest.Mock };

let app: TestApp;
let key: string;
beforeAll(async () => {
  app = await startTestApp();
  ({ key } = await createTenant(app.orm));
});
afterAll(() => app.close());

test('the REST operations were parsed and validated at start', () => {
  expect(graphql.parse).toHaveBeenCalledWith(expect.stringContaining('query ListEvents'));
});

test('REST requests neither parse nor validate a GraphQL document', async () => {
  graphql.parse.mockClear();
  graphql.validate.mockClear();
  const input = eventInput();
  expect((await app.client.rest('POST', '/v1/events', key, input)).status).toBe(201);
  expect((await app.client.rest('GET', '/v1/events', key)).status).toBe(200);
  expect((await app.client.rest('GET', `/v1/events/${input.slug}`, key)).status).toBe(200);
  expect((await app.client.rest('PUT', `/v1/events/${input.slug}`, key, { title: 'Renamed' })).status).toBe(200);
  expect((await app.client.rest('DELETE', `/v1/events/${input.slug}`, key)).status).toBe(204);
  expect(graphql.parse).not.toHaveBeenCalled();
  expect(graphql.validate).not.toHaveBeenCalled();

  // The counters do count: a /graphql request parses its document.
  expect((await app.client.graphql(key, '{ events { total } }')).status).toBe(200);
  expect(graphql.parse).toHaveBeenCalled();
});
