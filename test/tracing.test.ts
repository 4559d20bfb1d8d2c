import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import { openDatabase } from '../src/schema/database';
import { tracingWanted } from '../src/platform/observability/tracing';
import { bookingInput, CREATE_BOOKING, createPublishedEvent, ticket, type CreatedEvent } from './helpers/bookings';
import { createTestDatabase, describeOnPostgres, type TestDatabase } from './helpers/database';
import { createTenant } from './helpers/factories';
import { HttpsClient, type HttpResponse } from './helpers/https-client';
import { OtlpReceiver, SPAN_KIND, type ReceivedSpan } from './helpers/otlp-receiver';
import { spawnServer, type ServerProcess } from './helpers/spawned-server';
import { WebhookReceiver, WEBHOOK_TEST_ENV } from './helpers/webhook-receiver';

// D27: the compiled server, run as a real process with the standard OTEL_* variables
// pointing at a real OTLP/HTTP receiver started here (protobuf, the default, and JSON), exports the
// spans of each request: the incoming traceparent continued, the GraphQL operation (REST and /graphql's
// compiled path, and Apollo's), every SQL statement on every pool, each webhook attempt (whose
// traceparent the receiver gets and whose trace id is stored); log lines carry trace_id and span_id.
// Unset, nothing is exported.
jest.setTimeout(120_000);

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
/** A W3C traceparent as a caller's tracer sends it: version 00, sampled. */
const traceparent = (traceId: string, parentId: string) => `00-${traceId}-${parentId}-01`;

interface Spawned {
  readonly process: ServerProcess;
  readonly client: HttpsClient;
  readonly dataDir: string;
}

async function start(databaseUrl: string, secret: string, env: Record<string, string>): Promise<Spawned> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'event-service-tracing-'));
  const process = await spawnServer({ DATABASE_URL: databaseUrl, DATA_DIR: dataDir, SECRET_KEY: secret, RATE_LIMIT_PER_MINUTE: '100000', ...WEBHOOK_TEST_ENV, ...env });
  return { process, client: new HttpsClient(process.url, process.ca), dataDir };
}

async function stop(server: Spawned | undefined): Promise<void> {
  if (!server) return;
  server.client.close();
  if (server.process.child.exitCode === null) server.process.child.kill('SIGTERM');
  await server.process.exit;
  rmSync(server.dataDir, { recursive: true, force: true });
}

/** Every span of the trace below `root` (its descendants). */
function descendants(spans: ReceivedSpan[], root: ReceivedSpan): ReceivedSpan[] {
  const found: ReceivedSpan[] = [];
  let parents = new Set([root.spanId]);
  while (parents.size > 0) {
    const children = spans.filter((span) => parents.has(span.parentSpanId));
    found.push(...children);
    parents = new Set(children.map((span) => span.spanId));
  }
  return found;
}

