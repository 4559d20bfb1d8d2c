import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '../src/foundation/logger';
import { fingerprintOf, idempotentRequests } from '../src/http/idempotent-requests';
import { createBooking } from '../src/modules/booking/commands/create-booking';
import { withUnitOfWorkScope } from '../src/platform/db/unit-of-work-scope';
import { IdempotencyKeyStore } from '../src/platform/idempotency/idempotency-key.store';
import { createPublishedEvent, type CreatedEvent } from './helpers/bookings';
import { createTenant } from './helpers/factories';
import { errorCodeOf, type IdempotencyDoor } from './helpers/idempotency';
import type { HttpResponse } from './helpers/https-client';
import { startTestApp, type TestApp } from './helpers/test-app';

// Issue 24: a booking with an Idempotency-Key is as fast as one without because the booking's own
// statement claims the key and, when the door knows the answer is the booking as its module presents
// it (REST, or a GraphQL mutation of some of those fields), stores the answer too: one statement, one
// commit. A key another request has makes the statement change nothing, and the request answers as
// when the claim came first (replay, 409 in use, 422 reused). An answer sent that differs from the one
// stored is written over it.
let app: TestApp;
let key: string;
let organizationId: string;
beforeAll(async () => {
  app = await startTestApp();
  ({ key, organization: { id: organizationId } } = await createTenant(app.orm));
});
afterAll(() => app?.close());

const sql = <T>(text: string, params: unknown[] = []) => app.orm.em.fork().getConnection().execute<T[]>(text, params);
interface KeyRow {
  state: string;
  response_status: number | null;
  response_headers: Record<string, string> | null;
  response_body: string | null;
  recovery_points: Record<string, string> | null;
  version: string;
}
const keyRow = async (idempotencyKey: string) =>
  (await sql<KeyRow>('select state, response_status, response_headers, response_body, recovery_points, xmin::text as version from idempotency_keys where organization_id = ? and key = ?', [organizationId, idempotencyKey]))[0];
const bookingVersion = async (id: string) => (await sql<{ version: string }>('select xmin::text as version from bookings where id = ?', [id]))[0]?.version;
const seatsOf = async (event: CreatedEvent) => (await app.client.rest('GET', `/v1/events/${event.slug}`, key)).body.registrationCount as number;

/** The GraphQL mutation the compiled path answers with the booking's presented fields (an alias among them). */
const BOOK_FIELDS = 'mutation($input: CreateBookingInput!) { createBooking(input: $input) { id status seats: quantity eventId createdAt } }';
/** A % in the answer: the statement's format() must give it back as it was. */
const attendee = { quantity: 2, attendeeEmail: 'ada@example.com', attendeeName: 'Ada 100% %s' };

function book(door: IdempotencyDoor, event: CreatedEvent, idempotencyKey: string, input: Record<string, unknown> = attendee): Promise<HttpResponse> {
  const headers = { authorization: `Bearer ${key}`, 'idempotency-key': idempotencyKey };
  return door === 'rest'
    ? app.client.request('POST', `/v1/events/${event.slug}/bookings`, { headers, json: input })
    : app.client.request('POST', '/graphql', { headers, json: { query: BOOK_FIELDS, variables: { input: { eventSlug: event.slug, ...input } } } });
}
/** The fingerprint the door takes of that request (D17: method, path, body; GraphQL's document and variables). */
function fingerprintFor(door: IdempotencyDoor, event: CreatedEvent, input: Record<string, unknown> = attendee): string {
  return door === 'rest'
    ? fingerprintOf({ method: 'POST', path: `/v1/events/${event.slug}/bookings`, body: input })
    : fingerprintOf({ method: 'POST', path: '/graphql', query: BOOK_FIELDS, operationName: null, variables: { input: { eventSlug: event.slug, ...input } } });
}
const bookingIdOf = (door: IdempotencyDoor, response: HttpResponse): string => (door === 'rest' ? response.body.id : response.body.data.createBooking.id);

