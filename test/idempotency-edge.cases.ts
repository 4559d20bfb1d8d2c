import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '../src/foundation/logger';
import { fingerprintOf, idempotentRequests } from '../src/http/idempotent-requests';
import { createBooking } from '../src/modules/booking/commands/create-booking';
import { systemScope } from '../src/platform/db/unit-of-work-scope';
import { TicketCodes } from '../src/platform/crypto/ticket-codes';
import { IdempotencyKeyStore } from '../src/platform/idempotency/idempotency-key.store';
import { createPublishedEvent, type CreatedEvent } from './helpers/bookings';
import { errorCodeOf, type IdempotencyDoor } from './helpers/idempotency';
import type { HttpResponse } from './helpers/https-client';
import { useTestApp } from './helpers/use-test-app';

// Idempotency at the edge (D17): the pipeline's idempotency step claims the key before the operation
// runs; the booking's own statement writes the key's recovery point with the booking (one statement
// under the event's lock, as without a key); the answer the door sent is stored after, sealed. A key
// another request has is answered at the edge (replay, 409 in use, 422 reused): nothing runs.
const ctx = useTestApp({}, { tenant: true });

const sql = <T>(text: string, params: unknown[] = []) => ctx.app.orm.em.fork().getConnection().execute<T[]>(text, params);
interface KeyRow {
  state: string;
  response_status: number | null;
  response_headers: Record<string, string> | null;
  response_body: string | null;
  recovery_points: Record<string, string> | null;
}
const keyRow = async (idempotencyKey: string) =>
  (await sql<KeyRow>('select state, response_status, response_headers, response_body, recovery_points from idempotency_keys where organization_id = ? and key = ?', [ctx.organizationId, idempotencyKey]))[0];
const seatsOf = async (event: CreatedEvent) => (await ctx.app.client.rest('GET', `/v1/events/${event.slug}`, ctx.key)).body.registrationCount as number;

/** A GraphQL booking that selects the booking's fields (an alias among them). */
const BOOK_FIELDS = 'mutation($input: CreateBookingInput!) { createBooking(input: $input) { id status seats: quantity eventId createdAt } }';
/** A % in the answer: the statement's format() must give it back as it was. */
const attendee = { quantity: 2, attendeeEmail: 'ada@example.com', attendeeName: 'Ada 100% %s' };

function book(door: IdempotencyDoor, event: CreatedEvent, idempotencyKey: string, input: Record<string, unknown> = attendee): Promise<HttpResponse> {
  const headers = { authorization: `Bearer ${ctx.key}`, 'idempotency-key': idempotencyKey };
  return door === 'rest'
    ? ctx.app.client.request('POST', `/v1/events/${event.slug}/bookings`, { headers, json: input })
    : ctx.app.client.request('POST', '/graphql', { headers, json: { query: BOOK_FIELDS, variables: { input: { eventSlug: event.slug, ...input } } } });
}
/** The fingerprint the door takes of that request (D17: method, path, body; GraphQL's document and variables). */
function fingerprintFor(door: IdempotencyDoor, event: CreatedEvent, input: Record<string, unknown> = attendee): string {
  return door === 'rest'
    ? fingerprintOf({ method: 'POST', path: `/v1/events/${event.slug}/bookings`, body: input })
    : fingerprintOf({ method: 'POST', path: '/graphql', query: BOOK_FIELDS, operationName: null, variables: { input: { eventSlug: event.slug, ...input } } });
}
const bookingIdOf = (door: IdempotencyDoor, response: HttpResponse): string => (door === 'rest' ? response.body.id : response.body.data.createBooking.id);

