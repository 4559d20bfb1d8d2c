import type { ErrorCode } from '../../foundation/errors/app-error';
import { argumentBounds } from '../../foundation/validation/arguments';
import { MAX_SEARCH_LENGTH } from '../../modules/event/event.read-model';
import { CURSOR_PATTERN, MAX_CURSOR_LENGTH } from '../../platform/crypto/list-cursor';

/** How one REST route maps onto a named GraphQL operation. No business rule lives here. */
export interface RestRoute {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Express path; `:name` parameters become variables of the same name. */
  readonly path: string;
  readonly operation: string;
  /** Query-string parameters passed as variables of the same name (converted to the variable's type). */
  readonly query?: readonly string[];
  /** The variable that receives the JSON body (fields the operation does not accept are dropped). */
  readonly body?: string;
  readonly status: 200 | 201 | 204;
  /** The root field of the result sent back (none for 204). */
  readonly result?: string;
  /** The Location header of a 201, from the returned object. */
  readonly location?: (result: { slug: string }) => string;
  /**
   * Domain errors the operation can raise, for the OpenAPI document (authentication, permission,
   * validation, limits and server errors are added to every route from what the route declares).
   */
  readonly errors?: readonly ErrorCode[];
  /** Bounds of query parameters, for the OpenAPI document: the constants the service checks them with. */
  readonly parameterBounds?: Readonly<
    Record<string, { readonly minimum?: number; readonly maximum?: number; readonly maxLength?: number; readonly pattern?: string }>
  >;
}

export const REST_ROUTES: readonly RestRoute[] = [
  {
    method: 'GET',
    path: '/v1/events',
    operation: 'ListEvents',
    query: ['page', 'limit', 'status', 'startsAfter', 'startsBefore', 'search', 'orderBy', 'after'],
    status: 200,
    result: 'events',
    parameterBounds: {
      page: argumentBounds('page'),
      limit: argumentBounds('limit'),
      search: { maxLength: MAX_SEARCH_LENGTH },
      after: { maxLength: MAX_CURSOR_LENGTH, pattern: CURSOR_PATTERN },
    },
  },
  {
    method: 'POST',
    path: '/v1/events',
    operation: 'CreateEvent',
    body: 'input',
    status: 201,
    result: 'createEvent',
    location: (event) => `/v1/events/${encodeURIComponent(event.slug)}`,
  },
  { method: 'GET', path: '/v1/events/:slug', operation: 'GetEvent', status: 200, result: 'event', errors: ['EVENT_NOT_FOUND'] },
  {
    method: 'PUT',
    path: '/v1/events/:slug',
    operation: 'UpdateEvent',
    body: 'input',
    status: 200,
    result: 'updateEvent',
    errors: ['EVENT_NOT_FOUND', 'EVENT_ALREADY_PUBLISHED'],
  },
  { method: 'DELETE', path: '/v1/events/:slug', operation: 'DeleteEvent', status: 204, errors: ['EVENT_NOT_FOUND', 'EVENT_HAS_BOOKINGS'] },
];
