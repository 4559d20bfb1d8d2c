import { spawn } from 'node:child_process';
import { createCipheriv, createHash, randomBytes, randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import { openDatabase } from '../src/schema/database';
import { secretFingerprint } from '../src/platform/crypto/secret-box';
import { ServerSecrets } from '../src/platform/crypto/server-secrets';
import { createTestDatabase, describeOnPostgres, type TestDatabase } from './helpers/database';
import { createPublishedEvent } from './helpers/bookings';
import { createTenant, eventInput } from './helpers/factories';
import type { HttpResponse, HttpsClient } from './helpers/https-client';
import { spawnServer, type ServerProcess } from './helpers/server-process';
import { childEnv, runCli, spawnServer as spawnEmbedded, type ServerProcess as SpawnedServer } from './helpers/spawned-server';
import { CREATE_ENDPOINT, verify, WEBHOOK_TEST_ENV, WebhookReceiver } from './helpers/webhook-receiver';

// D24 with real processes: instances share one server secret on purpose; a server or CLI with another
// secret (or its own DATA_DIR's key file) refuses at start with one line; `admin secret rotate` moves
// a running deployment to a new secret.
jest.setTimeout(180_000);

const ROOT = path.resolve(__dirname, '..');
const newSecret = () => randomBytes(32).toString('base64');
const keyIdOf = (secret: string) => secretFingerprint(secret).slice(0, 12);

/** `node dist/server.js` expected to refuse: its exit code and output (killed after 60 s if it serves instead). */
function startRefused(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const dataDir = env.DATA_DIR ?? mkdtempSync(path.join(os.tmpdir(), 'event-service-refused-'));
  const child = spawn(process.execPath, [path.join(ROOT, 'dist/server.js')], {
    env: childEnv({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env, DATA_DIR: dataDir }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      if (env.DATA_DIR === undefined) rmSync(dataDir, { recursive: true, force: true });
      resolve({ code, stdout, stderr });
    }),
  );
}

/** One line on stderr, naming SECRET_KEY and where the right value lives, no stack trace; and it never served. */
function expectOneLineRefusal(run: { code: number | null; stdout: string; stderr: string }, prefix: 'fatal' | 'error', reason: RegExp): void {
  expect(run.code).toBe(1);
  const lines = run.stderr.split('\n').filter(Boolean);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(new RegExp(`^${prefix}: `));
  expect(lines[0]).toMatch(reason);
  expect(lines[0]).toContain('SECRET_KEY');
  expect(lines[0]).toMatch(/the value the (other|server) instances use .*DATA_DIR\/secret\.key of the first instance/);
  expect(run.stderr).not.toMatch(/\n\s+at /);
  expect(run.stdout).not.toContain('listening on');
}

const CREATE_EVENT = 'mutation($input: CreateEventInput!) { createEvent(input: $input) { id slug } }';
const SEND_TEST = 'mutation($e: ID!) { sendTestWebhook(endpointId: $e) { id } }';

function createEndpointWithKey(client: HttpsClient, apiKey: string, idempotencyKey: string, url: string): Promise<HttpResponse> {
  return client.request('POST', '/graphql', {
    headers: { authorization: `Bearer ${apiKey}`, 'idempotency-key': idempotencyKey },
    json: { query: CREATE_ENDPOINT, variables: { input: { url } } },
  });
}

describeOnPostgres('several server processes on one database')('one server secret across instances (D24)', () => {
  let database: TestDatabase;
  let orm: MikroORM;
  let receiver: WebhookReceiver;
  const secret = newSecret();
  let servers: ServerProcess[] = [];
  let apiKey: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    orm = await openDatabase({ clientUrl: database.url, pool: database.pool });
    ({ key: apiKey } = await createTenant(orm));
    receiver = await new WebhookReceiver().listen();
    // The first serves only (no webhook worker): whatever is delivered, the second delivers. It has the
    // secret under its old name: the same secret for D24.
    servers = await Promise.all([
      spawnServer({ ...WEBHOOK_TEST_ENV, DATABASE_URL: database.url, SECRET_KEY: secret, WEBHOOK_WORKER: 'false' }),
      spawnServer({ ...WEBHOOK_TEST_ENV, DATABASE_URL: database.url, WEBHOOK_SECRET_KEY: secret }),
    ]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await receiver?.close();
    await orm?.close(true);
    await database?.drop();
  });

  test('the first start records the fingerprint, HKDF-derived: never the secret', async () => {
    const rows = await orm.em.fork().execute<Array<{ fingerprint: string }>>('select fingerprint from server_secret');
    expect(rows).toEqual([{ fingerprint: secretFingerprint(secret) }]);
    expect(rows[0].fingerprint).not.toContain(createHash('sha256').update(secret).digest('hex'));
  });

  test('an Idempotency-Key retry on the other instance replays the sealed answer, through both doors', async () => {
    const [first, second] = servers;
    const key = randomUUID();
    const input = eventInput();
    const headers = { authorization: `Bearer ${apiKey}`, 'idempotency-key': key };
    const created = await first.client.request('POST', '/v1/events', { headers, json: input });
    expect(created.status).toBe(201);
    const replayed = await second.client.request('POST', '/v1/events', { headers, json: input });
    expect([replayed.status, replayed.text, replayed.headers['idempotent-replayed']]).toEqual([201, created.text, 'true']);

    // An answer holding a secret shown once (the signing secret) replays from the other instance.
    const graphqlKey = randomUUID();
    const endpoint = await createEndpointWithKey(first.client, apiKey, graphqlKey, `${receiver.url}?t=replay`);
    expect(endpoint.body.data.createWebhookEndpoint.secret).toMatch(/^whsec_/);
    const again = await createEndpointWithKey(second.client, apiKey, graphqlKey, `${receiver.url}?t=replay`);
    expect([again.status, again.text, again.headers['idempotent-replayed']]).toEqual([200, endpoint.text, 'true']);

    // And the other way round, a GraphQL create answered by the second, retried on the first.
    const graphqlEvent = { headers: { authorization: `Bearer ${apiKey}`, 'idempotency-key': randomUUID() }, json: { query: CREATE_EVENT, variables: { input: eventInput() } } };
    const event = await second.client.request('POST', '/graphql', graphqlEvent);
    expect(event.body.data.createEvent.slug).toBeDefined();
    const eventAgain = await first.client.request('POST', '/graphql', graphqlEvent);
    expect([eventAgain.status, eventAgain.text, eventAgain.headers['idempotent-replayed']]).toEqual([200, event.text, 'true']);
  });

  test('a stored answer sealed under a secret this instance lacks (a rotation under way) is 503 with Retry-After, not 500', async () => {
    const [first, second] = servers;
    const key = randomUUID();
    const input = eventInput();
    const headers = { authorization: `Bearer ${apiKey}`, 'idempotency-key': key };
    expect((await first.client.request('POST', '/v1/events', { headers, json: input })).status).toBe(201);
    const foreign = new ServerSecrets(newSecret(), undefined).box('idempotent-answer').seal('{"an":"answer"}');
    await orm.em.fork().execute('update idempotency_keys set response_body = ? where key = ?', [foreign, key]);
    const retried = await second.client.request('POST', '/v1/events', { headers, json: input });
    expect([retried.status, retried.headers['retry-after'], retried.body.error.code]).toEqual([503, '1', 'SERVICE_UNAVAILABLE']);
  });

  test('a webhook endpoint created through one instance is delivered, signed with its secret, by the other', async () => {
    const [first] = servers;
    const created = await first.client.graphql(apiKey, CREATE_ENDPOINT, { input: { url: `${receiver.url}?t=across` } });
    const { secret: signingSecret, endpoint } = created.body.data.createWebhookEndpoint;
    const sent = await first.client.graphql(apiKey, SEND_TEST, { e: endpoint.id });
    expect(sent.body.errors).toBeUndefined();
    const event = await first.client.rest('POST', '/v1/events', apiKey, eventInput());
    expect(event.status).toBe(201);
    const received = await receiver.waitFor((all) => all.filter((message) => message.path.endsWith('t=across')).length >= 2);
    const mine = received.filter((message) => message.path.endsWith('t=across'));
    for (const message of mine) expect(verify(signingSecret, message)).toEqual(message.json);
    expect(mine.map((message) => message.json.type).sort()).toEqual(['event.created', 'webhook.test']);
  });

  test('a third instance with another SECRET_KEY exits 1 at start, with one line', async () => {
    const refused = await startRefused({ DATABASE_URL: database.url, SECRET_KEY: newSecret() });
    expectOneLineRefusal(refused, 'fatal', new RegExp(`fingerprint ${keyIdOf(secret)}; this process has [0-9a-f]{12} from SECRET_KEY\\).*refusing to start$`));
  });

  test('an instance with its own DATA_DIR and no SECRET_KEY (its own key file) exits 1 at start, with one line', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'event-service-own-dir-'));
    try {
      const refused = await startRefused({ DATABASE_URL: database.url, DATA_DIR: dataDir });
      expectOneLineRefusal(refused, 'fatal', new RegExp(`from its key file ${dataDir}/secret\\.key, as SECRET_KEY is not set\\)`));
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('SECRET_KEY and WEBHOOK_SECRET_KEY set to different values: exit 1 with one line', async () => {
    const refused = await startRefused({ DATABASE_URL: database.url, SECRET_KEY: secret, WEBHOOK_SECRET_KEY: newSecret() });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe('fatal: SECRET_KEY and WEBHOOK_SECRET_KEY (its old name) are both set, to different values: keep only SECRET_KEY\n');
  });

  test('the CLI with another secret, or with none, refuses; with the same one (either name) it runs', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'event-service-cli-dir-'));
    try {
      const wrong = await runCli(['org', 'create', '--name', 'Refused'], { DATABASE_URL: database.url, SECRET_KEY: newSecret(), DATA_DIR: dataDir });
      expectOneLineRefusal(wrong, 'error', /refusing to run the command$/);
      const none = await runCli(['org', 'create', '--name', 'Refused'], { DATABASE_URL: database.url, SECRET_KEY: '', DATA_DIR: dataDir });
      expectOneLineRefusal(none, 'error', new RegExp(`^error: SECRET_KEY is not set and ${dataDir}/secret\\.key does not exist`));
      const rows = await orm.em.fork().execute<Array<{ n: string }>>(`select count(*)::text as n from organizations where name = 'Refused'`);
      expect(rows[0].n).toBe('0');
      for (const env of [{ SECRET_KEY: secret }, { WEBHOOK_SECRET_KEY: secret }] as Array<Record<string, string>>) {
        const ran = await runCli(['org', 'create', '--name', 'Allowed'], { DATABASE_URL: database.url, DATA_DIR: dataDir, ...env });
        expect([ran.code, ran.stderr]).toEqual([0, '']);
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

/** A value sealed the way the service did before D24 (`v1`: AES-256-GCM under sha256 of the raw secret). */
function sealV1(secret: string, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', createHash('sha256').update(secret, 'utf8').digest(), iv);
  const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return `v1:${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64')}`;
}

describeOnPostgres('several server processes on one database')('admin secret rotate (D24)', () => {
  let database: TestDatabase;
  let orm: MikroORM;
  let receiver: WebhookReceiver;
  let apiKey: string;
  const oldSecret = newSecret();
  const nextSecret = newSecret();
  let running: ServerProcess | undefined;

  async function serve(env: Record<string, string>): Promise<ServerProcess> {
    await running?.stop();
    running = await spawnServer({ ...WEBHOOK_TEST_ENV, DATABASE_URL: database.url, ...env });
    return running;
  }
  const sealedValues = async () =>
    orm.em.fork().execute<Array<{ value: string }>>(
      `select secret_ciphertext as value from webhook_endpoints
       union all select previous_secret_ciphertext from webhook_endpoints where previous_secret_ciphertext is not null
       union all select response_body from idempotency_keys where response_body is not null and response_body not like 'plain:%'
       union all select p.value from idempotency_keys, jsonb_each_text(recovery_points) p where p.value not like 'ref:%'`,
    );

  beforeAll(async () => {
    database = await createTestDatabase();
    orm = await openDatabase({ clientUrl: database.url, pool: database.pool });
    ({ key: apiKey } = await createTenant(orm));
    receiver = await new WebhookReceiver().listen();
  });
  afterAll(async () => {
    await running?.stop();
    await receiver?.close();
    await orm?.close(true);
    await database?.drop();
  });

  test('sealed with the old value, rotated while a server runs with both, then everything opens with the new one alone', async () => {
    // 1. A deployment on the old value: endpoints (one as an older version sealed it, v1) and a stored answer.
    let server = await serve({ SECRET_KEY: oldSecret });
    const answerKey = randomUUID();
    const first = await createEndpointWithKey(server.client, apiKey, answerKey, `${receiver.url}?t=first`);
    const { secret: firstSecret, endpoint: firstEndpoint } = first.body.data.createWebhookEndpoint;
    const endpoints: Array<{ id: string; secret: string }> = [{ id: firstEndpoint.id, secret: firstSecret }];
    for (let index = 0; index < 4; index += 1) {
      const created = (await server.client.graphql(apiKey, CREATE_ENDPOINT, { input: { url: `${receiver.url}?t=e${index}` } })).body.data.createWebhookEndpoint;
      endpoints.push({ id: created.endpoint.id, secret: created.secret });
    }
    const legacySecret = `whsec_${randomBytes(32).toString('base64')}`;
    await orm.em.fork().execute('update webhook_endpoints set secret_ciphertext = ? where id = ?', [sealV1(oldSecret, legacySecret), endpoints[4].id]);
    endpoints[4].secret = legacySecret;
    // A recovery point kept unsealed (a bare reference, as a keyed booking's is): nothing to re-seal, nor unreadable.
    const reference = `ref:${JSON.stringify({ $entity: 'BookingEntity', id: 'bkg_reference' })}`;
    await orm.em.fork().execute(`update idempotency_keys set recovery_points = coalesce(recovery_points, '{}'::jsonb) || jsonb_build_object('9', ?::text) where key = ?`, [
      reference,
      answerKey,
    ]);

    // A keyed booking (D17): its stored answer replays the same after the rotation (step 4).
    const event = await createPublishedEvent(server.client, apiKey, { capacity: 10 });
    const bookingKey = randomUUID();
    const bookOnce = () =>
      server.client.request('POST', `/v1/events/${event.slug}/bookings`, {
        headers: { authorization: `Bearer ${apiKey}`, 'idempotency-key': bookingKey },
        json: { quantity: 1, attendeeEmail: 'ada@example.com', attendeeName: 'Ada' },
      });
    const booked = await bookOnce();
    expect(booked.status).toBe(201);

    // 2. Every instance restarted with SECRET_KEY = new and SECRET_KEY_PREVIOUS = old: accepted, opens the old values.
    server = await serve({ SECRET_KEY: nextSecret, SECRET_KEY_PREVIOUS: oldSecret });
    const replayed = await createEndpointWithKey(server.client, apiKey, answerKey, `${receiver.url}?t=first`);
    expect([replayed.status, replayed.text, replayed.headers['idempotent-replayed']]).toEqual([200, first.text, 'true']);

    // 3. The rotation, in batches of 2, while the server takes writes.
    const during = Array.from({ length: 6 }, () =>
      server.client.request('POST', '/v1/events', { headers: { authorization: `Bearer ${apiKey}`, 'idempotency-key': randomUUID() }, json: eventInput() }),
    );
    const rotated = await runCli(['secret', 'rotate', '--batch', '2'], { DATABASE_URL: database.url, SECRET_KEY: nextSecret, SECRET_KEY_PREVIOUS: oldSecret });
    expect((await Promise.all(during)).map((response) => response.status)).toEqual(Array(6).fill(201));
    expect(rotated.code).toBe(0);
    const result = JSON.parse(rotated.stdout);
    expect(result).toMatchObject({
      status: 'rotated',
      fingerprint: keyIdOf(nextSecret),
      replacedFingerprint: keyIdOf(oldSecret),
      resealed: { webhookEndpointSecrets: 5 },
      unreadable: { webhookEndpoints: [], webhookEndpointCount: 0, idempotentAnswers: 0 },
    });
    expect(result.resealed.idempotentAnswers).toBeGreaterThanOrEqual(1);
    expect(result.next).toMatch(/^Remove SECRET_KEY_PREVIOUS from every instance/);
    expect(rotated.stderr).toMatch(/webhook endpoint secrets: 2 re-sealed so far\n/);
    expect(rotated.stderr).toMatch(/webhook endpoint secrets: 5 re-sealed\n/);
    expect(rotated.stderr).toContain(`the database's server secret is now SECRET_KEY's (fingerprint ${keyIdOf(nextSecret)}, was ${keyIdOf(oldSecret)})`);
    const values = await sealedValues();
    expect(values.length).toBeGreaterThan(6);
    expect(values.filter(({ value }) => !value.startsWith(`v2:${keyIdOf(nextSecret)}:`))).toEqual([]);
    expect(await orm.em.fork().execute('select fingerprint from server_secret')).toEqual([{ fingerprint: secretFingerprint(nextSecret) }]);
    expect(await orm.em.fork().execute(`select recovery_points->>'9' as point from idempotency_keys where key = ?`, [answerKey])).toEqual([{ point: reference }]);

    // 4. SECRET_KEY_PREVIOUS removed, restarted: the stored answer replays, every endpoint signs with its secret.
    server = await serve({ SECRET_KEY: nextSecret });
    const afterwards = await createEndpointWithKey(server.client, apiKey, answerKey, `${receiver.url}?t=first`);
    expect([afterwards.status, afterwards.text]).toEqual([200, first.text]);
    const bookedAgain = await bookOnce();
    expect([bookedAgain.status, bookedAgain.text, bookedAgain.headers['idempotent-replayed']]).toEqual([201, booked.text, 'true']);
    for (const endpoint of endpoints) expect((await server.client.graphql(apiKey, SEND_TEST, { e: endpoint.id })).body.errors).toBeUndefined();
    const received = await receiver.waitFor((all) => all.filter((message) => message.json.type === 'webhook.test').length >= endpoints.length);
    for (const [index, endpoint] of endpoints.entries()) {
      const message = received.find((candidate) => candidate.json.type === 'webhook.test' && candidate.path.endsWith(index === 0 ? 't=first' : `t=e${index - 1}`))!;
      expect(verify(endpoint.secret, message)).toEqual(message.json);
    }

    // 5. The old value alone is refused now, by the server and the CLI; rotating again has nothing to do.
    await running?.stop();
    running = undefined;
    expectOneLineRefusal(await startRefused({ DATABASE_URL: database.url, SECRET_KEY: oldSecret }), 'fatal', /refusing to start$/);
    expectOneLineRefusal(await runCli(['org', 'create', '--name', 'Old'], { DATABASE_URL: database.url, SECRET_KEY: oldSecret }), 'error', /refusing to run the command$/);
    const again = await runCli(['secret', 'rotate'], { DATABASE_URL: database.url, SECRET_KEY: nextSecret });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ status: 'up-to-date', replacedFingerprint: null, resealed: { webhookEndpointSecrets: 0, idempotentAnswers: 0 } });
  });

  test('after an upgrade, rotate without SECRET_KEY_PREVIOUS re-seals what the version before D24 sealed (v1)', async () => {
    const server = await serve({ SECRET_KEY: nextSecret });
    const created = (await server.client.graphql(apiKey, CREATE_ENDPOINT, { input: { url: `${receiver.url}?t=upgrade` } })).body.data.createWebhookEndpoint;
    await running?.stop();
    running = undefined;
    await orm.em.fork().execute('update webhook_endpoints set secret_ciphertext = ? where id = ?', [sealV1(nextSecret, created.secret), created.endpoint.id]);
    // The upgraded server signs with it as it is (v1 opens under the same secret's key of before D24).
    const upgraded = await serve({ SECRET_KEY: nextSecret });
    expect((await upgraded.client.graphql(apiKey, SEND_TEST, { e: created.endpoint.id })).body.errors).toBeUndefined();
    const [message] = (await receiver.waitFor((all) => all.some((candidate) => candidate.path.endsWith('t=upgrade')))).filter((candidate) =>
      candidate.path.endsWith('t=upgrade'),
    );
    expect(verify(created.secret, message)).toEqual(message.json);
    await upgraded.stop();
    running = undefined;
    const rotated = await runCli(['secret', 'rotate'], { DATABASE_URL: database.url, SECRET_KEY: nextSecret });
    expect(rotated.code).toBe(0);
    expect(JSON.parse(rotated.stdout)).toMatchObject({ status: 'rotated', replacedFingerprint: null, resealed: { webhookEndpointSecrets: 1 } });
    const [row] = await orm.em.fork().execute<Array<{ value: string }>>('select secret_ciphertext as value from webhook_endpoints where id = ?', [created.endpoint.id]);
    expect(row.value.startsWith(`v2:${keyIdOf(nextSecret)}:`)).toBe(true);
  });

  test('a value that opens under neither secret is left as it is and listed', async () => {
    const server = await serve({ SECRET_KEY: nextSecret });
    const created = (await server.client.graphql(apiKey, CREATE_ENDPOINT, { input: { url: `${receiver.url}?t=lost` } })).body.data.createWebhookEndpoint;
    await running?.stop();
    running = undefined;
    const foreign = sealV1(newSecret(), created.secret);
    await orm.em.fork().execute('update webhook_endpoints set secret_ciphertext = ? where id = ?', [foreign, created.endpoint.id]);
    const rotated = await runCli(['secret', 'rotate'], { DATABASE_URL: database.url, SECRET_KEY: nextSecret });
    expect(rotated.code).toBe(0);
    const result = JSON.parse(rotated.stdout);
    expect(result.unreadable).toEqual({ webhookEndpoints: [created.endpoint.id], webhookEndpointCount: 1, idempotentAnswers: 0, ticketCodeBookings: [], ticketCodeCount: 0 });
    expect(result.next).toMatch(/rotate their secret/);
    const [row] = await orm.em.fork().execute<Array<{ value: string }>>('select secret_ciphertext as value from webhook_endpoints where id = ?', [created.endpoint.id]);
    expect(row.value).toBe(foreign);
  });
});

describe('the embedded database: the CLI through the running server (D24)', () => {
  let dataDir: string;
  let server: SpawnedServer | undefined;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'event-service-embedded-secret-'));
    server = await spawnEmbedded({ DATA_DIR: dataDir });
  }, 120_000);
  afterAll(async () => {
    if (server && server.child.exitCode === null) server.child.kill('SIGTERM');
    await server?.exit;
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('a CLI with another SECRET_KEY is refused by the server; with the key file of the same DATA_DIR it runs', async () => {
    const refused = await runCli(['org', 'create', '--name', 'Refused'], { DATA_DIR: dataDir, SECRET_KEY: newSecret() });
    expectOneLineRefusal(refused, 'error', /refusing to run the command$/);
    const ran = await runCli(['org', 'create', '--name', 'Allowed'], { DATA_DIR: dataDir });
    expect([ran.code, ran.stderr]).toEqual([0, '']);
  });
});

