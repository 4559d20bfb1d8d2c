import { getDirective } from '@graphql-tools/utils';
import { createTenant, eventInput } from './helpers/factories';
import { useTestApp } from './helpers/use-test-app';
import { buildAppSchema } from '../src/schema/graphql-schema';
import { buildOpenApiDocument } from '../src/doors/rest/openapi/openapi-document';
import { compileRoutes } from '../src/doors/rest/rest-executor';
import { REST_DOWNLOADS, REST_ROUTES } from '../src/doors/rest/routes';

const ctx = useTestApp();
let doc: any;
beforeAll(async () => {
  const response = await ctx.app.client.request('GET', '/v1/openapi.json');
  expect(response.status).toBe(200);
  doc = response.body;
});

const operation = (method: string, path: string) => doc.paths[path][method.toLowerCase()];
const resolve = (schema: any): any => (schema?.$ref ? doc.components.schemas[schema.$ref.split('/').pop()] : schema);
const codesOf = (responseSchema: any): string[] =>
  (responseSchema.anyOf ?? [responseSchema]).map((item: any) => resolve(item).properties.error.properties.code.const);

test('is served without a key as OpenAPI 3.1 with the bearer scheme', async () => {
  const response = await ctx.app.client.request('GET', '/v1/openapi.json');
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  expect(doc.openapi).toBe('3.1.0');
  expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  expect(doc.security).toEqual([{ bearerAuth: [] }]);
});

test('describes exactly the routes of the route table', () => {
  const documented = Object.entries(doc.paths).flatMap(([path, methods]: [string, any]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`));
  const routed = [...REST_ROUTES, ...REST_DOWNLOADS].map((route) => `${route.method} ${route.path.replace(/:(\w+)/g, '{$1}')}`);
  expect(documented.sort()).toEqual(routed.sort());
  // D23: every booking route and the attendee export.
  expect(documented).toEqual(
    expect.arrayContaining([
      'GET /v1/events/{slug}/bookings',
      'POST /v1/events/{slug}/bookings',
      'GET /v1/bookings/{id}',
      'POST /v1/bookings/{id}/confirm',
      'POST /v1/bookings/{id}/cancel',
      'POST /v1/bookings/{id}/check-in',
      'DELETE /v1/bookings/{id}/check-in',
      'GET /v1/events/{slug}/attendees.csv',
    ]),
  );
  // Derived, not kept by hand: a different table gives a different document.
  const schema = buildAppSchema();
  const withoutDelete = buildOpenApiDocument(schema, compileRoutes(schema, REST_ROUTES.filter((r) => r.method !== 'DELETE')), '0') as any;
  expect(withoutDelete.paths['/v1/events/{slug}'].delete).toBeUndefined();
});

test('success statuses: list 200, get 200, create 201 with Location, update 200, delete 204 without body', () => {
  expect(Object.keys(operation('GET', '/v1/events').responses)).toContain('200');
  expect(Object.keys(operation('GET', '/v1/events/{slug}').responses)).toContain('200');
  const created = operation('POST', '/v1/events').responses['201'];
  expect(created.headers.Location).toEqual({ $ref: '#/components/headers/Location' });
  expect(operation('PUT', '/v1/events/{slug}').responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/FullEvent' });
  const deleted = operation('DELETE', '/v1/events/{slug}').responses['204'];
  expect(deleted.content).toBeUndefined();
  for (const route of REST_ROUTES) {
    const responses = operation(route.method, route.path.replace(/:(\w+)/g, '{$1}')).responses;
    // A join (D30) answers the attendee's entry there is with 200 instead of making one (201).
    const statuses = route.created !== undefined ? ['200', String(route.status)] : [String(route.status)];
    expect(Object.keys(responses).filter((status) => status.startsWith('2'))).toEqual(statuses);
    expect(responses[String(route.status)].headers['X-Request-Id']).toBeDefined();
  }
});

test('each operation names the permission of its root field, read from @requiresPermission', () => {
  const schema = buildAppSchema();
  for (const route of compileRoutes(schema)) {
    const root = route.operationNode.operation === 'mutation' ? schema.getMutationType()! : schema.getQueryType()!;
    const fieldName = (route.operationNode.selectionSet.selections[0] as any).name.value;
    const permission = getDirective(schema, root.getFields()[fieldName], 'requiresPermission')?.[0]?.permission;
    const documented = operation(route.method, route.path.replace(/:(\w+)/g, '{$1}'));
    expect(documented['x-required-permission']).toBe(permission);
    expect(documented.description).toContain(`\`${permission}\``);
    expect(documented.security).toEqual([{ bearerAuth: [] }]);
  }
  expect(operation('GET', '/v1/events')['x-required-permission']).toBe('events:read');
  expect(operation('DELETE', '/v1/events/{slug}')['x-required-permission']).toBe('events:write');
});

