import { createTenant, eventInput } from './helpers/factories';
import { useTestApp } from './helpers/use-test-app';

const ctx = useTestApp();

test('an event created through REST reads back through GraphQL', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const input = eventInput();
  const created = await ctx.app.client.rest('POST', '/v1/events', key, input);
  expect(created.status).toBe(201);
  const read = await ctx.app.client.graphql(key, 'query($slug: String!) { event(slug: $slug) { id slug status } }', { slug: input.slug });
  expect(read.body.data.event).toEqual({ id: created.body.id, slug: input.slug, status: 'DRAFT' });
});
