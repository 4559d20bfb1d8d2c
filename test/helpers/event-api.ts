import type { HttpsClient } from './https-client';

/** The two doors every event operation is tested through with the same cases. */
export const DOORS = ['rest', 'graphql'] as const;
export type Door = (typeof DOORS)[number];

/** Spec 2.1: the full event object (create, update, get), and D20's counts. */
export const FULL_EVENT_FIELDS = [
  'id',
  'slug',
  'title',
  'description',
  'startDate',
  'endDate',
  'timezone',
  'venue',
  'venueAddress',
  'coverImage',
  'status',
  'capacity',
  'registrationCount',
  'heldCount',
  'checkedInCount',
  'ticketTypes',
  'organizationId',
  'createdAt',
  'updatedAt',
  'series',
  // D30: the on-sale queue's settings (null without one).
  'queue',
].sort();

/** Spec 2.1: the fields of a list item, and D20's counts (D29: list items included), and the series (D28). */
export const LIST_ITEM_FIELDS = [
  'id',
  'slug',
  'title',
  'description',
  'startDate',
  'endDate',
  'timezone',
  'venue',
  'status',
  'capacity',
  'registrationCount',
  'heldCount',
  'checkedInCount',
  'createdAt',
  'updatedAt',
  'series',
].sort();

export const TICKET_TYPE_FIELDS = ['id', 'name', 'price', 'currency', 'quantity', 'sold', 'held'].sort();

/** ISO 8601 UTC with milliseconds, as D5 requires. */
export const ISO_UTC_MILLIS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const FULL_SELECTION = `id slug title description startDate endDate timezone venue venueAddress coverImage status capacity
  registrationCount heldCount checkedInCount organizationId createdAt updatedAt series { id slug } ticketTypes { id name price currency quantity sold held }
  queue { enabled opensAt onSaleAt admitPerMinute admissionMinutes maxSeatsPerAdmission }`;
const LIST_SELECTION = 'id slug title description startDate endDate timezone venue status capacity registrationCount heldCount checkedInCount createdAt updatedAt series { id slug }';

export interface ApiError {
  code: string;
  message: string;
  details?: any;
}

/** One call through either door, reduced to what both share. */
export interface Outcome {
  /** The HTTP status (GraphQL answers 200 or 400 with `errors`; compare codes across doors, not this). */
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The operation's result (REST body; GraphQL `data.<field>`), undefined on error. */
  data: any;
  error?: ApiError;
  text: string;
  /** GraphQL only: the answer has a `data` entry, i.e. the operation was executed (null when refused before). */
  executed?: boolean;
}

export type ListParams = Record<string, string | number | undefined>;

/** Event operations through one door, with one key. */
export class EventApi {
  constructor(
    private readonly client: HttpsClient,
    private readonly key: string | undefined,
    readonly door: Door,
  ) {}

  list(params: ListParams = {}): Promise<Outcome> {
    if (this.door === 'rest') {
      const query = new URLSearchParams(
        Object.entries(params).flatMap(([name, value]): Array<[string, string]> => (value === undefined ? [] : [[name, String(value)]])),
      ).toString();
      return this.rest('GET', `/v1/events${query ? `?${query}` : ''}`);
    }
    return this.graphql(
      'events',
      `query List($page: Int, $limit: Int, $status: EventStatus, $startsAfter: DateTimeISO, $startsBefore: DateTimeISO, $search: String, $series: String, $orderBy: EventOrder, $after: String) {
        events(page: $page, limit: $limit, status: $status, startsAfter: $startsAfter, startsBefore: $startsBefore, search: $search, series: $series, orderBy: $orderBy, after: $after) {
          events { ${LIST_SELECTION} } total page limit nextCursor
        }
      }`,
      params,
    );
  }

  get(slug: string): Promise<Outcome> {
    if (this.door === 'rest') return this.rest('GET', `/v1/events/${encodeURIComponent(slug)}`);
    return this.graphql('event', `query Get($slug: String!) { event(slug: $slug) { ${FULL_SELECTION} } }`, { slug });
  }

  create(input: unknown): Promise<Outcome> {
    if (this.door === 'rest') return this.rest('POST', '/v1/events', input);
    return this.graphql(
      'createEvent',
      `mutation Create($input: CreateEventInput!) { createEvent(input: $input) { ${FULL_SELECTION} } }`,
      { input },
    );
  }

