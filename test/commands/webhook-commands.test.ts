import type { MikroORM } from '@mikro-orm/postgresql';
import { Client } from 'pg';
import { createOrganization } from '../../src/modules/organization/commands/create-organization';
import { createWebhookEndpoint } from '../../src/modules/webhook/commands/create-webhook-endpoint';
import { deleteWebhookEndpoint } from '../../src/modules/webhook/commands/delete-webhook-endpoint';
import { redeliverWebhookMessage } from '../../src/modules/webhook/commands/redeliver-webhook-message';
import { rotateWebhookSecret } from '../../src/modules/webhook/commands/rotate-webhook-secret';
import { sendTestWebhook } from '../../src/modules/webhook/commands/send-test-webhook';
import { updateWebhookEndpoint } from '../../src/modules/webhook/commands/update-webhook-endpoint';
import type { Resolve } from '../../src/platform/outbox/webhook-destination';
import { enqueueWebhook } from '../../src/platform/outbox/outbox';
import type { WebhookRuntime } from '../../src/platform/outbox/webhook-runtime';
import { ServerSecrets } from '../../src/platform/crypto/server-secrets';
import { WEBHOOK_EVENT_TYPES } from '../../src/modules/webhook/webhook-types';
import { listWebhookMessages } from '../../src/modules/webhook/webhook.read-model';
import { endpointsOfOrganization, organizationOfEndpoint } from '../../src/modules/webhook/webhook.repository';
import { WebhookMessageStatus } from '../../src/modules/webhook/webhook.types';
import { echo } from '../../src/foundation/errors/echo';
import { openCommandDatabase, type CommandDatabase } from '../helpers/command-database';
import { failure, fieldsOf } from '../helpers/command-failure';
import { systemScope } from '../../src/platform/db/unit-of-work-scope';

// The webhook endpoint commands (D18) on real PostgreSQL without HTTP, a CLI process or a worker
// (messages stay where the commands put them): field matrices, tenancy, rotation, redelivery and test
// messages. The rules themselves are unit tested in test/policies/webhook.policy.test.ts; the
// webhooks-* suites keep the doors, the delivery and the destination checks at send time.
let database: CommandDatabase;
let orm: MikroORM;
beforeAll(async () => {
  database = await openCommandDatabase();
  orm = database.orm;
});
afterAll(() => database.close());

const em = () => orm.em.fork();
const HOUR = 3_600_000;
const PUBLIC = '93.184.215.14';
const REFUSED = 'url must not point at a loopback, private, link-local or metadata address';

/** Names under `inside.example` resolve to a private address, every other name to a public one: no real DNS. */
const resolve: Resolve = async (hostname) => [{ address: hostname.endsWith('inside.example') ? '10.1.2.3' : PUBLIC, family: 4 }];

/** The production destination rule with a fake resolver, a server key, and a count of worker nudges. */
function testRuntime(): WebhookRuntime & { wakes: number } {
  const runtime = {
    secrets: new ServerSecrets('webhook-commands-test-key', undefined).box('webhook-signing-secret'),
    allowPrivateNetworks: false,
    resolve,
    wakes: 0,
    wake: () => {
      runtime.wakes += 1;
    },
  };
  return runtime;
}
const runtime = testRuntime();

// An id is shown by its first 64 characters (D13).
const endpointNotFound = (id: string) => ({ code: 'WEBHOOK_ENDPOINT_NOT_FOUND', message: `No webhook endpoint with id "${echo(id)}"`, details: { id: echo(id) } });
const newOrganization = async () => (await createOrganization(systemScope(em()), { name: 'Hooks' })).id;
const newEndpoint = async (organizationId: string, input: Record<string, unknown> = {}) =>
  (await createWebhookEndpoint(systemScope(em()), organizationId, { url: 'https://hooks.example.com/in', ...input }, runtime)).endpoint;

async function row(endpointId: string) {
  const [stored] = await em().execute<Array<Record<string, unknown>>>(`select * from webhook_endpoints where id = ?`, [endpointId]);
  return stored;
}