describe.each<IdempotencyDoor>(['rest', 'graphql'])('through %s', (door) => {
  test('the booking commits with its recovery point, the answer sent is stored after; the retry replays it byte for byte', async () => {
    const event = await createPublishedEvent(ctx.app.client, ctx.key, { capacity: 10 });
    const idempotencyKey = randomUUID();
    const first = await book(door, event, idempotencyKey);
    expect(first.status).toBe(door === 'rest' ? 201 : 200);
    const id = bookingIdOf(door, first);
    const row = await keyRow(idempotencyKey);
    expect(row).toMatchObject({ state: 'DONE', response_status: first.status });
    expect(row.response_body).toMatch(/^v2:[0-9a-f]{12}:/); // stored by the door, sealed (D24)
    expect(row.response_headers).toEqual(
      door === 'rest' ? { 'content-type': 'application/json; charset=utf-8', location: `/v1/bookings/${id}` } : { 'content-type': first.headers['content-type'] },
    );
    // The booking's statement wrote its recovery point (step 0) before the answer was stored.
    expect(Object.keys(row.recovery_points ?? {})).toEqual(['0']);

    const retry = await book(door, event, idempotencyKey);
    expect([retry.status, retry.text, retry.headers['idempotent-replayed'], retry.headers.location]).toEqual([first.status, first.text, 'true', first.headers.location]);
    expect(await seatsOf(event)).toBe(2);
  });

  test('a key another request holds: 409 IN_USE before anything runs, then books once the lease ends', async () => {
    const event = await createPublishedEvent(ctx.app.client, ctx.key, { capacity: 10 });
    const idempotencyKey = randomUUID();
    await sql(
      `insert into idempotency_keys (organization_id, key, fingerprint, state, locked_until, created_at, expires_at, claim_token)
       values (?, ?, ?, 'RUNNING', now() + interval '1 minute', now(), now() + interval '1 day', gen_random_uuid())`,
      [ctx.organizationId, idempotencyKey, fingerprintFor(door, event)],
    );
    const held = await book(door, event, idempotencyKey);
    expect([held.status, errorCodeOf(held), held.headers['retry-after']]).toEqual([409, 'IDEMPOTENCY_KEY_IN_USE', '1']);
    expect(await seatsOf(event)).toBe(0);

    await sql(`update idempotency_keys set locked_until = now() - interval '1 second' where organization_id = ? and key = ?`, [ctx.organizationId, idempotencyKey]);
    const booked = await book(door, event, idempotencyKey);
    expect(booked.status).toBe(door === 'rest' ? 201 : 200);
    expect(booked.headers['idempotent-replayed']).toBeUndefined();
    expect(await seatsOf(event)).toBe(2);
  });

  test('a key used by another request: 422 IDEMPOTENCY_KEY_REUSED, and nothing is booked', async () => {
    const event = await createPublishedEvent(ctx.app.client, ctx.key, { capacity: 10 });
    const idempotencyKey = randomUUID();
    expect((await book(door, event, idempotencyKey)).status).toBe(door === 'rest' ? 201 : 200);
    const reused = await book(door, event, idempotencyKey, { ...attendee, quantity: 3 });
    expect([reused.status, errorCodeOf(reused)]).toEqual([422, 'IDEMPOTENCY_KEY_REUSED']);
    expect(await seatsOf(event)).toBe(2);
  });

  test('a refused booking stores its refusal, with no recovery point (nothing committed); the retry replays it', async () => {
    const event = await createPublishedEvent(ctx.app.client, ctx.key, { capacity: 1 });
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

test('what a door sends is what is stored: a change under a held key, then the door\'s own answer', async () => {
  const event = await createPublishedEvent(ctx.app.client, ctx.key, { capacity: 10 });
  const store = new IdempotencyKeyStore(ctx.app.orm, 24, { seal: (plain) => `sealed:${plain}`, open: (sealed) => sealed.slice('sealed:'.length) });
  const step = idempotentRequests(store, createLogger('silent'));
  const idempotencyKey = randomUUID();
  const sent = '{"another":"shape"}';
  // A door whose answer is not the booking as its module presents it: the store never guesses it.
  const server = http.createServer((req, res) => {
    step({ organizationId: ctx.organizationId, key: idempotencyKey, parts: { test: 'door answer' }, requestId: randomUUID() }, res)
      .then((held) => {
        return createBooking(systemScope(ctx.app.orm.em.fork(), 'test', { idempotency: held!.claim, ticketCodes: TicketCodes.of(ctx.app.service.secrets) }), ctx.organizationId, { eventSlug: event.slug, ...attendee });
      })
      .then(
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
    const row = await keyRow(idempotencyKey);
    expect(row).toMatchObject({ state: 'DONE', response_status: 201, response_body: `sealed:${sent}` });
    expect(Object.keys(row.recovery_points ?? {})).toEqual(['0']);
    expect(await seatsOf(event)).toBe(2);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
