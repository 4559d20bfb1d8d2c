import { createTenant, eventInput } from './helpers/factories';
import { startTestApp, type TestApp } from './helpers/test-app';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

test('an event created through REST reads back through GraphQL', async () => {
  const { key } = await createTenant(app.orm);
  const input = eventInput();
  const created = await app.client.rest('POST', '/v1/events', key, input);
  expect(created.status).toBe(201);
  const read = await app.client.graphql(key, 'query($slug: String!) { event(slug: $slug) { id slug status } }', { slug: input.slug });
  expect(read.body.data.event).toEqual({ id: created.body.id, slug: input.slug, status: 'DRAFT' });
});