describe('create (D18)', () => {
  test('every failing field at once; input errors before the organization; an unknown organization is NOT_FOUND', async () => {
    const organizationId = await newOrganization();
    const bad = await failure(
      createWebhookEndpoint(systemScope(em()), organizationId, { url: 'ftp://x', description: 'x'.repeat(501), eventTypes: ['event.created', 'event.exploded'] }, runtime),
    );
    expect(bad).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(bad.details).toEqual({
      errors: [
        { field: 'url', message: 'url must use https' },
        { field: 'description', message: 'description must be at most 500 characters' },
        { field: 'eventTypes', message: `unknown type(s) event.exploded; use ${WEBHOOK_EVENT_TYPES.join(', ')}` },
      ],
    });
    expect(fieldsOf(await failure(createWebhookEndpoint(systemScope(em()), 'org_missing', { url: '' }, runtime)))).toEqual(['url']);
    expect(await failure(createWebhookEndpoint(systemScope(em()), 'org_missing', { url: 'https://hooks.example.com/in' }, runtime))).toMatchObject({
      code: 'NOT_FOUND',
      message: 'No organization with id "org_missing"',
      details: { id: 'org_missing' },
    });
    expect(await endpointsOfOrganization(em(), organizationId)).toEqual([]);
  });

  test.each([
    ['a loopback address', 'https://127.0.0.1/in', REFUSED],
    ['a name that resolves to a private address', 'https://hooks.inside.example/in', REFUSED],
    ['credentials', 'https://user:pass@hooks.example.com/in', 'url must not contain credentials'],
    ['a fragment', 'https://hooks.example.com/in#part', 'url must not contain a fragment'],
    ['http', 'http://hooks.example.com/in', 'url must use https'],
    ['a relative URL', 'hooks.example.com/in', 'url must be an absolute URL'],
    ['2,049 characters', `https://hooks.example.com/${'x'.repeat(2023)}`, 'url must be at most 2048 characters'],
  ])('the destination rule (webhook-destination.ts) refuses %s', async (_case, url, message) => {
    const organizationId = await newOrganization();
    const error = await failure(createWebhookEndpoint(systemScope(em()), organizationId, { url }, runtime));
    expect(error).toMatchObject({ code: 'VALIDATION_ERROR', details: { errors: [{ field: 'url', message }] } });
  });

  test('the secret is answered once and stored sealed; types stored once each; enabled unless told', async () => {
    const organizationId = await newOrganization();
    const { endpoint, secret } = await createWebhookEndpoint(
      systemScope(em()),
      organizationId,
      { url: 'https://hooks.example.com/in', description: 'CRM', eventTypes: ['event.created', 'booking.created', 'event.created'] },
      runtime,
    );
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(endpoint).toMatchObject({ id: expect.stringMatching(/^whe_/), description: 'CRM', eventTypes: ['event.created', 'booking.created'], enabled: true });
    const stored = await row(endpoint.id);
    expect(JSON.stringify(stored)).not.toContain(secret.slice(6));
    expect(runtime.secrets.open(stored.secret_ciphertext as string)).toBe(secret);
    expect((await newEndpoint(organizationId, { enabled: false })).enabled).toBe(false);
  });
});