describe.each<IdempotencyDoor>(['rest', 'graphql'])('through %s', (door) => {
  test('the key, the booking and its answer commit in one statement; the retry replays that answer byte for byte', async () => {
    const event = await createPublishedEvent(app.client, key, { capacity: 10 });
    const idempotencyKey = randomUUID();
    const first = await book(door, event, idempotencyKey);
    expect(first.status).toBe(door === 'rest' ? 201 : 200);
    const id = bookingIdOf(door, first);
    const row = await keyRow(idempotencyKey);
    expect(row).toMatchObject({ state: 'DONE', response_status: first.status, response_body: `plain:${first.text}` });
    expect(row.response_headers).toEqual(
      door === 'rest' ? { 'content-type': 'application/json; charset=utf-8', location: `/v1/bookings/${id}` } : { 'content-type': first.headers['content-type'] },
    );
    expect(row.recovery_points).toBeNull(); // a DONE record is never recovered: its answer is the point
    // The record's one version was written by the booking's own transaction: no later write stored the answer.
    expect(row.version).toBe(await bookingVersion(id));

    const retry = await book(door, event, idempotencyKey);
    expect([retry.status, retry.text, retry.headers['idempotent-replayed'], retry.headers.location]).toEqual([first.status, first.text, 'true', first.headers.location]);
    expect(await seatsOf(event)).toBe(2);
  });

  test('a key another request holds: the booking changes nothing and answers 409 IN_USE, then books once the lease ends', async () => {
    const event = await createPublishedEvent(app.client, key, { capacity: 10 });
    const idempotencyKey = randomUUID();
    await sql(
      `insert into idempotency_keys (organization_id, key, fingerprint, state, locked_until, created_at, expires_at, claim_token)
       values (?, ?, ?, 'RUNNING', now() + interval '1 minute', now(), now() + interval '1 day', gen_random_uuid())`,
      [organizationId, idempotencyKey, fingerprintFor(door, event)],
    );
    const held = await book(door, event, idempotencyKey);
    expect([held.status, errorCodeOf(held), held.headers['retry-after']]).toEqual([409, 'IDEMPOTENCY_KEY_IN_USE', '1']);
    expect(await seatsOf(event)).toBe(0);

    await sql(`update idempotency_keys set locked_until = now() - interval '1 second' where organization_id = ? and key = ?`, [organizationId, idempotencyKey]);
    const booked = await book(door, event, idempotencyKey);
    expect(booked.status).toBe(door === 'rest' ? 201 : 200);
    expect(booked.headers['idempotent-replayed']).toBeUndefined();
    expect(await seatsOf(event)).toBe(2);
  });

  test('a key used by another request: 422 IDEMPOTENCY_KEY_REUSED, and nothing is booked', async () => {
    const event = await createPublishedEvent(app.client, key, { capacity: 10 });
    const idempotencyKey = randomUUID();
    expect((await book(door, event, idempotencyKey)).status).toBe(door === 'rest' ? 201 : 200);
    const reused = await book(door, event, idempotencyKey, { ...attendee, quantity: 3 });
    expect([reused.status, errorCodeOf(reused)]).toEqual([422, 'IDEMPOTENCY_KEY_REUSED']);
    expect(await seatsOf(event)).toBe(2);
  });

  test('a refused booking claims the key in its statement and stores its refusal after; the retry replays it', async () => {
    const event = await createPublishedEvent(app.client, key, { capacity: 1 });
    const idempotencyKey = randomUUID();
    const refused = await book(door, event, idempotencyKey);
    expect(errorCodeOf(refused)).toBe('SOLD_OUT');
    const row = await keyRow(idempotencyKey);
    expect(row).toMatchObject({ state: 'DONE', recovery_points: null });
    expect(row.response_body).toMatch(/^v2:[0-9a-f]{12}:/); // stored by the door, sealed
    const retry = await book(door, event, idempotencyKey);
    expect([retry.status, retry.text, retry.headers['idempotent-replayed']]).toEqual([refused.status, refused.text, 'true']);
  });
});

test('an answer sent that differs from the one the statement stored is written over it', async () => {
  const event = await createPublishedEvent(app.client, key, { capacity: 10 });
  const store = new IdempotencyKeyStore(app.orm, 24, { seal: (plain) => `sealed:${plain}`, open: (sealed) => sealed.slice('sealed:'.length) });
  const step = idempotentRequests(store, createLogger('silent'));
  const idempotencyKey = randomUUID();
  const sent = '{"another":"shape"}';
  // A door that says its answer is the booking as presented, and then sends something else.
  const server = http.createServer((req, res) => {
    const pending = step(
      {
        organizationId,
        key: idempotencyKey,
        parts: { test: 'overwrite' },
        requestId: randomUUID(),
        door: 'rest',
        resourceAnswer: (resource) => ({ status: 201, headers: { 'content-type': 'application/json; charset=utf-8' }, body: resource }),
      },
      res,
    );
    const em = withUnitOfWorkScope(app.orm.em.fork(), { actor: { kind: 'system', task: 'test' }, idempotency: pending });
    createBooking(em, organizationId, { eventSlug: event.slug, ...attendee }).then(
      () => {
        res.statusCode = 201;
        res.setHeader('Content-Type', 'application/json; charset=utf-8');
        res.end(sent);
      },
      (error: unknown) => {
        res.statusCode = 500;
        res.end(String(error));
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const answer = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST' });
    expect([answer.status, await answer.text()]).toEqual([201, sent]);
    expect(await keyRow(idempotencyKey)).toMatchObject({ state: 'DONE', response_status: 201, response_body: `sealed:${sent}` });
    expect(await seatsOf(event)).toBe(2);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