  update(slug: string, input: unknown): Promise<Outcome> {
    if (this.door === 'rest') return this.rest('PUT', `/v1/events/${encodeURIComponent(slug)}`, input);
    return this.graphql(
      'updateEvent',
      `mutation Update($slug: String!, $input: UpdateEventInput!) { updateEvent(slug: $slug, input: $input) { ${FULL_SELECTION} } }`,
      { slug, input },
    );
  }

  delete(slug: string): Promise<Outcome> {
    if (this.door === 'rest') return this.rest('DELETE', `/v1/events/${encodeURIComponent(slug)}`);
    return this.graphql('deleteEvent', 'mutation Delete($slug: String!) { deleteEvent(slug: $slug) { id slug } }', { slug });
  }

  private async rest(method: string, path: string, json?: unknown): Promise<Outcome> {
    const response = await this.client.rest(method, path, this.key, json);
    const error = response.status >= 400 ? (response.body?.error as ApiError | undefined) : undefined;
    return { status: response.status, headers: response.headers, data: error ? undefined : response.body, error, text: response.text };
  }

  private async graphql(field: string, query: string, variables: Record<string, unknown>): Promise<Outcome> {
    const response = await this.client.graphql(this.key, query, variables);
    const first = response.body?.errors?.[0];
    const error = first
      ? { code: first.extensions?.code as string, message: first.message as string, details: first.extensions?.details }
      : undefined;
    const executed = typeof response.body === 'object' && response.body !== null && 'data' in response.body;
    return { status: response.status, headers: response.headers, data: response.body?.data?.[field] ?? undefined, error, text: response.text, executed };
  }
}

/** The same operations through both doors, for `describe.each(DOORS)`. */
export function eventApi(client: HttpsClient, key: string | undefined, door: Door): EventApi {
  return new EventApi(client, key, door);
}

/** The fields named in a VALIDATION_ERROR, sorted (for exact comparisons). */
export function failingFields(outcome: Outcome): string[] {
  const errors = (outcome.error?.details?.errors ?? []) as Array<{ field: string }>;
  return [...new Set(errors.map((error) => error.field))].sort();
}

/** Codes only ever found before a GraphQL operation runs (docs/api-choices.md "GraphQL HTTP statuses", D13). */
const BEFORE_EXECUTION = new Set(['UNAUTHORIZED', 'INVALID_API_KEY', 'API_KEY_EXPIRED', 'FORBIDDEN', 'IP_NOT_ALLOWED', 'RATE_LIMITED', 'QUERY_TOO_COMPLEX']);

/**
 * The exact HTTP status through each door (D13): REST answers the code's status. GraphQL answers it
 * for errors found before execution (key, permissions, limits: no `data` in the answer) and 200 with
 * `data` for errors raised while resolving (a missing event, a state rule). A VALIDATION_ERROR is
 * either: 400 without `data` for an argument of the wrong type or range, 200 with `data` for a rule of
 * an input field.
 */
function expectStatus(outcome: Outcome, door: Door, status: number): void {
  if (door === 'rest') {
    expect(outcome.status).toBe(status);
    return;
  }
  expectGraphqlErrorStatus({ code: outcome.error?.code, status: outcome.status, executed: outcome.executed }, status);
}

/**
 * The HTTP status of a GraphQL error answer (see expectStatus): `status` (the code's REST status)
 * without `data` when found before execution, 200 with `data` when raised while resolving.
 */
export function expectGraphqlErrorStatus(answer: { code: string | undefined; status: number; executed: boolean | undefined }, status: number): void {
  const code = answer.code ?? '';
  const before = BEFORE_EXECUTION.has(code) || (code === 'VALIDATION_ERROR' && answer.executed === false);
  expect({ code, status: answer.status, executed: answer.executed }).toEqual({ code, status: before ? status : 200, executed: !before });
}

/** Asserts a VALIDATION_ERROR naming exactly these fields, with the status of each door. */
export function expectValidationError(outcome: Outcome, door: Door, fields: string[]): void {
  expect({ code: outcome.error?.code, fields: failingFields(outcome) }).toEqual({ code: 'VALIDATION_ERROR', fields: [...fields].sort() });
  for (const error of outcome.error?.details?.errors ?? []) expect(typeof error.message).toBe('string');
  expectStatus(outcome, door, 400);
  expect(outcome.data ?? null).toBeNull();
}

/** Asserts an error code (and details), with the status of each door. */
export function expectError(outcome: Outcome, door: Door, code: string, status: number, details?: unknown): void {
  expect(outcome.error?.code).toBe(code);
  if (details !== undefined) expect(outcome.error?.details).toEqual(details);
  expectStatus(outcome, door, status);
  expect(outcome.data ?? null).toBeNull();
}