describe('whether tracing is on (the OTEL_* variables)', () => {
  test.each([
    [{}, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' }, false],
    [{ OTEL_SERVICE_NAME: 'event-service' }, false],
  ])('%j: %s', (env, wanted) => {
    expect(tracingWanted(env)).toBe(wanted);
  });
});

describeOnPostgres('tracing runs the compiled server against PostgreSQL')('tracing to a real OTLP receiver', () => {
  let database: TestDatabase;
  let orm: MikroORM;
  let key: string;
  const secret = randomBytes(32).toString('base64');
  const otlp = new OtlpReceiver();
  const hooks = new WebhookReceiver();
  let traced: Spawned | undefined;
  let event: CreatedEvent;

  /** Sends a request with a caller's traceparent; resolves with the answer and the server span the receiver got for it. */
  async function tracedRequest(
    method: string,
    url: string,
    options: { json?: unknown; headers?: Record<string, string> } = {},
  ): Promise<{ response: HttpResponse; server: ReceivedSpan; traceId: string; parentId: string }> {
    const traceId = hex(16);
    const parentId = hex(8);
    const response = await traced!.client.request(method, url, {
      json: options.json,
      headers: { authorization: `Bearer ${key}`, traceparent: traceparent(traceId, parentId), ...options.headers },
    });
    await otlp.waitFor(() => otlp.trace(traceId).some((span) => span.kind === SPAN_KIND.server));
    const server = otlp.trace(traceId).find((span) => span.kind === SPAN_KIND.server)!;
    return { response, server, traceId, parentId };
  }

  /** Waits for the spans under `server` until `done` holds (statement spans may come in a later batch than the request's). */
  async function spansUnder(server: ReceivedSpan, done: (spans: ReceivedSpan[]) => boolean): Promise<ReceivedSpan[]> {
    await otlp.waitFor(() => done(descendants(otlp.trace(server.traceId), server)));
    return descendants(otlp.trace(server.traceId), server);
  }

  const statementsOn = (spans: ReceivedSpan[], pool: string) =>
    spans.filter((span) => span.kind === SPAN_KIND.client && span.attributes['db.client.connection.pool.name'] === pool);

  beforeAll(async () => {
    database = await createTestDatabase();
    orm = await openDatabase({ clientUrl: database.url });
    ({ key } = await createTenant(orm));
    await otlp.listen();
    await hooks.listen();
    traced = await start(database.url, secret, { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint, OTEL_BSP_SCHEDULE_DELAY: '50' });
    event = await createPublishedEvent(traced.client, key, { capacity: 100, ticketTypes: [ticket({ quantity: 50 })] });
  }, 120_000);
  afterAll(async () => {
    await stop(traced);
    await otlp.close();
    await hooks.close();
    await orm?.close(true);
    await database?.drop();
  });

  test('a REST read continues the caller\'s trace: server span, its GraphQL operation (compiled), its SQL on the read pool', async () => {
    const { response, server, traceId, parentId } = await tracedRequest('GET', `/v1/events/${event.slug}`);
    expect(response.status).toBe(200);
    expect(server).toMatchObject({ traceId, parentSpanId: parentId, name: 'GET /v1/events/:slug', statusCode: 0 });
    expect(server.attributes).toMatchObject({ 'http.request.method': 'GET', 'http.route': '/v1/events/:slug', 'http.response.status_code': 200, 'url.scheme': 'https' });
    expect(server.resource['service.name']).toBe('event-service');

    const below = await spansUnder(server, (spans) => statementsOn(spans, 'reads').length > 0);
    const operation = below.find((span) => span.attributes['graphql.operation.type'] === 'query');
    expect(operation).toMatchObject({ parentSpanId: server.spanId, kind: SPAN_KIND.internal });
    expect(operation!.name).toBe(`query ${String(operation!.attributes['graphql.operation.name'])}`);
    const [statement] = statementsOn(below, 'reads');
    expect(statement.attributes).toMatchObject({ 'db.system': 'postgresql', 'db.system.name': 'postgresql', 'db.namespace': expect.any(String) });
    // The statement's text, never its values.
    expect(String(statement.attributes['db.statement'])).toMatch(/\$1/);
    expect(String(statement.attributes['db.statement'])).not.toContain(event.slug);
    expect(descendants(otlp.trace(traceId), operation!)).toContainEqual(expect.objectContaining({ spanId: statement.spanId }));
  });

  test('/graphql: the operation span on the compiled path and on Apollo\'s', async () => {
    const query = 'query EventTitle($slug: String!) { event(slug: $slug) { title } }';
    // The compiled path takes a document it has seen once (COMPILE_AFTER): the second request is compiled.
    for (let round = 0; round < 2; round += 1) {
      const { response, server } = await tracedRequest('POST', '/graphql', { json: { query, variables: { slug: event.slug } } });
      expect(response.body.data.event.title).toEqual(expect.any(String));
      const below = await spansUnder(server, (spans) => spans.some((span) => span.name === 'query EventTitle'));
      expect(below.find((span) => span.name === 'query EventTitle')).toMatchObject({
        parentSpanId: server.spanId,
        attributes: { 'graphql.operation.name': 'EventTitle', 'graphql.operation.type': 'query' },
      });
    }
    // Introspection is Apollo's (not the compiled path's).
    const { response, server } = await tracedRequest('POST', '/graphql', { json: { query: 'query Root { __schema { queryType { name } } }' } });
    expect(response.body.data.__schema.queryType.name).toBe('Query');
    const below = await spansUnder(server, (spans) => spans.some((span) => span.name === 'query Root'));
    expect(below.find((span) => span.name === 'query Root')!.attributes).toMatchObject({ 'graphql.operation.name': 'Root', 'graphql.operation.type': 'query' });
  });

  test('a booking: its statement on the writes pool; with an Idempotency-Key, the keys pool; its webhook attempt continues its trace, sends traceparent and stores the trace id', async () => {
    const created = await traced!.client.graphql(key, `mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { endpoint { id } } }`, {
      input: { url: hooks.url, eventTypes: ['booking.created'] },
    });
    const endpointId = created.body.data.createWebhookEndpoint.endpoint.id as string;

    const booking = await tracedRequest('POST', '/graphql', { json: { query: CREATE_BOOKING, variables: { input: bookingInput(event.slug) } } });
    expect(booking.response.body.data.createBooking.status).toBe('CONFIRMED');
    expect(booking.server.attributes['http.response.status_code']).toBe(200);
    const bookingSpans = await spansUnder(booking.server, (spans) => statementsOn(spans, 'writes').length > 0);
    expect(bookingSpans.find((span) => span.parentSpanId === booking.server.spanId)).toMatchObject({ name: 'mutation', attributes: { 'graphql.operation.type': 'mutation' } });
    expect(statementsOn(bookingSpans, 'writes')[0].attributes['db.statement']).toMatch(/insert into/i);

    const keyed = await tracedRequest('POST', '/graphql', {
      json: { query: CREATE_BOOKING, variables: { input: bookingInput(event.slug) } },
      headers: { 'idempotency-key': `trace-${hex(8)}` },
    });
    expect(keyed.response.body.data.createBooking.status).toBe('CONFIRMED');
    await spansUnder(keyed.server, (spans) => statementsOn(spans, 'keys').length > 0);

    // Each booking's message reaches the receiver in the booking's own trace: the attempt's span is a
    // child of the span that wrote the message (the mutation), and its traceparent goes to the receiver.
    const received = await hooks.waitFor((messages) => messages.filter((message) => message.json.type === 'booking.created').length >= 2);
    for (const request of [booking, keyed]) {
      const message = received.find((candidate) => String(candidate.headers.traceparent).split('-')[1] === request.traceId);
      expect(message).toBeDefined();
      expect(String(message!.headers.traceparent)).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
      const attemptSpanId = String(message!.headers.traceparent).split('-')[2];
      await otlp.waitFor(() => otlp.trace(request.traceId).some((span) => span.spanId === attemptSpanId));
      const attemptSpan = otlp.trace(request.traceId).find((span) => span.spanId === attemptSpanId)!;
      const mutation = otlp.trace(request.traceId).find((span) => span.parentSpanId === request.server.spanId && span.name === 'mutation')!;
      expect(attemptSpan).toMatchObject({ kind: SPAN_KIND.client, name: 'POST', parentSpanId: mutation.spanId });
      expect(attemptSpan.attributes).toMatchObject({ 'http.response.status_code': 200, 'url.full': hooks.url, 'messaging.message.id': message!.id });
    }
    // The worker's own statements (its claims) are in no request's trace.
    expect(otlp.trace(booking.traceId).filter((span) => /webhook_deliveries d join/.test(String(span.attributes['db.statement'])))).toEqual([]);
    const [first] = received;
    const attemptTraceId = String(first.headers.traceparent).split('-')[1];

    // The attempt records the trace id (GraphQL's WebhookAttempt.traceId).
    const stored = async () =>
      (
        await traced!.client.graphql(key, `query($id: ID!) { webhookMessages(endpointId: $id) { messages { id attempts { traceId statusCode } } } }`, { id: endpointId })
      ).body.data.webhookMessages.messages as Array<{ id: string; attempts: Array<{ traceId: string | null; statusCode: number | null }> }>;
    let messages = await stored();
    for (let tries = 0; messages.find((message) => message.id === first.id)?.attempts.length !== 1 && tries < 50; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      messages = await stored();
    }
    expect(messages.find((message) => message.id === first.id)!.attempts).toEqual([{ traceId: attemptTraceId, statusCode: 200 }]);
  });

  test('a message written through the ORM (sendTestWebhook) is delivered in the trace of the request that wrote it', async () => {
    const created = await traced!.client.graphql(key, `mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { endpoint { id } } }`, {
      input: { url: `${hooks.url}?test`, eventTypes: ['event.created'] },
    });
    const endpointId = created.body.data.createWebhookEndpoint.endpoint.id as string;
    const { response, server, traceId } = await tracedRequest('POST', '/graphql', {
      json: { query: 'mutation Ping($id: ID!) { sendTestWebhook(endpointId: $id) { id } }', variables: { id: endpointId } },
    });
    const messageId = response.body.data.sendTestWebhook.id as string;
    const [message] = await hooks.waitFor((messages) => messages.some((candidate) => candidate.id === messageId)).then((messages) => messages.filter((candidate) => candidate.id === messageId));
    const [, headerTraceId, attemptSpanId] = String(message.headers.traceparent).split('-');
    expect(headerTraceId).toBe(traceId);
    await otlp.waitFor(() => otlp.trace(traceId).some((span) => span.spanId === attemptSpanId));
    const operation = otlp.trace(traceId).find((span) => span.name === 'mutation Ping')!;
    expect(operation.parentSpanId).toBe(server.spanId);
    expect(otlp.trace(traceId).find((span) => span.spanId === attemptSpanId)).toMatchObject({ kind: SPAN_KIND.client, name: 'POST', parentSpanId: operation.spanId });
  });

  test('a mutation through the ORM: its statements on the ORM\'s pool, without their values', async () => {
    const { response, server } = await tracedRequest('POST', '/graphql', {
      json: {
        query: 'mutation Hook($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { endpoint { id } } }',
        variables: { input: { url: `${hooks.url}?orm`, eventTypes: ['event.updated'] } },
      },
    });
    expect(response.body.data.createWebhookEndpoint.endpoint.id).toEqual(expect.any(String));
    const below = await spansUnder(server, (spans) => statementsOn(spans, 'orm').some((span) => /insert into "webhook_endpoints"/.test(String(span.attributes['db.statement']))));
    expect(below.find((span) => span.name === 'mutation Hook')).toBeDefined();
    // MikroORM writes the values into the text it sends: the span has them back as `?`.
    const insert = statementsOn(below, 'orm').find((span) => /insert into "webhook_endpoints"/.test(String(span.attributes['db.statement'])))!;
    expect(String(insert.attributes['db.statement'])).not.toContain('127.0.0.1');
    expect(String(insert.attributes['db.statement'])).toContain('?');
  });

  test('log lines carry trace_id and span_id: the access line of a traced request', async () => {
    const { server, traceId } = await tracedRequest('GET', `/v1/events/${event.slug}`);
    const line = traced!.process.logs
      .map((text) => JSON.parse(text) as { msg?: string; trace_id?: string; span_id?: string; route?: string })
      .find((entry) => entry.msg === 'request' && entry.trace_id === traceId);
    expect(line).toMatchObject({ trace_id: traceId, span_id: server.spanId, route: '/v1/events/:slug' });
  });

  test('http/json, a signal-specific endpoint and OTEL_SERVICE_NAME; a caller\'s unsampled trace is not exported', async () => {
    const json = await new OtlpReceiver().listen();
    const other = await start(database.url, secret, {
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${json.endpoint}/custom/traces`,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'events-edge',
      OTEL_BSP_SCHEDULE_DELAY: '50',
    });
    try {
      const traceId = hex(16);
      const unsampled = hex(16);
      await other.client.request('GET', `/v1/events/${event.slug}`, { headers: { authorization: `Bearer ${key}`, traceparent: `00-${unsampled}-${hex(8)}-00` } });
      await other.client.request('GET', `/v1/events/${event.slug}`, { headers: { authorization: `Bearer ${key}`, traceparent: traceparent(traceId, hex(8)) } });
      await json.waitFor(() => json.trace(traceId).some((span) => span.kind === SPAN_KIND.server));
      expect(json.requests[0]).toEqual({ path: '/custom/traces', contentType: expect.stringMatching(/^application\/json/) });
      expect(json.trace(traceId).find((span) => span.kind === SPAN_KIND.server)!.resource['service.name']).toBe('events-edge');
      expect(json.trace(unsampled)).toEqual([]);
    } finally {
      await stop(other);
      await json.close();
    }
  });

  test('shutdown (SIGTERM) exports the spans still buffered', async () => {
    const late = await new OtlpReceiver().listen();
    // A schedule far longer than the test: only the shutdown's flush can send the span.
    const server = await start(database.url, secret, { OTEL_EXPORTER_OTLP_ENDPOINT: late.endpoint, OTEL_BSP_SCHEDULE_DELAY: '600000' });
    const traceId = hex(16);
    try {
      const headers = { authorization: `Bearer ${key}`, traceparent: traceparent(traceId, hex(8)) };
      expect((await server.client.request('GET', `/v1/events/${event.slug}`, { headers })).status).toBe(200);
      expect(late.trace(traceId)).toEqual([]);
    } finally {
      await stop(server);
    }
    expect(late.trace(traceId).find((span) => span.kind === SPAN_KIND.server)).toMatchObject({ name: 'GET /v1/events/:slug' });
    await late.close();
  });

  test('without an OTLP endpoint (or with OTEL_SDK_DISABLED) nothing is exported and no log line has a trace id', async () => {
    const quiet = await new OtlpReceiver().listen();
    const envs: Array<Record<string, string>> = [{}, { OTEL_EXPORTER_OTLP_ENDPOINT: quiet.endpoint, OTEL_SDK_DISABLED: 'true' }];
    for (const env of envs) {
      const untraced = await start(database.url, secret, { OTEL_BSP_SCHEDULE_DELAY: '50', ...env });
      try {
        const headers = { authorization: `Bearer ${key}`, traceparent: traceparent(hex(16), hex(8)) };
        expect((await untraced.client.request('GET', `/v1/events/${event.slug}`, { headers })).status).toBe(200);
        expect((await untraced.client.graphql(key, CREATE_BOOKING, { input: bookingInput(event.slug) })).body.data.createBooking.status).toBe('CONFIRMED');
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(untraced.process.logs.filter((line) => line.includes('trace_id'))).toEqual([]);
        expect(untraced.process.logs.some((line) => line.includes('"msg":"request"'))).toBe(true);
      } finally {
        await stop(untraced);
      }
    }
    expect(quiet.requests).toEqual([]);
    await quiet.close();
  });
});