describe('update (D18)', () => {
  test("another organization's endpoint, an unknown or malformed id: NOT_FOUND whatever the input", async () => {
    const organizationId = await newOrganization();
    const foreign = await newEndpoint(await newOrganization());
    for (const id of [foreign.id, 'whe_doesNotExist00000000', 'not-an-id', `whe_${'x'.repeat(80)}`]) {
      expect(await failure(updateWebhookEndpoint(systemScope(em()), organizationId, id, { enabled: false }, runtime))).toMatchObject(endpointNotFound(id));
      expect(await failure(updateWebhookEndpoint(systemScope(em()), organizationId, id, { url: null, description: 'x'.repeat(501) }, runtime))).toMatchObject(endpointNotFound(id));
    }
    expect(await row(foreign.id)).toMatchObject({ enabled: true });
  });

  test('every failing field at once; nothing applies; then only the given fields change', async () => {
    const organizationId = await newOrganization();
    const endpoint = await newEndpoint(organizationId, { description: 'CRM', eventTypes: ['event.created'] });
    const bad = await failure(
      updateWebhookEndpoint(systemScope(em()), organizationId, endpoint.id, { url: 'https://hooks.inside.example/in', description: 'x'.repeat(501), eventTypes: ['nope'] }, runtime),
    );
    expect(fieldsOf(bad)).toEqual(['url', 'description', 'eventTypes']);
    expect(fieldsOf(await failure(updateWebhookEndpoint(systemScope(em()), organizationId, endpoint.id, { url: null, eventTypes: ['nope'] }, runtime)))).toEqual(['eventTypes', 'url']);
    expect(await failure(updateWebhookEndpoint(systemScope(em()), organizationId, endpoint.id, { url: null }, runtime))).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { errors: [{ field: 'url', message: 'url cannot be null' }] },
    });
    expect(await row(endpoint.id)).toMatchObject({ url: 'https://hooks.example.com/in', description: 'CRM', event_types: ['event.created'] });

    const updated = await updateWebhookEndpoint(systemScope(em()), organizationId, endpoint.id, { url: 'https://other.example.com/in', eventTypes: [] }, runtime);
    expect(updated).toMatchObject({ url: 'https://other.example.com/in', description: 'CRM', eventTypes: [], enabled: true });
    expect((await updateWebhookEndpoint(systemScope(em()), organizationId, endpoint.id, { description: null }, runtime)).description).toBeNull();
    expect(await row(endpoint.id)).toMatchObject({ url: 'https://other.example.com/in', description: null, event_types: [] });
  });

  test('re-enabling an endpoint the service disabled clears its failure state and wakes the worker', async () => {
    const organizationId = await newOrganization();
    const endpoint = await newEndpoint(organizationId);
    await em().execute(
      `update webhook_endpoints set enabled = false, failing_since = now() - interval '6 days', disabled_reason = 'every message failed for 5 days' where id = ?`,
      [endpoint.id],
    );
    const wakes = runtime.wakes;
    expect(await updateWebhookEndpoint(systemScope(em()), organizationId, endpoint.id, { description: 'still off' }, runtime)).toMatchObject({
      enabled: false,
      disabledReason: 'every message failed for 5 days',
    });
    expect(runtime.wakes).toBe(wakes);
    expect(await updateWebhookEndpoint(systemScope(em()), organizationId, endpoint.id, { enabled: true }, runtime)).toMatchObject({ enabled: true, failingSince: null, disabledReason: null });
    expect(runtime.wakes).toBe(wakes + 1);
    expect(await row(endpoint.id)).toMatchObject({ enabled: true, failing_since: null, disabled_reason: null });
  });
});

describe('delete (D18)', () => {
  test("another organization's endpoint is NOT_FOUND; the endpoint goes with its deliveries; a second delete is NOT_FOUND", async () => {
    const organizationId = await newOrganization();
    const endpoint = await newEndpoint(organizationId);
    const other = await newOrganization();
    await sendTestWebhook(systemScope(em()), organizationId, endpoint.id, runtime);
    expect(await failure(deleteWebhookEndpoint(systemScope(em()), other, endpoint.id))).toMatchObject(endpointNotFound(endpoint.id));
    expect(await deleteWebhookEndpoint(systemScope(em()), organizationId, endpoint.id)).toEqual({ id: endpoint.id });
    expect(await em().execute(`select id from webhook_deliveries where endpoint_id = ?`, [endpoint.id])).toEqual([]);
    expect(await failure(deleteWebhookEndpoint(systemScope(em()), organizationId, endpoint.id))).toMatchObject(endpointNotFound(endpoint.id));
  });

  test('the operator names an endpoint of any organization (admin CLI)', async () => {
    const organizationId = await newOrganization();
    const endpoint = await newEndpoint(organizationId);
    expect(await organizationOfEndpoint(em(), endpoint.id)).toBe(organizationId);
    expect(await failure(organizationOfEndpoint(em(), 'whe_doesNotExist00000000'))).toMatchObject(endpointNotFound('whe_doesNotExist00000000'));
    expect(await failure(organizationOfEndpoint(em(), 'nope'))).toMatchObject(endpointNotFound('nope'));
  });
});