test('parameters and bodies come from the operations variables and arguments', () => {
  const list = operation('GET', '/v1/events').parameters;
  expect(list).toEqual([
    expect.objectContaining({ name: 'page', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 1 } }),
    expect.objectContaining({ name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } }),
    expect.objectContaining({ name: 'status', in: 'query', required: false, schema: { $ref: '#/components/schemas/EventStatus' } }),
    expect.objectContaining({ name: 'startsAfter', in: 'query', required: false, schema: expect.objectContaining({ type: 'string', format: 'date-time' }) }),
    expect.objectContaining({ name: 'startsBefore', in: 'query', required: false, schema: expect.objectContaining({ type: 'string', format: 'date-time' }) }),
    expect.objectContaining({ name: 'search', in: 'query', required: false, schema: { type: 'string', maxLength: 200, pattern: '^[^\\u0000]*$' } }),
    // D28: a series' occurrences.
    expect.objectContaining({ name: 'series', in: 'query', required: false, schema: expect.objectContaining({ type: 'string', maxLength: 100 }) }),
    expect.objectContaining({ name: 'orderBy', in: 'query', required: false, schema: expect.objectContaining({ $ref: '#/components/schemas/EventOrder' }) }),
    expect.objectContaining({
      name: 'after',
      in: 'query',
      required: false,
      schema: expect.objectContaining({ type: 'string', maxLength: 512, allOf: expect.arrayContaining([{ pattern: '^[A-Za-z0-9_-]{24,512}$' }]) }),
    }),
  ]);
  expect(doc.components.schemas.EventStatus.enum).toEqual(['DRAFT', 'PUBLISHED', 'CANCELLED', 'COMPLETED']);
  const idempotencyKey = expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: false });
  for (const method of ['GET', 'PUT', 'DELETE']) {
    expect(operation(method, '/v1/events/{slug}').parameters).toEqual([
      // Any slug without a NUL character is asked for (one no event can have is not found: 404).
      { name: 'slug', in: 'path', required: true, schema: { type: 'string', pattern: '^[^\\u0000]*$' } },
      ...(method === 'GET' ? [] : [idempotencyKey]),
    ]);
  }
  expect(operation('POST', '/v1/events').parameters).toEqual([idempotencyKey]);
  expect(operation('POST', '/v1/events').responses['201'].headers['Idempotent-Replayed']).toBeDefined();
  const create = operation('POST', '/v1/events').requestBody;
  expect(create.required).toBe(true);
  expect(create.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/CreateEventInput' });
  const input = doc.components.schemas.CreateEventInput;
  expect(input.required.sort()).toEqual(['endDate', 'slug', 'startDate', 'title']);
  expect(input.properties.startDate).toMatchObject({ type: 'string', format: 'date-time' });
  expect(input.properties.capacity).toMatchObject({ type: ['integer', 'null'] });
  expect(input.properties.ticketTypes).toMatchObject({ type: ['array', 'null'], items: { $ref: '#/components/schemas/TicketTypeInput' } });
  expect(doc.components.schemas.UpdateEventInput.required).toBeUndefined();
  // The field rules of the input classes (class-validator decorators), stated as JSON Schema.
  expect(input.properties.title).toEqual({ type: 'string', maxLength: 200, allOf: [{ pattern: '\\S' }, { pattern: '^[^\\u0000]*$' }], description: expect.any(String) });
  expect(input.properties.slug).toMatchObject({ type: 'string', maxLength: 100, allOf: [{ pattern: '^[a-z0-9]+(-[a-z0-9]+)*$' }, { pattern: '^[^\\u0000]*$' }] });
  expect(input.properties.capacity).toMatchObject({ minimum: 1, maximum: 1_000_000 });
  expect(input.properties.ticketTypes).toMatchObject({ maxItems: 50 });
  expect(input.properties.coverImage).toMatchObject({ type: ['string', 'null'], maxLength: 2048, format: 'uri' });
  const ticketType = doc.components.schemas.TicketTypeInput.properties;
  expect(ticketType.currency.enum).toEqual(expect.arrayContaining(['EUR', 'USD', 'JPY']));
  expect(ticketType.currency.enum).not.toContain('ZZZ');
  expect(ticketType.price).toMatchObject({ type: 'number', minimum: 0, maximum: 9_999_999.99, 'x-decimal-places': 2 });
  // Update: a field that cannot be cleared is not nullable; status takes only what a client may set (D3).
  const update = doc.components.schemas.UpdateEventInput.properties;
  for (const field of ['title', 'slug', 'startDate', 'endDate', 'timezone', 'status']) expect([field, update[field].type]).toEqual([field, 'string']);
  for (const field of ['description', 'venue', 'venueAddress', 'coverImage']) expect([field, update[field].type]).toEqual([field, ['string', 'null']]);
  expect(update.capacity.type).toEqual(['integer', 'null']);
  expect(update.status.enum).toEqual(['DRAFT', 'PUBLISHED', 'CANCELLED']);
  // Fields the operation does not take are ignored (D4), at every depth: the document says so.
  expect(input.additionalProperties).toBe(true);
  // D28: a body whose fields are the operation's arguments (updateSeries), the path's slug left out.
  const change = resolve(operation('PUT', '/v1/series/{slug}').requestBody.content['application/json'].schema);
  expect(Object.keys(change.properties).sort()).toEqual(['changes', 'expectedVersion', 'from', 'moveBooked', 'newSlug', 'scope']);
  expect(change.required).toEqual(['expectedVersion']);
  expect(resolve(operation('POST', '/v1/series/{slug}/preview').requestBody.content['application/json'].schema).required).toBeUndefined();
  // D29: a scan's body is its two arguments, with the bounds the service checks them with.
  const scan = resolve(operation('POST', '/v1/check-ins').requestBody.content['application/json'].schema);
  expect(scan.required).toEqual(['code', 'eventSlug']);
  expect(scan.properties.code).toMatchObject({ maxLength: 128 });
  expect(operation('POST', '/v1/series').requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/CreateSeriesInput' });
});

