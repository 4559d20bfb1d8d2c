import type { MikroORM } from '@mikro-orm/postgresql';
import { httpStatusOf } from '../../src/foundation/errors/error-codes';
import type { HttpResponse, HttpsClient } from './https-client';

/*
 * Ticket codes, check-in by code, transfers and exchanges (D29) as the tests drive them, through both doors.
 */

/** What a code looks like: tk_ and 24 of [A-Za-z0-9] (≈ 142.9 random bits), URL-safe as it is. */
export const TICKET_CODE = /^tk_[A-Za-z0-9]{24}$/;

export const CODE_FIELDS = 'id eventSlug status attendeeName attendeeEmail checkedInAt ticketCode';
export const CHECK_IN_BY_CODE = `mutation($code: String!, $eventSlug: String!) { checkInByCode(code: $code, eventSlug: $eventSlug) { ${CODE_FIELDS} } }`;
export const TRANSFER = `mutation($id: ID!, $input: TransferBookingInput!) { transferBooking(id: $id, input: $input) { ${CODE_FIELDS} } }`;
export const EXCHANGE = `mutation($id: ID!, $input: ExchangeBookingInput!) { exchangeBooking(id: $id, input: $input) { ${CODE_FIELDS} eventId ticketTypeId quantity } }`;
export const BOOKING_CODE = `query($id: ID!) { booking(id: $id) { ${CODE_FIELDS} } }`;
export const CREATE_WITH_CODE = `mutation($input: CreateBookingInput!) { createBooking(input: $input) { ${CODE_FIELDS} } }`;
export const CONFIRM_WITH_CODE = `mutation($id: ID!) { confirmBooking(id: $id) { ${CODE_FIELDS} } }`;

export type Door = 'graphql' | 'rest';
export const DOORS: readonly Door[] = ['graphql', 'rest'];

/** An answer of either door as one shape: the booking, or the error's code, details and the HTTP status of its code. */
export interface Outcome {
  readonly status: number;
  readonly booking?: Record<string, any>;
  readonly error?: { readonly code: string; readonly details?: unknown };
}

function outcomeOf(door: Door, response: HttpResponse, field: string): Outcome {
  if (door === 'rest') {
    return response.status < 300 ? { status: response.status, booking: response.body } : { status: response.status, error: response.body?.error };
  }
  const error = response.body?.errors?.[0];
  if (error) {
    // GraphQL answers a refused mutation 200 with its error (and a check before execution with the code's status): the code's status, as REST answers it.
    const { code, details } = error.extensions;
    return { status: httpStatusOf(code), error: details === undefined ? { code } : { code, details } };
  }
  return { status: response.status, booking: response.body.data[field] };
}

/** A scan at the gate of `eventSlug`: Mutation.checkInByCode, or POST /v1/check-ins. */
export async function scan(client: HttpsClient, door: Door, key: string, code: unknown, eventSlug: unknown, headers: Record<string, string> = {}): Promise<Outcome> {
  const response =
    door === 'rest'
      ? await client.request('POST', '/v1/check-ins', { headers: { authorization: `Bearer ${key}`, ...headers }, json: { code, eventSlug } })
      : await client.request('POST', '/graphql', { headers: { authorization: `Bearer ${key}`, ...headers }, json: { query: CHECK_IN_BY_CODE, variables: { code, eventSlug } } });
  return outcomeOf(door, response, 'checkInByCode');
}

/** A transfer: Mutation.transferBooking, or POST /v1/bookings/{id}/transfer. */
export async function transfer(
  client: HttpsClient,
  door: Door,
  key: string,
  id: string,
  input: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<Outcome & { readonly response: HttpResponse }> {
  const response =
    door === 'rest'
      ? await client.request('POST', `/v1/bookings/${id}/transfer`, { headers: { authorization: `Bearer ${key}`, ...headers }, json: input })
      : await client.request('POST', '/graphql', { headers: { authorization: `Bearer ${key}`, ...headers }, json: { query: TRANSFER, variables: { id, input } } });
  return { ...outcomeOf(door, response, 'transferBooking'), response };
}

/** An exchange: Mutation.exchangeBooking, or POST /v1/bookings/{id}/exchange. */
export async function exchange(
  client: HttpsClient,
  door: Door,
  key: string,
  id: string,
  input: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<Outcome & { readonly response: HttpResponse }> {
  const response =
    door === 'rest'
      ? await client.request('POST', `/v1/bookings/${id}/exchange`, { headers: { authorization: `Bearer ${key}`, ...headers }, json: input })
      : await client.request('POST', '/graphql', { headers: { authorization: `Bearer ${key}`, ...headers }, json: { query: EXCHANGE, variables: { id, input } } });
  return { ...outcomeOf(door, response, 'exchangeBooking'), response };
}

/** The ticket code a key reads for booking `id` (GraphQL). */
export async function codeOf(client: HttpsClient, key: string, id: string): Promise<string | null> {
  const response = await client.graphql(key, BOOKING_CODE, { id });
  if (response.body.errors) throw new Error(`booking ${id}: ${JSON.stringify(response.body.errors)}`);
  return response.body.data.booking.ticketCode;
}

/**
 * Every row of every table of the database as text (each row's whole record): where a code in clear
 * would show if any table held one.
 */
export async function everyStoredRow(orm: MikroORM): Promise<string[]> {
  const connection = orm.em.fork().getConnection();
  const tables = await connection.execute<Array<{ name: string }>>(
    `select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = current_schema() and c.relkind in ('r', 'p')`,
  );
  const rows: string[] = [];
  for (const { name } of tables) {
    const found = await connection.execute<Array<{ row: string }>>(`select t::text as row from "${name}" t`);
    rows.push(...found.map((row) => `${name}: ${row.row}`));
  }
  return rows;
}