describe('secret rotation (D18)', () => {
  test('a new secret; the previous one keeps signing for the 24-hour overlap; another organization is NOT_FOUND', async () => {
    const organizationId = await newOrganization();
    const { endpoint, secret: first } = await createWebhookEndpoint(systemScope(em()), organizationId, { url: 'https://hooks.example.com/in' }, runtime);
    expect(await failure(rotateWebhookSecret(systemScope(em()), await newOrganization(), endpoint.id, runtime))).toMatchObject(endpointNotFound(endpoint.id));

    const before = Date.now();
    const rotated = await rotateWebhookSecret(systemScope(em()), organizationId, endpoint.id, runtime);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(first);
    expect(rotated.endpoint.previousSecretExpiresAt!.getTime()).toBeGreaterThanOrEqual(before + 24 * HOUR);
    expect(rotated.endpoint.previousSecretExpiresAt!.getTime()).toBeLessThanOrEqual(Date.now() + 24 * HOUR);
    const stored = await row(endpoint.id);
    expect(runtime.secrets.open(stored.secret_ciphertext as string)).toBe(rotated.secret);
    expect(runtime.secrets.open(stored.previous_secret_ciphertext as string)).toBe(first);
  });

  test('a rotation waits for the row lock and keeps the secret current when it gets it (no rotation is lost)', async () => {
    const organizationId = await newOrganization();
    const endpoint = await newEndpoint(organizationId);
    // Another connection holds the row, and changes the secret before letting go.
    const other = new Client({ connectionString: orm.config.get('clientUrl') });
    await other.connect();
    try {
      await other.query('begin');
      await other.query('select id from webhook_endpoints where id = $1 for update', [endpoint.id]);
      const rotation = rotateWebhookSecret(systemScope(em()), organizationId, endpoint.id, runtime);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await other.query('update webhook_endpoints set secret_ciphertext = $1 where id = $2', [runtime.secrets.seal('whsec_meanwhile'), endpoint.id]);
      await other.query('commit');
      const { secret } = await rotation;
      const stored = await row(endpoint.id);
      expect(runtime.secrets.open(stored.secret_ciphertext as string)).toBe(secret);
      expect(runtime.secrets.open(stored.previous_secret_ciphertext as string)).toBe('whsec_meanwhile');
    } finally {
      await other.end();
    }
  });

  test('a second rotation within the overlap: the two newest secrets sign', async () => {
    const organizationId = await newOrganization();
    const endpoint = await newEndpoint(organizationId);
    const first = await rotateWebhookSecret(systemScope(em()), organizationId, endpoint.id, runtime);
    const second = await rotateWebhookSecret(systemScope(em()), organizationId, endpoint.id, runtime);
    const stored = await row(endpoint.id);
    expect(runtime.secrets.open(stored.secret_ciphertext as string)).toBe(second.secret);
    expect(runtime.secrets.open(stored.previous_secret_ciphertext as string)).toBe(first.secret);
  });
});

