import { createApiKey, createTenant, eventInput } from './helpers/factories';
import { createMemberWithPassword, sessionGraphql, signIn } from './helpers/dashboard';
import { useTestApp } from './helpers/use-test-app';
import { CREATE_ENDPOINT, ENDPOINT_FIELDS, WEBHOOK_TEST_ENV, WebhookReceiver } from './helpers/webhook-receiver';

/*
 * Changing an endpoint through GraphQL (the dashboard's webhook page edits, disables and enables
 * endpoints, D19): updateWebhookEndpoint for url, description and event types, and
 * disableWebhookEndpoint / enableWebhookEndpoint, with webhooks:write, validated as on create.
 */

const ctx = useTestApp(WEBHOOK_TEST_ENV);
let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await new WebhookReceiver().listen();
  ctx.beforeClose(() => receiver.close());
});

const UPDATE = `mutation($id: ID!, $input: UpdateWebhookEndpointInput!) { updateWebhookEndpoint(id: $id, input: $input) { ${ENDPOINT_FIELDS} } }`;
const DISABLE = `mutation($id: ID!) { disableWebhookEndpoint(id: $id) { ${ENDPOINT_FIELDS} } }`;
const ENABLE = `mutation($id: ID!) { enableWebhookEndpoint(id: $id) { ${ENDPOINT_FIELDS} } }`;

const tagged = (tag: string) => receiver.received.filter((message) => message.path.endsWith(`tag=${tag}`));

test('an edit changes url, description and event types; the next messages follow the new ones', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const created = await ctx.app.client.graphql(key, CREATE_ENDPOINT, { input: { url: `${receiver.url}?tag=edit-old`, description: 'Old', eventTypes: ['event.deleted'] } });
  const { endpoint } = created.body.data.createWebhookEndpoint;

  const edited = await ctx.app.client.graphql(key, UPDATE, {
    id: endpoint.id,
    input: { url: `${receiver.url}?tag=edit-new`, description: 'New', eventTypes: ['event.created', 'ticket_type.created'] },
  });
  expect(edited.body.errors).toBeUndefined();
  expect(edited.body.data.updateWebhookEndpoint).toMatchObject({
    id: endpoint.id,
    url: `${receiver.url}?tag=edit-new`,
    description: 'New',
    eventTypes: ['event.created', 'ticket_type.created'],
    enabled: true,
  });
  const event = (await ctx.app.client.rest('POST', '/v1/events', key, eventInput())).body;
  await receiver.waitFor(() => tagged('edit-new').some((message) => message.json.data.slug === event.slug));
  expect(tagged('edit-old')).toEqual([]);

  // description: null clears it; absent fields stay.
  const cleared = await ctx.app.client.graphql(key, UPDATE, { id: endpoint.id, input: { description: null } });
  expect(cleared.body.data.updateWebhookEndpoint).toMatchObject({ description: null, url: `${receiver.url}?tag=edit-new`, eventTypes: ['event.created', 'ticket_type.created'] });
});

test('an edit is validated as a creation: 400 listing every field, nothing changed', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const { endpoint } = (await ctx.app.client.graphql(key, CREATE_ENDPOINT, { input: { url: `${receiver.url}?tag=valid`, description: 'Kept' } })).body.data.createWebhookEndpoint;
  const bad = await ctx.app.client.graphql(key, UPDATE, {
    id: endpoint.id,
    input: { url: 'ftp://x', eventTypes: ['event.created', 'event.exploded'], description: 'x'.repeat(501) },
  });
  expect(bad.body.errors[0].extensions.code).toBe('VALIDATION_ERROR');
  expect(bad.body.errors[0].extensions.details.errors.map((error: { field: string }) => error.field).sort()).toEqual(['description', 'eventTypes', 'url']);
  const internal = await ctx.app.client.graphql(key, UPDATE, { id: endpoint.id, input: { url: null } });
  expect(internal.body.errors[0].extensions.details.errors.map((error: { field: string }) => error.field)).toEqual(['url']);
  const listed = await ctx.app.client.graphql(key, `{ webhookEndpoints { ${ENDPOINT_FIELDS} } }`);
  expect(listed.body.data.webhookEndpoints).toEqual([endpoint]);
});

