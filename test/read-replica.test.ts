import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { CREATE_BOOKING, LIST_BOOKINGS, bookingInput, createPublishedEvent } from './helpers/bookings';
import { describeOnPostgres } from './helpers/database';
import { createApiKey, createTenant, eventInput } from './helpers/factories';
import type { HttpsClient } from './helpers/https-client';
import { startPrivatePostgres, type PrivatePostgres } from './helpers/private-postgres';
import { startPrivateReplica, type PrivateReplica } from './helpers/private-replica';
import { startServiceOn, type ServiceInstance } from './helpers/second-instance';

// D25: DATABASE_READ_URL sends read-only requests to a streaming replica, and a client never
// reads older data than its own organization last wrote. A private primary (initdb on a loopback port)
// and its replica (pg_basebackup -R, hot standby on another port); two service instances on them, with
// one secret and one Redis, as behind a load balancer. With the replica's replay paused, organization A
// writes through one instance and reads through the other, both doors: always its writes (the primary
// answers after the bounded wait); organization B, which changed nothing through the service, still
// reads the replica (it sees a row changed behind the service's back only once replay resumes).
jest.setTimeout(180_000);

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const DATABASE = 'replica_test';
const GET_EVENT = 'query($slug: String!) { event(slug: $slug) { slug title registrationCount } }';

let primary: PrivatePostgres;
let replica: PrivateReplica;
let first: ServiceInstance;
let second: ServiceInstance;
let a: { key: string; organizationId: string };
let b: { key: string; organizationId: string; slug: string };

function envFor(extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: primary.urlOf(DATABASE),
    DATABASE_READ_URL: replica.urlOf(DATABASE),
    READ_REPLICA_MAX_WAIT_MS: '150',
    RATE_LIMIT_PER_MINUTE: '1000000',
    ...extra,
  };
}

let shared: Record<string, string>;

beforeAll(async () => {
  primary = await startPrivatePostgres();
  replica = await startPrivateReplica(primary);
  // One secret and one Redis for both instances (their own key prefix, so no other test shares the marks).
  shared = { SECRET_KEY: randomBytes(32).toString('base64'), REDIS_URL, REDIS_KEY_PREFIX: `replica-test-${randomBytes(4).toString('hex')}` };
  first = await startServiceOn(primary.urlOf(DATABASE), envFor(shared));
  second = await startServiceOn(primary.urlOf(DATABASE), envFor(shared));
  const tenantA = await createTenant(first.orm);
  const tenantB = await createTenant(first.orm);
  a = { key: tenantA.key, organizationId: tenantA.organization.id };
  const event = await createPublishedEvent(first.client, tenantB.key, { title: 'Before' });
  b = { key: tenantB.key, organizationId: tenantB.organization.id, slug: event.slug };
  await replica.caughtUp();
  await waitForReplicaUp(first);
  await waitForReplicaUp(second);
}, 120_000);

afterAll(async () => {
  await replica?.resumeReplay().catch(() => undefined);
  await first?.close();
  await second?.close();
  await replica?.destroy();
  await primary?.destroy();
});

/** A counter of /metrics: `name{label="value"}`. */
async function metric(instance: ServiceInstance, series: string): Promise<number> {
  const text = (await instance.client.request('GET', '/metrics')).text;
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

async function waitForReplicaUp(instance: ServiceInstance): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const ready = await instance.client.request('GET', '/readyz');
    if (ready.body?.checks?.readReplica === 'up') return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the replica never came up for the instance');
}

/** Changes a row on the primary behind the service's back: no organization's mark moves. */
async function retitleDirectly(slug: string, title: string): Promise<void> {
  const client = new Client({ connectionString: primary.urlOf(DATABASE) });
  await client.connect();
  try {
    await client.query('update events set title = $1 where slug = $2', [title, slug]);
  } finally {
    await client.end();
  }
}

const restTitle = async (client: HttpsClient, key: string, slug: string) => (await client.rest('GET', `/v1/events/${slug}`, key)).body?.title;
const graphqlTitle = async (client: HttpsClient, key: string, slug: string) => (await client.graphql(key, GET_EVENT, { slug })).body?.data?.event?.title;

