import http from 'node:http';
import net from 'node:net';
import { createTenant, eventInput } from './helpers/factories';
import { startTestApp, type TestApp } from './helpers/test-app';
import { useTestApp } from './helpers/use-test-app';
import { CREATE_ENDPOINT, MESSAGES, verify, WEBHOOK_TEST_ENV, WebhookReceiver } from './helpers/webhook-receiver';
import { ServerSecrets } from '../src/platform/crypto/server-secrets';
import { WebhookSender } from '../src/modules/webhook/webhook-sender';

// Three retries 100 ms apart (jittered), a 500 ms timeout per attempt.
const ctx = useTestApp({ ...WEBHOOK_TEST_ENV, WEBHOOK_TIMEOUT_MS: '500' });

const receivers: WebhookReceiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});
async function receiver(port = 0): Promise<WebhookReceiver> {
  const started = await new WebhookReceiver().listen(port);
  receivers.push(started);
  return started;
}

async function endpointFor(url: string, on: TestApp = ctx.app) {
  const { key: apiKey } = await createTenant(on.orm);
  const created = await on.client.graphql(apiKey, CREATE_ENDPOINT, { input: { url } });
  expect(created.body.errors).toBeUndefined();
  return { key: apiKey, ...created.body.data.createWebhookEndpoint };
}

async function messagesOf(key: string, endpointId: string, on: TestApp = ctx.app) {
  const response = await on.client.graphql(key, MESSAGES, { endpointId });
  expect(response.body.errors).toBeUndefined();
  return response.body.data.webhookMessages;
}

async function waitForStatus(key: string, endpointId: string, status: string, on: TestApp = ctx.app) {
  const until = Date.now() + 15_000;
  for (;;) {
    const list = await messagesOf(key, endpointId, on);
    if (list.messages.length > 0 && list.messages.every((message: { status: string }) => message.status === status)) return list;
    if (Date.now() > until) throw new Error(`messages not ${status}: ${JSON.stringify(list)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('a receiver answering 500 gets retries with the same webhook-id, and the message once it answers 2xx', async () => {
  const target = await receiver();
  target.behaviour = (message) => (target.received.filter((m) => m.id === message.id).length < 3 ? 500 : 204);
  const { key, secret, endpoint } = await endpointFor(target.url);
  await ctx.app.client.rest('POST', '/v1/events', key, eventInput());

  const received = await target.waitFor((all) => all.length === 3);
  expect(new Set(received.map((message) => message.id)).size).toBe(1);
  expect(new Set(received.map((message) => message.body)).size).toBe(1);
  for (const message of received) expect(verify(secret, message)).toEqual(message.json);

  const list = await waitForStatus(key, endpoint.id, 'SUCCEEDED');
  const [message] = list.messages;
  expect(message).toMatchObject({ id: received[0].id, type: 'event.created', payload: received[0].json, nextAttemptAt: null });
  expect(message.attempts).toEqual([
    expect.objectContaining({ attemptNumber: 1, statusCode: 500, error: 'HTTP 500', responseBody: 'failing with 500' }),
    expect.objectContaining({ attemptNumber: 2, statusCode: 500, error: 'HTTP 500' }),
    expect.objectContaining({ attemptNumber: 3, statusCode: 204, error: null, responseBody: null }),
  ]);
  for (const attempt of message.attempts) {
    expect(attempt.attemptedAt).toMatch(/Z$/);
    expect(attempt.durationMs).toBeGreaterThanOrEqual(0);
  }
  // One log line per failed attempt, naming the message, never the secret.
  const failures = ctx.app.logs.filter((line) => line.includes('webhook attempt failed') && line.includes(received[0].id));
  expect(failures).toHaveLength(2);
  expect(ctx.app.logs.join('\n')).not.toContain(secret);
  expect(ctx.app.logs.join('\n')).not.toContain(secret.slice(6));
});

test('a receiver that never answers times out, is retried, and the retries run out into FAILED', async () => {
  const target = await receiver();
  target.behaviour = 'hang';
  const { key, endpoint } = await endpointFor(target.url);
  await ctx.app.client.rest('POST', '/v1/events', key, eventInput());

  const list = await waitForStatus(key, endpoint.id, 'FAILED');
  const attempts = list.messages[0].attempts;
  // The first attempt and the three retries of the schedule.
  expect(attempts).toHaveLength(4);
  for (const attempt of attempts) expect(attempt).toMatchObject({ statusCode: null, error: 'timeout: no response within 500 ms' });
  expect(new Set(target.received.map((message) => message.id)).size).toBe(1);
  expect(target.received).toHaveLength(4);

  // Redelivery on demand: same webhook-id, a fresh schedule.
  target.behaviour = 200;
  const redelivered = await ctx.app.client.graphql(
    key,
    'mutation($e: ID!, $m: ID!) { redeliverWebhookMessage(endpointId: $e, messageId: $m) { id status } }',
    { e: endpoint.id, m: list.messages[0].id },
  );
  expect(redelivered.body.data.redeliverWebhookMessage).toEqual({ id: list.messages[0].id, status: 'PENDING' });
  const done = await waitForStatus(key, endpoint.id, 'SUCCEEDED');
  expect(done.messages[0].attempts.map((attempt: { attemptNumber: number }) => attempt.attemptNumber)).toEqual([1, 2, 3, 4, 5]);
  expect(target.received.at(-1)!.id).toBe(list.messages[0].id);
});

test('connection refused is retried, and a receiver that comes back gets every message', async () => {
  // A port with nothing listening: take one, then free it.
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()));
  const port = (probe.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));

  // Retries 100 ms to 3.2 s apart: the receiver comes back while they run.
  const slow = await startTestApp({ ...WEBHOOK_TEST_ENV, WEBHOOK_RETRY_SCHEDULE_MS: '100,200,400,800,1600,3200' });
  try {
    const { key, endpoint } = await endpointFor(`http://127.0.0.1:${port}/hooks`, slow);
    const slugs: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      slugs.push((await slow.client.rest('POST', '/v1/events', key, eventInput())).body.slug);
    }
    const until = Date.now() + 10_000;
    for (;;) {
      const list = await messagesOf(key, endpoint.id, slow);
      if (list.messages.every((message: { attempts: unknown[] }) => message.attempts.length >= 2)) {
        expect(list.messages[0].attempts[0].error).toMatch(/^ECONNREFUSED/);
        break;
      }
      if (Date.now() > until) throw new Error(JSON.stringify(list));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const back = await receiver(port);
    const received = await back.waitFor((all) => new Set(all.map((message) => message.json.data.slug)).size === 3);
    expect(new Set(received.map((message) => message.json.data.slug))).toEqual(new Set(slugs));
    await waitForStatus(key, endpoint.id, 'SUCCEEDED', slow);
  } finally {
    await slow.close();
  }
});

