import { parse, type OperationDefinitionNode } from 'graphql';
import { graphqlResourceAnswer } from '../src/doors/graphql/resource-answer';

// Which GraphQL mutations may have their Idempotency-Key answer stored by the booking's own statement
// (issue 24), and the answer they get: what the compiled path writes for the booking's presented fields.
const ROOT_FIELDS = new Set(['createBooking']);
const MEDIA_TYPE = 'application/graphql-response+json; charset=utf-8';
const booking = { id: 'bk_1', eventId: 'evt_1', quantity: 2, status: 'CONFIRMED', createdAt: '2030-01-01T00:00:00.000Z' };
const operationOf = (document: string) => parse(document).definitions[0] as OperationDefinitionNode;
const answerOf = (document: string) => graphqlResourceAnswer(operationOf(document), MEDIA_TYPE, ROOT_FIELDS);

test('the presented fields, aliases and all, in the order selected, under data and the root field (or its alias)', () => {
  const answer = answerOf('mutation($i: CreateBookingInput!) { made: createBooking(input: $i) { status id seats: quantity id } }');
  expect(answer?.(booking)).toEqual({
    status: 200,
    headers: { 'content-type': MEDIA_TYPE },
    body: { data: { made: { status: 'CONFIRMED', id: 'bk_1', seats: 2 } } },
    suffix: '\n',
  });
  expect(JSON.stringify(answer?.(booking)?.body)).toBe('{"data":{"made":{"status":"CONFIRMED","id":"bk_1","seats":2}}}');
});

test.each([
  ['a query', 'query { booking(id: "bk_1") { id } }'],
  ['another root field', 'mutation($i: CreateEventInput!) { createEvent(input: $i) { id } }'],
  ['two root fields', 'mutation($i: CreateBookingInput!) { createBooking(input: $i) { id } other: createBooking(input: $i) { id } }'],
  ['a nested selection', 'mutation($i: CreateBookingInput!) { createBooking(input: $i) { id ticketType { id } } }'],
  ['a fragment', 'mutation($i: CreateBookingInput!) { createBooking(input: $i) { ...F } } fragment F on Booking { id }'],
  ['a directive on a field', 'mutation($i: CreateBookingInput!, $s: Boolean!) { createBooking(input: $i) { id status @include(if: $s) } }'],
  ['a directive on the root field', 'mutation($i: CreateBookingInput!, $s: Boolean!) { createBooking(input: $i) @skip(if: $s) { id } }'],
])('no answer for %s', (_, document) => {
  expect(answerOf(document)).toBeUndefined();
});

test('no answer when a selected field is not in the presentation (__typename, or one it lacks)', () => {
  expect(answerOf('mutation($i: CreateBookingInput!) { createBooking(input: $i) { id __typename } }')?.(booking)).toBeUndefined();
  expect(answerOf('mutation($i: CreateBookingInput!) { createBooking(input: $i) { id constructor } }')?.(booking)).toBeUndefined();
});