describeOnPostgres('a server process on PostgreSQL')('the CLI on the same machine, from another DATA_DIR (D24)', () => {
  let database: TestDatabase;
  let serverDir: string;
  let server: SpawnedServer | undefined;
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'event-service-cli-dir-'));
    dirs.push(dir);
    return dir;
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    serverDir = tempDir();
    // The development default: no SECRET_KEY, the server's key file in its DATA_DIR.
    server = await spawnEmbedded({ DATABASE_URL: database.url, DATA_DIR: serverDir });
  }, 120_000);
  afterAll(async () => {
    if (server && server.child.exitCode === null) server.child.kill('SIGTERM');
    await server?.exit;
    await database?.drop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  // SECRET_KEY '' stands for unset (runCli would otherwise give the CLI the server's secret).
  test('without SECRET_KEY it uses the key file the first server recorded, even beside a key file of its own', async () => {
    const empty = tempDir();
    const ran = await runCli(['org', 'create', '--name', 'From elsewhere'], { DATABASE_URL: database.url, DATA_DIR: empty, SECRET_KEY: '' });
    expect([ran.code, ran.stderr]).toEqual([0, '']);
    const stale = tempDir();
    writeFileSync(path.join(stale, 'secret.key'), `${newSecret()}\n`, { mode: 0o600 });
    const beside = await runCli(['org', 'create', '--name', 'Beside another key file'], { DATABASE_URL: database.url, DATA_DIR: stale, SECRET_KEY: '' });
    expect([beside.code, beside.stderr]).toEqual([0, '']);
  });

  test('an explicit other SECRET_KEY is still refused; a recorded key file readable by others is not used', async () => {
    expectOneLineRefusal(
      await runCli(['org', 'create', '--name', 'Refused'], { DATABASE_URL: database.url, DATA_DIR: tempDir(), SECRET_KEY: newSecret() }),
      'error',
      /refusing to run the command$/,
    );
    chmodSync(path.join(serverDir, 'secret.key'), 0o644);
    try {
      expectOneLineRefusal(await runCli(['org', 'create', '--name', 'Refused'], { DATABASE_URL: database.url, DATA_DIR: tempDir(), SECRET_KEY: '' }), 'error', /refusing to run the command$/);
    } finally {
      chmodSync(path.join(serverDir, 'secret.key'), 0o600);
    }
  });
});