test('sendTestWebhook sends a webhook.test message; rotation signs with both secrets for 24 hours', async () => {
  const target = await receiver();
  const { key, secret, endpoint } = await endpointFor(target.url);
  const test = await ctx.app.client.graphql(key, 'mutation($e: ID!) { sendTestWebhook(endpointId: $e) { id type status } }', { e: endpoint.id });
  expect(test.body.data.sendTestWebhook).toMatchObject({ id: expect.stringMatching(/^msg_/), type: 'webhook.test' });
  const [first] = await target.waitFor((all) => all.length === 1);
  expect(first.json).toMatchObject({ type: 'webhook.test', data: { endpointId: endpoint.id } });
  expect(verify(secret, first)).toEqual(first.json);

  const rotated = await ctx.app.client.graphql(
    key,
    'mutation($id: ID!) { rotateWebhookSecret(id: $id) { secret endpoint { id previousSecretExpiresAt } } }',
    { id: endpoint.id },
  );
  const { secret: newSecret, endpoint: after } = rotated.body.data.rotateWebhookSecret;
  expect(newSecret).not.toBe(secret);
  const overlap = new Date(after.previousSecretExpiresAt).getTime() - Date.now();
  expect(overlap).toBeGreaterThan(23.9 * 3600 * 1000);
  expect(overlap).toBeLessThanOrEqual(24 * 3600 * 1000);

  await ctx.app.client.graphql(key, 'mutation($e: ID!) { sendTestWebhook(endpointId: $e) { id } }', { e: endpoint.id });
  const [, second] = await target.waitFor((all) => all.length === 2);
  expect(String(second.headers['webhook-signature']).split(' ')).toHaveLength(2);
  expect(verify(newSecret, second)).toEqual(second.json);
  expect(verify(secret, second)).toEqual(second.json);

  // Once the overlap is over, only the new secret signs.
  await ctx.app.orm.em.fork().execute(`update webhook_endpoints set previous_secret_expires_at = now() - interval '1 second' where id = ?`, [endpoint.id]);
  await ctx.app.client.graphql(key, 'mutation($e: ID!) { sendTestWebhook(endpointId: $e) { id } }', { e: endpoint.id });
  const [, , third] = await target.waitFor((all) => all.length === 3);
  expect(String(third.headers['webhook-signature']).split(' ')).toHaveLength(1);
  expect(verify(newSecret, third)).toEqual(third.json);
  expect(() => verify(secret, third)).toThrow();
});