describeOnPostgres('a replica needs PostgreSQL streaming replication')('reads on a streaming replica (D25)', () => {
  test('another organization reads the replica: a change the replica has not replayed stays unseen until replay resumes', async () => {
    const before = await metric(first, 'read_replica_reads_total{source="replica"}');
    await replica.pauseReplay();
    try {
      await retitleDirectly(b.slug, 'Changed behind the service');
      for (const instance of [first, second]) {
        expect(await restTitle(instance.client, b.key, b.slug)).toBe('Before');
        expect(await graphqlTitle(instance.client, b.key, b.slug)).toBe('Before');
      }
      expect(await metric(first, 'read_replica_reads_total{source="replica"}')).toBeGreaterThanOrEqual(before + 2);
    } finally {
      await replica.resumeReplay();
    }
    await replica.caughtUp();
    expect(await restTitle(second.client, b.key, b.slug)).toBe('Changed behind the service');
  });

  test('with replay paused, an organization reads its own writes on every instance and through both doors; others stay on the replica', async () => {
    await replica.pauseReplay();
    try {
      const waitedOut = await metric(second, 'read_replica_fallbacks_total{reason="waited-out"}');
      // Create through one instance, read at once through the other: REST and GraphQL.
      const created = await first.client.rest('POST', '/v1/events', a.key, eventInput({ title: 'Mine', capacity: 10 }));
      expect(created.status).toBe(201);
      const slug = created.body.slug as string;
      expect(await restTitle(second.client, a.key, slug)).toBe('Mine');
      expect(await graphqlTitle(second.client, a.key, slug)).toBe('Mine');
      expect((await second.client.rest('GET', '/v1/events', a.key)).body.events.map((event: { slug: string }) => event.slug)).toContain(slug);

      // Update through the second, read through the first.
      const published = await second.client.rest('PUT', `/v1/events/${slug}`, a.key, { status: 'PUBLISHED', title: 'Mine, renamed' });
      expect(published.status).toBe(200);
      expect(await restTitle(first.client, a.key, slug)).toBe('Mine, renamed');
      expect(await graphqlTitle(first.client, a.key, slug)).toBe('Mine, renamed');

      // A booking through GraphQL on one, its counts and the booking list on the other (both doors).
      const booked = await first.client.graphql(a.key, CREATE_BOOKING, { input: bookingInput(slug, { quantity: 3 }) });
      expect(booked.body.errors).toBeUndefined();
      const bookingId = booked.body.data.createBooking.id as string;
      expect((await second.client.graphql(a.key, GET_EVENT, { slug })).body.data.event.registrationCount).toBe(3);
      expect((await second.client.rest('GET', `/v1/events/${slug}`, a.key)).body.registrationCount).toBe(3);
      expect((await second.client.rest('GET', `/v1/bookings/${bookingId}`, a.key)).status).toBe(200);
      const list = await second.client.graphql(a.key, LIST_BOOKINGS, { eventSlug: slug });
      expect(list.body.data.bookings.bookings.map((booking: { id: string }) => booking.id)).toEqual([bookingId]);
      expect((await second.client.rest('GET', `/v1/events/${slug}/attendees.csv`, a.key)).text).toContain('ada@example.com');
      expect(await metric(second, 'read_replica_fallbacks_total{reason="waited-out"}')).toBeGreaterThan(waitedOut);

      // Organization B meanwhile still reads the replica: a change made behind the service is unseen.
      await retitleDirectly(b.slug, 'Unseen while paused');
      expect(await restTitle(second.client, b.key, b.slug)).not.toBe('Unseen while paused');
      expect(await graphqlTitle(first.client, b.key, b.slug)).not.toBe('Unseen while paused');
    } finally {
      await replica.resumeReplay();
    }
    // Replay resumed and caught up: A's reads are the replica's again, without a wait.
    await replica.caughtUp();
    await new Promise((resolve) => setTimeout(resolve, 1_200)); // the instances' next sample of the replay position
    const [fromReplica, waitedOut] = [
      await metric(second, 'read_replica_reads_total{source="replica"}'),
      await metric(second, 'read_replica_fallbacks_total{reason="waited-out"}'),
    ];
    expect((await second.client.rest('GET', '/v1/events', a.key)).status).toBe(200);
    expect(await metric(second, 'read_replica_reads_total{source="replica"}')).toBe(fromReplica + 1);
    expect(await metric(second, 'read_replica_fallbacks_total{reason="waited-out"}')).toBe(waitedOut);
  });

  test('with replay paused, a key made after the pause answers `viewer` (the key is read on the primary, as authentication reads it)', async () => {
    await replica.pauseReplay();
    try {
      const { key, id } = await createApiKey(first.orm, a.organizationId, { name: 'made while paused' });
      for (const instance of [first, second]) {
        const viewer = await instance.client.graphql(key, '{ viewer { keyId name } }');
        expect(viewer.body.errors).toBeUndefined();
        expect(viewer.body.data.viewer).toEqual({ keyId: id, name: 'made while paused' });
      }
    } finally {
      await replica.resumeReplay();
    }
  });

  test('a read that waits for replay is answered by the replica once it catches up within the bound', async () => {
    const instance = await startServiceOn(primary.urlOf(DATABASE), envFor({ ...shared, READ_REPLICA_MAX_WAIT_MS: '5000' }));
    try {
      await waitForReplicaUp(instance);
      await replica.pauseReplay();
      const created = await first.client.rest('POST', '/v1/events', a.key, eventInput({ title: 'Waited for' }));
      expect(created.status).toBe(201);
      const resume = setTimeout(() => void replica.resumeReplay(), 300);
      const fromReplica = await metric(instance, 'read_replica_reads_total{source="replica"}');
      const started = Date.now();
      expect(await restTitle(instance.client, a.key, created.body.slug)).toBe('Waited for');
      clearTimeout(resume);
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
      expect(await metric(instance, 'read_replica_reads_total{source="replica"}')).toBe(fromReplica + 1);
    } finally {
      await replica.resumeReplay();
      await instance.close();
    }
  });

  test('Redis unreachable: reads go to the primary (never a stale read), counted as redis-down', async () => {
    const instance = await startServiceOn(primary.urlOf(DATABASE), envFor({ SECRET_KEY: shared.SECRET_KEY, REDIS_URL: 'redis://127.0.0.1:1' }));
    try {
      await waitForReplicaUp(instance);
      await replica.pauseReplay();
      // A's write through an instance that cannot tell the others: this one still reads the primary.
      const created = await first.client.rest('POST', '/v1/events', a.key, eventInput({ title: 'Redis down' }));
      expect(await restTitle(instance.client, a.key, created.body.slug)).toBe('Redis down');
      expect(await metric(instance, 'read_replica_fallbacks_total{reason="redis-down"}')).toBeGreaterThanOrEqual(1);
    } finally {
      await replica.resumeReplay();
      await instance.close();
    }
  });

  test('the replica stopped: reads answer 200 from the primary, /readyz stays ready and reports it', async () => {
    await replica.caughtUp();
    await replica.stop();
    try {
      for (const instance of [first, second]) {
        const rest = await instance.client.rest('GET', `/v1/events/${b.slug}`, b.key);
        expect(rest.status).toBe(200);
        const graphql = await instance.client.graphql(b.key, GET_EVENT, { slug: b.slug });
        expect(graphql.status).toBe(200);
        expect(graphql.body.errors).toBeUndefined();
        expect((await instance.client.graphql(b.key, LIST_BOOKINGS, { eventSlug: b.slug })).body.errors).toBeUndefined();
      }
      let ready = await first.client.request('GET', '/readyz');
      for (let attempt = 0; attempt < 50 && ready.body?.checks?.readReplica !== 'down'; attempt += 1) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        ready = await first.client.request('GET', '/readyz');
      }
      expect(ready.status).toBe(200);
      expect(ready.body.checks).toMatchObject({ database: 'up', readReplica: 'down' });
      expect((await first.client.rest('GET', '/v1/events', b.key)).status).toBe(200);
      expect(await metric(first, 'read_replica_up')).toBe(0);
    } finally {
      await replica.start();
    }
    await waitForReplicaUp(first);
  });
});