test('every error response carries the envelope of its codes with their details', () => {
  for (const route of REST_ROUTES) {
    const responses = operation(route.method, route.path.replace(/:(\w+)/g, '{$1}')).responses;
    const schemaOf = (status: string) => responses[status].content['application/json'].schema;
    expect(codesOf(schemaOf('401'))).toEqual(['UNAUTHORIZED', 'INVALID_API_KEY', 'API_KEY_EXPIRED']);
    expect(codesOf(schemaOf('403'))).toContain('FORBIDDEN');
    expect(codesOf(schemaOf('429'))).toEqual(['RATE_LIMITED']);
    expect(responses['429'].headers['Retry-After']).toBeDefined();
    expect(codesOf(schemaOf('500'))).toEqual(['INTERNAL_ERROR']);
    expect(codesOf(schemaOf('503'))).toEqual(['SERVICE_UNAVAILABLE']);
    const withTicketType = ['CreateBooking', 'JoinWaitlist'].includes(route.operation);
    // D30: a booking names its queue entry too.
    const notFound = route.path.startsWith('/v1/series/')
      ? ['SERIES_NOT_FOUND']
      : withTicketType
        ? ['EVENT_NOT_FOUND', 'TICKET_TYPE_NOT_FOUND', ...(route.operation === 'CreateBooking' ? ['QUEUE_ENTRY_NOT_FOUND'] : [])]
        : ['EVENT_NOT_FOUND'];
    if (route.path.includes(':slug')) expect(codesOf(schemaOf('404'))).toEqual(notFound);
    // An exchange (D29) also names the event it moves to, and that event's ticket type.
    const byId = route.operation === 'ExchangeBooking' ? ['BOOKING_NOT_FOUND', 'EVENT_NOT_FOUND', 'TICKET_TYPE_NOT_FOUND'] : ['BOOKING_NOT_FOUND'];
    const entryNotFound = route.path.startsWith('/v1/waitlist/') ? ['WAITLIST_ENTRY_NOT_FOUND'] : route.path.startsWith('/v1/queue/') ? ['QUEUE_ENTRY_NOT_FOUND'] : byId;
    if (route.path.includes(':id')) expect(codesOf(schemaOf('404'))).toEqual(entryNotFound);
    if (route.body) expect(codesOf(schemaOf('413'))).toEqual(['PAYLOAD_TOO_LARGE']);
    if (route.body || route.query) expect(codesOf(schemaOf('400'))).toEqual(['VALIDATION_ERROR']);
  }
  expect(codesOf(operation('PUT', '/v1/events/{slug}').responses['409'].content['application/json'].schema)).toEqual(['EVENT_ALREADY_PUBLISHED', 'IDEMPOTENCY_KEY_IN_USE']);
  expect(codesOf(operation('DELETE', '/v1/events/{slug}').responses['409'].content['application/json'].schema)).toEqual(['EVENT_HAS_BOOKINGS', 'IDEMPOTENCY_KEY_IN_USE']);
  expect(codesOf(operation('POST', '/v1/events').responses['422'].content['application/json'].schema)).toEqual(['IDEMPOTENCY_KEY_REUSED']);
  expect(operation('POST', '/v1/events').responses['409'].headers['Retry-After']).toBeDefined();

  const details = (name: string) => doc.components.schemas[name].properties.error.properties.details;
  expect(details('ValidationError').properties.errors.items).toMatchObject({ required: ['field', 'message'] });
  expect(details('ForbiddenError').required).toEqual(['requiredPermission', 'currentPermissions']);
  expect(details('ForbiddenError').properties.currentPermissions).toEqual({ type: 'array', items: { type: 'string' } });
  expect(details('EventNotFoundError').properties.slug).toEqual({ type: 'string' });
  expect(details('EventAlreadyPublishedError').properties.immutableFields.items.enum).toEqual(['slug', 'startDate']);
  expect(details('EventHasBookingsError').properties.bookingCount.type).toBe('integer');
  expect(details('RateLimitedError').required).toEqual(['retryAfterSeconds']);
  expect(details('InternalError').required).toEqual(['requestId']);
  expect(details('UnauthorizedError')).toBeUndefined();
});

