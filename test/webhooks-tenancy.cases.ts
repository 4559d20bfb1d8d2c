import { createApiKey, createTenant, eventInput } from './helpers/factories';
import { runAdminInProcess } from './helpers/admin-cli';
import { childEnv, runCli } from './helpers/spawned-server';
import { useTestApp } from './helpers/use-test-app';
import { CREATE_ENDPOINT, MESSAGES, verify, WEBHOOK_TEST_ENV, WebhookReceiver } from './helpers/webhook-receiver';

const SECRET_KEY = 'test-webhook-secret-key-0123456789abcdef';
const ctx = useTestApp({ ...WEBHOOK_TEST_ENV, WEBHOOK_SECRET_KEY: SECRET_KEY });
let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await new WebhookReceiver().listen();
  ctx.beforeClose(() => receiver.close());
});

async function endpointOf(key: string, tag: string) {
  const created = await ctx.app.client.graphql(key, CREATE_ENDPOINT, { input: { url: `${receiver.url}?tag=${tag}` } });
  expect(created.body.errors).toBeUndefined();
  return created.body.data.createWebhookEndpoint;
}

test("one organization's endpoints never receive another's changes, nor can they be read or changed with its key", async () => {
  const a = await createTenant(ctx.app.orm);
  const b = await createTenant(ctx.app.orm);
  const { endpoint } = await endpointOf(a.key, 'a');
  await endpointOf(b.key, 'b');

  const fromB = (await ctx.app.client.rest('POST', '/v1/events', b.key, eventInput())).body;
  const fromA = (await ctx.app.client.rest('POST', '/v1/events', a.key, eventInput())).body;
  await receiver.waitFor((all) => all.some((m) => m.path.endsWith('tag=a')) && all.some((m) => m.path.endsWith('tag=b')));
  await ctx.app.client.graphql(a.key, 'mutation($e: ID!) { sendTestWebhook(endpointId: $e) { id } }', { e: endpoint.id });
  await receiver.waitFor((all) => all.filter((m) => m.path.endsWith('tag=a')).length === 2);
  const toA = receiver.received.filter((m) => m.path.endsWith('tag=a'));
  expect(toA.map((m) => m.json.data.slug ?? m.json.type).sort()).toEqual([fromA.slug, 'webhook.test'].sort());
  expect(receiver.received.filter((m) => m.path.endsWith('tag=b')).map((m) => m.json.data.slug)).toEqual([fromB.slug]);

  // B sees only its own endpoints, and A's endpoint answers exactly like a missing one.
  const listed = await ctx.app.client.graphql(b.key, '{ webhookEndpoints { id url } }');
  expect(listed.body.data.webhookEndpoints.map((e: { url: string }) => e.url)).toEqual([`${receiver.url}?tag=b`]);
  const messageId = (await ctx.app.client.graphql(a.key, MESSAGES, { endpointId: endpoint.id })).body.data.webhookMessages.messages[0].id;
  const operations: Array<[string, Record<string, unknown>]> = [
    ['query($id: ID!) { webhookMessages(endpointId: $id) { total } }', {}],
    ['mutation($id: ID!) { updateWebhookEndpoint(id: $id, input: {enabled: false}) { id } }', {}],
    ['mutation($id: ID!) { deleteWebhookEndpoint(id: $id) { id } }', {}],
    ['mutation($id: ID!) { rotateWebhookSecret(id: $id) { secret } }', {}],
    ['mutation($id: ID!, $m: ID!) { redeliverWebhookMessage(endpointId: $id, messageId: $m) { id } }', { m: messageId }],
    ['mutation($id: ID!) { sendTestWebhook(endpointId: $id) { id } }', {}],
  ];
  for (const [query, variables] of operations) {
    for (const id of [endpoint.id, 'whe_doesNotExist00000000']) {
      const response = await ctx.app.client.graphql(b.key, query, { id, ...variables });
      expect(response.body.data).toBeNull();
      expect(response.body.errors[0].extensions).toEqual({ code: 'WEBHOOK_ENDPOINT_NOT_FOUND', details: { id } });
    }
  }
  const still = await ctx.app.client.graphql(a.key, '{ webhookEndpoints { id enabled } }');
  expect(still.body.data.webhookEndpoints).toEqual([{ id: endpoint.id, enabled: true }]);
});