describe('messages, redelivery and test messages (D18)', () => {
  test('a test message goes to this endpoint only, whatever its filter, also while disabled; another organization is NOT_FOUND', async () => {
    const organizationId = await newOrganization();
    const endpoint = await newEndpoint(organizationId, { eventTypes: ['booking.created'], enabled: false });
    const sibling = await newEndpoint(organizationId);
    expect(await failure(sendTestWebhook(systemScope(em()), await newOrganization(), endpoint.id, runtime))).toMatchObject(endpointNotFound(endpoint.id));

    const wakes = runtime.wakes;
    const message = await sendTestWebhook(systemScope(em()), organizationId, endpoint.id, runtime);
    expect(message).toEqual({
      id: expect.stringMatching(/^msg_/),
      type: 'webhook.test',
      payload: { type: 'webhook.test', timestamp: expect.any(String), data: { endpointId: endpoint.id, message: 'This is a test message.' } },
      status: WebhookMessageStatus.PENDING,
      createdAt: expect.any(Date),
      nextAttemptAt: expect.any(Date),
      attempts: [],
    });
    expect(runtime.wakes).toBe(wakes + 1);
    expect((await listWebhookMessages(em(), organizationId, sibling.id, { page: 1, limit: 20 })).total).toBe(0);
    expect((await listWebhookMessages(em(), organizationId, endpoint.id, { page: 1, limit: 20 })).messages.map((m) => m.id)).toEqual([message.id]);
  });

  test('messages: paging checked first (both fields), then the endpoint; newest first, filtered by status', async () => {
    const organizationId = await newOrganization();
    const endpoint = await newEndpoint(organizationId);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await sendTestWebhook(systemScope(em()), organizationId, endpoint.id, runtime)).id);
    await em().execute(`update webhook_deliveries set status = 'FAILED' where message_id = ?`, [ids[0]]);

    expect(fieldsOf(await failure(listWebhookMessages(em(), organizationId, 'whe_doesNotExist00000000', { page: 0, limit: 101 })))).toEqual(['page', 'limit']);
    const foreign = await failure(listWebhookMessages(em(), await newOrganization(), endpoint.id, { page: 1, limit: 20 }));
    expect(foreign).toMatchObject(endpointNotFound(endpoint.id));

    const page = await listWebhookMessages(em(), organizationId, endpoint.id, { page: 1, limit: 2 });
    expect({ ...page, messages: page.messages.map((m) => m.id) }).toEqual({ messages: [ids[2], ids[1]], total: 3, page: 1, limit: 2, nextCursor: null });
    const failed = await listWebhookMessages(em(), organizationId, endpoint.id, { page: 1, limit: 20, status: WebhookMessageStatus.FAILED });
    expect(failed).toMatchObject({ total: 1, messages: [{ id: ids[0], status: 'FAILED', nextAttemptAt: null }] });
  });

  test('redeliver: due again now with a fresh schedule and the same id; unknown, foreign or leased messages', async () => {
    const organizationId = await newOrganization();
    const endpoint = await newEndpoint(organizationId);
    const sibling = await newEndpoint(organizationId);
    const { id: messageId } = await sendTestWebhook(systemScope(em()), organizationId, endpoint.id, runtime);
    await em().execute(
      `update webhook_deliveries set status = 'FAILED', retry_index = 7, next_attempt_at = now() + interval '1 day' where message_id = ?`,
      [messageId],
    );

    expect(await failure(redeliverWebhookMessage(systemScope(em()), organizationId, endpoint.id, 'msg_doesNotExist00000000', runtime))).toMatchObject({
      code: 'WEBHOOK_MESSAGE_NOT_FOUND',
      message: 'No webhook message with id "msg_doesNotExist00000000" for this endpoint',
      details: { id: 'msg_doesNotExist00000000' },
    });
    // The message exists, but not for that endpoint; nor for another organization.
    expect(await failure(redeliverWebhookMessage(systemScope(em()), organizationId, sibling.id, messageId, runtime))).toMatchObject({ code: 'WEBHOOK_MESSAGE_NOT_FOUND' });
    expect(await failure(redeliverWebhookMessage(systemScope(em()), await newOrganization(), endpoint.id, messageId, runtime))).toMatchObject(endpointNotFound(endpoint.id));

    const wakes = runtime.wakes;
    const before = Date.now();
    const redelivered = await redeliverWebhookMessage(systemScope(em()), organizationId, endpoint.id, messageId, runtime);
    expect(redelivered).toMatchObject({ id: messageId, status: 'PENDING' });
    expect(redelivered.nextAttemptAt!.getTime()).toBeLessThanOrEqual(Date.now() + 1000);
    expect(redelivered.nextAttemptAt!.getTime()).toBeGreaterThan(before - 60_000);
    expect(runtime.wakes).toBe(wakes + 1);
    const [delivery] = await em().execute(`select retry_index from webhook_deliveries where message_id = ?`, [messageId]);
    expect(delivery).toEqual({ retry_index: 0 });

    // An attempt under way (PENDING under a worker's lease) is left to that attempt.
    await em().execute(`update webhook_deliveries set locked_until = now() + interval '1 minute', next_attempt_at = now() + interval '1 hour' where message_id = ?`, [
      messageId,
    ]);
    const leased = await redeliverWebhookMessage(systemScope(em()), organizationId, endpoint.id, messageId, runtime);
    expect(leased.nextAttemptAt!.getTime()).toBeGreaterThan(Date.now() + 30 * 60_000);
    expect(runtime.wakes).toBe(wakes + 1);
  });

  test("an organization's change reaches only its own enabled endpoints that want the type", async () => {
    const organizationId = await newOrganization();
    const wanting = await newEndpoint(organizationId, { eventTypes: ['event.deleted'] });
    const other = await newEndpoint(organizationId, { eventTypes: ['booking.created'] });
    const disabled = await newEndpoint(organizationId, { enabled: false });
    const foreign = await newEndpoint(await newOrganization());
    await em().transactional((tx) => enqueueWebhook(tx, organizationId, 'event.deleted', { id: 'evt_x', slug: 'x' }));
    const totals = await Promise.all(
      [wanting, other, disabled].map(async (endpoint) => (await listWebhookMessages(em(), organizationId, endpoint.id, { page: 1, limit: 20 })).total),
    );
    expect(totals).toEqual([1, 0, 0]);
    expect((await listWebhookMessages(em(), foreign.organization.id, foreign.id, { page: 1, limit: 20 })).total).toBe(0);
  });
});