test('every $ref resolves', () => {
  const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [];
  for (const ref of refs) {
    const [, , section, name] = JSON.parse(`{${ref}}`).$ref.split('/');
    expect(doc.components[section]?.[name]).toBeDefined();
  }
});

test('the documented response shapes are what the server sends', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const input = eventInput({ ticketTypes: [{ name: 'General', price: 10, currency: 'EUR', quantity: 100 }] });
  const created = await ctx.app.client.rest('POST', '/v1/events', key, input);
  expect(created.status).toBe(201);
  expect(created.headers.location).toBe(`/v1/events/${input.slug}`);
  const fullEvent = doc.components.schemas.FullEvent;
  expect(Object.keys(created.body).sort()).toEqual([...fullEvent.required].sort());
  expect(Object.keys(created.body.ticketTypes[0]).sort()).toEqual([...fullEvent.properties.ticketTypes.items.required].sort());

  const list = await ctx.app.client.rest('GET', '/v1/events', key);
  const listSchema = operation('GET', '/v1/events').responses['200'].content['application/json'].schema;
  expect(Object.keys(list.body).sort()).toEqual([...listSchema.required].sort());
  expect(Object.keys(list.body.events[0]).sort()).toEqual([...doc.components.schemas.EventListItem.required].sort());

  const missing = await ctx.app.client.rest('GET', '/v1/events/no-such-event', key);
  expect(missing.status).toBe(404);
  expect(Object.keys(missing.body.error.details)).toEqual(Object.keys(doc.components.schemas.EventNotFoundError.properties.error.properties.details.properties));

  const invalid = await ctx.app.client.rest('GET', '/v1/events?limit=1000', key);
  expect(invalid.status).toBe(400);
  expect(Object.keys(invalid.body.error.details.errors[0]).sort()).toEqual(['field', 'message']);
});

