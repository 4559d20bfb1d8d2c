import http from 'node:http';
import net from 'node:net';
import { useTestApp } from './helpers/use-test-app';
import { CREATE_ENDPOINT, MESSAGES } from './helpers/webhook-receiver';
import { registrationError, type Resolve } from '../src/platform/outbox/webhook-destination';
import { WebhookSender } from '../src/modules/webhook/webhook-sender';

// Production rules: https only, public addresses only.
const ctx = useTestApp({ WEBHOOK_RETRY_SCHEDULE_MS: '60000', WEBHOOK_POLL_INTERVAL_MS: '100' }, { tenant: true });

const REFUSED = [
  'http://hooks.example.com/in',
  'https://127.0.0.1/in',
  'https://127.1.2.3:8443/in',
  'https://10.0.0.5/in',
  'https://172.16.4.4/in',
  'https://192.168.1.10/in',
  'https://169.254.169.254/latest/meta-data/',
  'https://100.100.100.200/latest/meta-data/',
  'https://0.0.0.0/in',
  'https://[::1]/in',
  'https://[fd00:ec2::254]/in',
  'https://[fe80::1]/in',
  'https://[::ffff:127.0.0.1]/in',
  'https://[::ffff:a9fe:a9fe]/in',
  'https://localhost/in',
  'https://metadata.google.internal/computeMetadata/v1/',
  'https://user:pass@hooks.example.com/in',
  'ftp://hooks.example.com/in',
  'not a url',
];

test.each(REFUSED)('registration refuses %s with 400 on url', async (url) => {
  const response = await ctx.app.client.graphql(ctx.key, CREATE_ENDPOINT, { input: { url } });
  expect(response.body.errors[0].extensions).toEqual({
    code: 'VALIDATION_ERROR',
    details: { errors: [{ field: 'url', message: expect.any(String) }] },
  });
  const update = await ctx.app.client.graphql(ctx.key, '{ webhookEndpoints { id } }');
  expect(update.body.data.webhookEndpoints).toEqual([]);
});

test('a public https URL is accepted (a name that does not resolve yet too: each send checks again)', async () => {
  const response = await ctx.app.client.graphql(ctx.key, CREATE_ENDPOINT, { input: { url: 'https://hooks.example.com/in', eventTypes: ['event.created'] } });
  expect(response.body.errors).toBeUndefined();
  const { endpoint } = response.body.data.createWebhookEndpoint;
  await ctx.app.client.graphql(ctx.key, 'mutation($id: ID!) { deleteWebhookEndpoint(id: $id) { id } }', { id: endpoint.id });
});

test('a hostname that resolves to a private or metadata address is refused at registration', async () => {
  const resolveTo = (address: string): Resolve => async () => [{ address, family: address.includes(':') ? 6 : 4 }];
  expect(await registrationError('https://hooks.example.com/in', false, resolveTo('10.1.2.3'))).toMatch(/private/);
  expect(await registrationError('https://hooks.example.com/in', false, resolveTo('169.254.169.254'))).toMatch(/metadata/);
  expect(await registrationError('https://hooks.example.com/in', false, resolveTo('::1'))).toMatch(/loopback/);
  expect(await registrationError('https://hooks.example.com/in', false, resolveTo('93.184.215.14'))).toBeUndefined();
  // Several addresses: one inside is enough to refuse.
  const mixed: Resolve = async () => [{ address: '93.184.215.14', family: 4 }, { address: '192.168.0.7', family: 4 }];
  expect(await registrationError('https://hooks.example.com/in', false, mixed)).toMatch(/private/);
});

/** A TCP server that counts the connections it gets (it must get none). */
async function connectionCounter(): Promise<{ port: number; count: () => number; close: () => Promise<void> }> {
  let connections = 0;
  const server = net.createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    port: (server.address() as net.AddressInfo).port,
    count: () => connections,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

test('at send time the name is resolved and checked again: a name that now points inside is refused without connecting', async () => {
  const counter = await connectionCounter();
  const sender = new WebhookSender({
    timeoutMs: 1000,
    allowPrivateNetworks: false,
    resolve: async () => [{ address: '127.0.0.1', family: 4 }],
  });
  try {
    const outcome = await sender.send({ id: 'msg_test', body: '{}', url: `https://hooks.example.com:${counter.port}/in`, secrets: [`whsec_${Buffer.alloc(32).toString('base64')}`] });
    expect(outcome).toMatchObject({ ok: false, statusCode: null, error: 'refused: hooks.example.com resolves to 127.0.0.1, which is not a public address' });
    expect(counter.count()).toBe(0);
  } finally {
    sender.close();
    await counter.close();
  }
});

test('the worker refuses a stored destination that resolves to loopback (DNS changed since registration)', async () => {
  const counter = await connectionCounter();
  try {
    const created = await ctx.app.client.graphql(ctx.key, CREATE_ENDPOINT, { input: { url: 'https://hooks.example.com/in' } });
    const { endpoint } = created.body.data.createWebhookEndpoint;
    // The stored name now resolves to 127.0.0.1 (as /etc/hosts makes `localhost` do).
    await ctx.app.orm.em.fork().execute(`update webhook_endpoints set url = ? where id = ?`, [`https://localhost:${counter.port}/in`, endpoint.id]);
    await ctx.app.client.graphql(ctx.key, 'mutation($e: ID!) { sendTestWebhook(endpointId: $e) { id } }', { e: endpoint.id });
    const until = Date.now() + 10_000;
    let attempts: Array<{ error: string; statusCode: number | null }> = [];
    while (attempts.length === 0 && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      attempts = (await ctx.app.client.graphql(ctx.key, MESSAGES, { endpointId: endpoint.id })).body.data.webhookMessages.messages[0].attempts;
    }
    expect(attempts[0]).toMatchObject({ statusCode: null, error: expect.stringMatching(/^refused: localhost resolves to (127\.0\.0\.1|::1)/) });
    expect(counter.count()).toBe(0);
  } finally {
    await counter.close();
  }
});

test('redirects are not followed: a 3xx is a failed attempt', async () => {
  let hits = 0;
  const redirecting = http.createServer((_req, res) => {
    hits += 1;
    res.writeHead(307, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
  });
  await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', () => resolve()));
  const sender = new WebhookSender({ timeoutMs: 1000, allowPrivateNetworks: true });
  try {
    const port = (redirecting.address() as net.AddressInfo).port;
    const outcome = await sender.send({ id: 'msg_test', body: '{}', url: `http://127.0.0.1:${port}/in`, secrets: [`whsec_${Buffer.alloc(32).toString('base64')}`] });
    expect(outcome).toMatchObject({ ok: false, statusCode: 307, error: 'HTTP 307' });
    expect(hits).toBe(1);
  } finally {
    sender.close();
    redirecting.closeAllConnections();
    await new Promise<void>((resolve) => redirecting.close(() => resolve()));
  }
});