test('disable: nothing is sent or queued for it; enable: the next changes are sent again', async () => {
  const { key, organization } = await createTenant(ctx.app.orm);
  const { endpoint } = (await ctx.app.client.graphql(key, CREATE_ENDPOINT, { input: { url: `${receiver.url}?tag=toggle` } })).body.data.createWebhookEndpoint;

  const disabled = await ctx.app.client.graphql(key, DISABLE, { id: endpoint.id });
  expect(disabled.body.errors).toBeUndefined();
  expect(disabled.body.data.disableWebhookEndpoint).toMatchObject({ id: endpoint.id, enabled: false });
  const whileDisabled = (await ctx.app.client.rest('POST', '/v1/events', key, eventInput())).body;
  const queued = await ctx.app.orm.em.fork().execute(
    `select d.message_id from webhook_deliveries d join webhook_messages m on m.id = d.message_id where m.organization_id = ?`,
    [organization.id],
  );
  expect(queued).toEqual([]);

  const enabled = await ctx.app.client.graphql(key, ENABLE, { id: endpoint.id });
  expect(enabled.body.data.enableWebhookEndpoint).toMatchObject({ id: endpoint.id, enabled: true, disabledReason: null });
  const afterwards = (await ctx.app.client.rest('POST', '/v1/events', key, eventInput())).body;
  await receiver.waitFor(() => tagged('toggle').some((message) => message.json.data.slug === afterwards.slug));
  expect(tagged('toggle').map((message) => message.json.data.slug)).not.toContain(whileDisabled.slug);

  // Enabling an endpoint the service disabled after its failures starts it afresh.
  await ctx.app.orm.em.fork().execute(`update webhook_endpoints set enabled = false, disabled_reason = 'failing for 5 days', failing_since = now() where id = ?`, [endpoint.id]);
  const restarted = await ctx.app.client.graphql(key, ENABLE, { id: endpoint.id });
  expect(restarted.body.data.enableWebhookEndpoint).toMatchObject({ enabled: true, disabledReason: null });
  const [state] = await ctx.app.orm.em.fork().execute(`select failing_since from webhook_endpoints where id = ?`, [endpoint.id]);
  expect(state.failing_since).toBeNull();
});

test('webhooks:write guards edit, disable and enable; another organization’s endpoint answers as a missing one; a MEMBER session is refused', async () => {
  const a = await createTenant(ctx.app.orm);
  const b = await createTenant(ctx.app.orm);
  const { endpoint } = (await ctx.app.client.graphql(a.key, CREATE_ENDPOINT, { input: { url: `${receiver.url}?tag=guard` } })).body.data.createWebhookEndpoint;
  const { key: readOnly } = await createApiKey(ctx.app.orm, a.organization.id, { permissions: ['webhooks:read'] });
  const member = await createMemberWithPassword(ctx.app.orm, a.organization.id, 'member');
  const session = await signIn(ctx.app.client, member.email);
  const operations: Array<[string, Record<string, unknown>]> = [
    [UPDATE, { input: { description: 'x' } }],
    [DISABLE, {}],
    [ENABLE, {}],
  ];
  for (const [query, variables] of operations) {
    const refused = await ctx.app.client.graphql(readOnly, query, { id: endpoint.id, ...variables });
    expect(refused.body.errors[0].extensions).toEqual({ code: 'FORBIDDEN', details: { requiredPermission: 'webhooks:write', currentPermissions: ['webhooks:read'] } });
    const bySession = await sessionGraphql(ctx.app.client, session, query, { id: endpoint.id, ...variables });
    expect(bySession.body.errors[0].extensions).toMatchObject({ code: 'FORBIDDEN', details: { requiredPermission: 'webhooks:write' } });
    for (const id of [endpoint.id, 'whe_doesNotExist00000000']) {
      const foreign = await ctx.app.client.graphql(b.key, query, { id, ...variables });
      expect(foreign.body.data).toBeNull();
      expect(foreign.body.errors[0].extensions).toEqual({ code: 'WEBHOOK_ENDPOINT_NOT_FOUND', details: { id } });
    }
  }
  const still = await ctx.app.client.graphql(a.key, '{ webhookEndpoints { id description enabled } }');
  expect(still.body.data.webhookEndpoints).toEqual([{ id: endpoint.id, description: null, enabled: true }]);
});