test('D23 bookings: statuses, Location, parameters as the service checks them, the body without eventSlug, the booking as its webhook payload', () => {
  const bookingRef = { $ref: '#/components/schemas/Booking' };
  const create = operation('POST', '/v1/events/{slug}/bookings');
  expect(create.responses['201'].headers.Location).toEqual({ $ref: '#/components/headers/Location' });
  expect(create.responses['201'].content['application/json'].schema).toEqual(bookingRef);
  expect(create['x-required-permission']).toBe('bookings:write');
  expect(create.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/CreateBookingBody' });
  const body = doc.components.schemas.CreateBookingBody;
  expect(Object.keys(body.properties)).toEqual(['ticketTypeId', 'quantity', 'attendeeEmail', 'attendeeName', 'hold', 'holdMinutes', 'queueEntryId']);
  expect(body.required).toEqual(['quantity', 'attendeeEmail', 'attendeeName']);
  expect(body.properties.holdMinutes).toMatchObject({ minimum: 1, maximum: 1440 });
  expect(doc.components.schemas.CreateBookingInput).toBeUndefined();
  const slug = { name: 'slug', in: 'path', required: true, schema: expect.objectContaining({ maxLength: 100, allOf: expect.arrayContaining([{ pattern: '^[a-z0-9]+(-[a-z0-9]+)*$' }]) }) };
  expect(create.parameters[0]).toMatchObject(slug);

  const list = operation('GET', '/v1/events/{slug}/bookings');
  expect(list.parameters.map((parameter: { name: string }) => parameter.name)).toEqual(['slug', 'page', 'limit', 'status', 'after']);
  expect(list.parameters[3].schema).toEqual({ $ref: '#/components/schemas/BookingStatus' });
  expect(doc.components.schemas.BookingStatus.enum).toEqual(['HELD', 'CONFIRMED', 'CANCELLED', 'EXPIRED']);
  const page = list.responses['200'].content['application/json'].schema;
  expect(Object.keys(page.properties)).toEqual(['bookings', 'total', 'page', 'limit', 'nextCursor']);
  expect(page.properties.bookings.items).toEqual(bookingRef);
  expect(list['x-required-permission']).toBe('bookings:read');

  // The REST booking: the webhook payload's fields, in its order (booking.presenter.ts).
  expect(doc.components.schemas.Booking.required).toEqual([
    'id', 'eventId', 'eventSlug', 'ticketTypeId', 'quantity', 'attendeeEmail', 'attendeeName', 'status', 'createdAt', 'cancelledAt', 'expiresAt', 'confirmedAt', 'checkedInAt',
  ]);

  const id = { name: 'id', in: 'path', required: true, schema: expect.objectContaining({ allOf: expect.arrayContaining([{ pattern: '^bk_[A-Za-z0-9]{1,36}$' }]) }) };
  const conflicts: Record<string, string[]> = {
    'POST /v1/bookings/{id}/confirm': ['HOLD_EXPIRED', 'BOOKING_NOT_HELD', 'IDEMPOTENCY_KEY_IN_USE'],
    'POST /v1/bookings/{id}/cancel': ['BOOKING_ALREADY_CANCELLED', 'HOLD_EXPIRED', 'IDEMPOTENCY_KEY_IN_USE'],
    'POST /v1/bookings/{id}/check-in': ['ALREADY_CHECKED_IN', 'BOOKING_NOT_CONFIRMED', 'IDEMPOTENCY_KEY_IN_USE'],
    'DELETE /v1/bookings/{id}/check-in': ['NOT_CHECKED_IN', 'BOOKING_NOT_CONFIRMED', 'IDEMPOTENCY_KEY_IN_USE'],
    // D30's gate: an event with its queue enabled.
    'POST /v1/events/{slug}/bookings': [
      'EVENT_NOT_PUBLISHED', 'SOLD_OUT', 'NOT_ON_SALE', 'ADMISSION_MISMATCH', 'NOT_ADMITTED', 'ADMISSION_USED', 'ADMISSION_EXPIRED', 'IDEMPOTENCY_KEY_IN_USE',
    ],
  };
  for (const [route, codes] of Object.entries(conflicts)) {
    const [method, path] = route.split(' ');
    expect([route, codesOf(operation(method, path).responses['409'].content['application/json'].schema)]).toEqual([route, codes]);
  }
  for (const [method, path, permission] of [
    ['GET', '/v1/bookings/{id}', 'bookings:read'],
    ['POST', '/v1/bookings/{id}/confirm', 'bookings:write'],
    ['POST', '/v1/bookings/{id}/cancel', 'bookings:write'],
    ['POST', '/v1/bookings/{id}/check-in', 'checkin:write'],
    ['DELETE', '/v1/bookings/{id}/check-in', 'checkin:write'],
  ]) {
    const documented = operation(method, path);
    expect([path, documented['x-required-permission']]).toEqual([path, permission]);
    expect(documented.parameters[0]).toMatchObject(id);
    expect(documented.responses['200'].content['application/json'].schema).toEqual(bookingRef);
    expect(documented.requestBody).toBeUndefined();
    if (method !== 'GET') expect(documented.parameters[1]).toMatchObject({ name: 'Idempotency-Key', in: 'header' });
  }
  expect(operation('DELETE', '/v1/bookings/{id}/check-in').responses['204']).toBeUndefined();
});

test('attendees.csv: text/csv with Content-Disposition, bookings:read, the refusals it answers before its first byte', () => {
  const csv = operation('GET', '/v1/events/{slug}/attendees.csv');
  expect(csv['x-required-permission']).toBe('bookings:read');
  expect(Object.keys(csv.responses['200'].content)).toEqual(['text/csv']);
  expect(csv.responses['200'].headers['Content-Disposition']).toEqual({ $ref: '#/components/headers/Content-Disposition' });
  expect(csv.parameters).toEqual([expect.objectContaining({ name: 'slug', in: 'path', required: true, schema: expect.objectContaining({ pattern: '^[a-z0-9]+(-[a-z0-9]+)*$' }) })]);
  expect(codesOf(csv.responses['404'].content['application/json'].schema)).toEqual(['EVENT_NOT_FOUND']);
  expect(codesOf(csv.responses['403'].content['application/json'].schema)).toContain('FORBIDDEN');
  expect(codesOf(csv.responses['400'].content['application/json'].schema)).toEqual(['VALIDATION_ERROR']);
  expect(csv.description).toContain('id,attendeeName,attendeeEmail,ticketType,quantity,status,createdAt,checkedInAt');
});