test('webhooks:read and webhooks:write guard the fields (403 with the permissions)', async () => {
  const { organization } = await createTenant(ctx.app.orm);
  const { key: eventsOnly } = await createApiKey(ctx.app.orm, organization.id, { permissions: ['events:read', 'events:write'] });
  const { key: readOnly } = await createApiKey(ctx.app.orm, organization.id, { permissions: ['webhooks:read'] });
  const list = await ctx.app.client.graphql(eventsOnly, '{ webhookEndpoints { id } }');
  expect(list.body.errors[0].extensions).toEqual({
    code: 'FORBIDDEN',
    details: { requiredPermission: 'webhooks:read', currentPermissions: ['events:read', 'events:write'] },
  });
  expect((await ctx.app.client.graphql(readOnly, '{ webhookEndpoints { id } }')).body.data.webhookEndpoints).toEqual([]);
  const create = await ctx.app.client.graphql(readOnly, CREATE_ENDPOINT, { input: { url: receiver.url } });
  expect(create.body.errors[0].extensions).toEqual({
    code: 'FORBIDDEN',
    details: { requiredPermission: 'webhooks:write', currentPermissions: ['webhooks:read'] },
  });
});

test('bad input is a 400 listing every field; the secret is never readable again', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const bad = await ctx.app.client.graphql(key, CREATE_ENDPOINT, {
    input: { url: 'ftp://x', eventTypes: ['event.created', 'event.exploded'], description: 'x'.repeat(501) },
  });
  expect(bad.body.errors[0].extensions.code).toBe('VALIDATION_ERROR');
  expect(bad.body.errors[0].extensions.details.errors.map((e: { field: string }) => e.field).sort()).toEqual(['description', 'eventTypes', 'url']);
  const { endpoint, secret } = await endpointOf(key, 'c');
  const stored = await ctx.app.orm.em.fork().execute(`select * from webhook_endpoints where id = ?`, [endpoint.id]);
  expect(JSON.stringify(stored)).not.toContain(secret.slice(6));
  const fields = (await ctx.app.client.graphql(key, '{ __type(name: "WebhookEndpoint") { fields { name } } }')).body.data.__type.fields;
  expect(fields.map((field: { name: string }) => field.name)).not.toContain('secret');
  const messages = await ctx.app.client.graphql(key, 'query($id: ID!) { webhookMessages(endpointId: $id, limit: 101) { total } }', { id: endpoint.id });
  expect(messages.body.errors[0].extensions.details.errors).toEqual([{ field: 'limit', message: expect.any(String) }]);
});

test('admin CLI: webhook create prints the id and the secret, list never shows it (an unknown organization is NOT_FOUND), delete removes it', async () => {
  const { organization, key } = await createTenant(ctx.app.orm);
  const env = { DATABASE_URL: ctx.app.databaseUrl, WEBHOOK_SECRET_KEY: SECRET_KEY, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' };
  // One real process: the CLI reads WEBHOOK_SECRET_KEY from its environment; the other runs are in-process.
  const inProcess = (args: string[], overrides: Record<string, string> = {}) => runAdminInProcess(args, childEnv({ ...env, ...overrides }));
  const created = await runCli(['webhook', 'create', '--org', organization.id, '--url', `${receiver.url}?tag=cli`, '--events', 'event.created,event.deleted'], env);
  expect(created.code).toBe(0);
  const output = JSON.parse(created.stdout);
  expect(output).toMatchObject({ id: expect.stringMatching(/^whe_/), secret: expect.stringMatching(/^whsec_/), eventTypes: ['event.created', 'event.deleted'], enabled: true });

  // The server (same WEBHOOK_SECRET_KEY) signs with the secret the CLI printed.
  await ctx.app.client.rest('POST', '/v1/events', key, eventInput());
  const [message] = (await receiver.waitFor((all) => all.some((m) => m.path.endsWith('tag=cli')))).filter((m) => m.path.endsWith('tag=cli'));
  expect(verify(output.secret, message)).toEqual(message.json);

  const [listed, refused] = await Promise.all([
    inProcess(['webhook', 'list', '--org', organization.id]),
    inProcess(['webhook', 'create', '--org', organization.id, '--url', 'https://10.0.0.1/in'], { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' }),
  ]);
  expect(JSON.parse(listed.stdout).endpoints).toEqual([expect.objectContaining({ id: output.id, url: `${receiver.url}?tag=cli` })]);
  expect(listed.stdout).not.toContain(output.secret.slice(6));
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('url:');
  expect((await inProcess(['webhook', 'delete', output.id])).code).toBe(0);
  expect(await ctx.app.orm.em.fork().execute(`select id from webhook_endpoints where id = ?`, [output.id])).toEqual([]);
  const again = await inProcess(['webhook', 'delete', output.id]);
  expect(again.code).toBe(1);
  expect(again.stderr).toContain('WEBHOOK_ENDPOINT_NOT_FOUND');
  // An unknown organization is NOT_FOUND (as for key list and member list), not an empty list.
  const unknown = await inProcess(['webhook', 'list', '--org', 'org_missing']);
  expect(unknown).toMatchObject({ code: 1, stdout: '', stderr: 'error: NOT_FOUND\n  No organization with id "org_missing"\n' });
  // The CLI process run takes seconds on a busy machine.
}, 120_000);