test('an endpoint whose messages have all failed for 5 days is disabled, and gets nothing until re-enabled', async () => {
  const target = await receiver();
  target.behaviour = 503;
  const { key, endpoint } = await endpointFor(target.url);
  // It has been failing for more than 5 days.
  await ctx.app.orm.em.fork().execute(`update webhook_endpoints set failing_since = now() - interval '5 days 1 minute' where id = ?`, [endpoint.id]);
  await ctx.app.client.rest('POST', '/v1/events', key, eventInput());
  const until = Date.now() + 10_000;
  let state: { enabled: boolean; disabledReason: string | null };
  for (;;) {
    const list = await ctx.app.client.graphql(key, '{ webhookEndpoints { id enabled disabledReason } }');
    state = list.body.data.webhookEndpoints[0];
    if (!state.enabled || Date.now() > until) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(state).toEqual({ id: endpoint.id, enabled: false, disabledReason: 'every message failed for 5 days' });
  // The audit log says the service did it (D26), once.
  const audited = await ctx.app.client.graphql(key, `{ auditLog(action: "webhook_endpoint.updated") { entries { actor { kind id label } targetId summary } } }`);
  expect(audited.body.data.auditLog.entries).toEqual([
    {
      actor: { kind: 'SYSTEM', id: null, label: 'system:webhook-delivery' },
      targetId: endpoint.id,
      summary: { enabled: { from: true, to: false }, disabledReason: 'every message failed for 5 days' },
    },
  ]);
  const attemptsWhenDisabled = target.received.length;
  expect(attemptsWhenDisabled).toBe(1);

  // Disabled: new changes write nothing for it.
  await ctx.app.client.rest('POST', '/v1/events', key, eventInput());
  const [{ count }] = await ctx.app.orm.em.fork().execute(`select count(*) from webhook_deliveries where endpoint_id = ?`, [endpoint.id]);
  expect(Number(count)).toBe(1);

  // Re-enabled, its pending message is delivered.
  target.behaviour = 200;
  const enabled = await ctx.app.client.graphql(key, 'mutation($id: ID!) { updateWebhookEndpoint(id: $id, input: {enabled: true}) { enabled disabledReason } }', { id: endpoint.id });
  expect(enabled.body.data.updateWebhookEndpoint).toEqual({ enabled: true, disabledReason: null });
  await waitForStatus(key, endpoint.id, 'SUCCEEDED');
});

test('/metrics counts attempts by result and deliveries by outcome, and shows the oldest pending age', async () => {
  const response = await ctx.app.client.request('GET', '/metrics');
  expect(response.status).toBe(200);
  expect(response.text).toMatch(/webhook_attempts_total\{result="success"\} [1-9]/);
  expect(response.text).toMatch(/webhook_attempts_total\{result="http_error"\} [1-9]/);
  expect(response.text).toMatch(/webhook_attempts_total\{result="timeout"\} [1-9]/);
  expect(response.text).toMatch(/webhook_deliveries_total\{outcome="succeeded"\} [1-9]/);
  expect(response.text).toMatch(/webhook_deliveries_total\{outcome="failed"\} [1-9]/);
  expect(response.text).toMatch(/webhook_oldest_pending_seconds \d/);
  expect(response.text).toMatch(/webhook_attempt_duration_seconds_count [1-9]/);
});

test('a secret sealed with another server key is not sent: the attempt says why, and nothing reaches the receiver', async () => {
  const target = await receiver();
  const { key, endpoint } = await endpointFor(target.url);
  const foreign = new ServerSecrets('another server key', undefined).box('webhook-signing-secret').seal(`whsec_${Buffer.alloc(32, 1).toString('base64')}`);
  await ctx.app.orm.em.fork().execute(`update webhook_endpoints set secret_ciphertext = ? where id = ?`, [foreign, endpoint.id]);
  await ctx.app.client.graphql(key, 'mutation($e: ID!) { sendTestWebhook(endpointId: $e) { id } }', { e: endpoint.id });
  const list = await waitForStatus(key, endpoint.id, 'FAILED');
  expect(list.messages[0].attempts[0]).toMatchObject({
    statusCode: null,
    error: "not sent: the signing secret cannot be decrypted with this server's SECRET_KEY",
  });
  expect(target.received).toHaveLength(0);
});

/**
 * A receiver that answers the first request of each connection and keeps the connection open, then
 * drops it unanswered when another request arrives on it: what a receiver does to a request that
 * crossed its close of an idle kept-alive connection (its keep-alive timeout ran out as it arrived).
 */
async function closingWhenIdleReceiver() {
  const served = new WeakMap<net.Socket, number>();
  const answered: string[] = [];
  let connections = 0;
  const server = http.createServer((req, res) => {
    const count = (served.get(req.socket) ?? 0) + 1;
    served.set(req.socket, count);
    if (count > 1) {
      req.socket.destroy();
      return;
    }
    req.resume();
    req.on('end', () => {
      answered.push(String(req.headers['webhook-id']));
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  server.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/hooks`,
    answered,
    connections: () => connections,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

test('a message sent on a kept-alive connection the receiver has just closed goes again on a new one: one attempt, not a failed one and a retry', async () => {
  const target = await closingWhenIdleReceiver();
  try {
    const { key, endpoint } = await endpointFor(target.url);
    await ctx.app.client.rest('POST', '/v1/events', key, eventInput());
    await waitForStatus(key, endpoint.id, 'SUCCEEDED');
    // The first message left its connection in the worker's keep-alive pool: the second goes out on it.
    await ctx.app.client.rest('POST', '/v1/events', key, eventInput());
    const until = Date.now() + 15_000;
    let list = await messagesOf(key, endpoint.id);
    while (list.messages.length < 2 || list.messages.some((message: { status: string }) => message.status !== 'SUCCEEDED')) {
      if (Date.now() > until) throw new Error(JSON.stringify(list));
      await new Promise((resolve) => setTimeout(resolve, 50));
      list = await messagesOf(key, endpoint.id);
    }
    for (const message of list.messages) {
      expect(message.attempts).toEqual([expect.objectContaining({ attemptNumber: 1, statusCode: 204, error: null })]);
    }
    expect([...target.answered].sort()).toEqual(list.messages.map((message: { id: string }) => message.id).sort());
    expect(target.connections()).toBe(2);
  } finally {
    await target.close();
  }
});

test('a connection of its own reset before an answer is a failed attempt, never sent twice within it', async () => {
  const target = await closingWhenIdleReceiver();
  const resetting = http.createServer((req) => req.socket.destroy());
  await new Promise<void>((resolve) => resetting.listen(0, '127.0.0.1', () => resolve()));
  let hits = 0;
  resetting.on('request', () => (hits += 1));
  const sender = new WebhookSender({ timeoutMs: 1000, allowPrivateNetworks: true });
  const secrets = [`whsec_${Buffer.alloc(32).toString('base64')}`];
  try {
    const outcome = await sender.send({ id: 'msg_reset', body: '{}', url: `http://127.0.0.1:${(resetting.address() as net.AddressInfo).port}/in`, secrets });
    expect(outcome).toMatchObject({ ok: false, statusCode: null, error: expect.stringMatching(/^ECONNRESET/) });
    expect(hits).toBe(1);
    // A kept-alive one: sent again on a new connection, within the attempt.
    expect(await sender.send({ id: 'msg_1', body: '{}', url: target.url, secrets })).toMatchObject({ ok: true, statusCode: 204 });
    expect(await sender.send({ id: 'msg_2', body: '{}', url: target.url, secrets })).toMatchObject({ ok: true, statusCode: 204 });
    expect(target.answered).toEqual(['msg_1', 'msg_2']);
  } finally {
    sender.close();
    await target.close();
    resetting.closeAllConnections();
    await new Promise<void>((resolve) => resetting.close(() => resolve()));
  }
});
