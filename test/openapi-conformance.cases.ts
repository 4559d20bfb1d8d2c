import { randomBytes, randomUUID } from 'node:crypto';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { createApiKey } from './helpers/factories';
import { useTestApp } from './helpers/use-test-app';

/*
 * The contract against the running server: a few hundred requests, valid and
 * invalid, on every route, each judged by the served OpenAPI document with a JSON Schema validator
 * (Ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses it, with ajv-formats). The document's verdict must be
 * the server's: a request it calls valid is accepted (2xx, or a declared answer about stored state such
 * as 404 for a slug no event has), one it calls invalid is refused with a 4xx the route declares; and
 * every answer has a status the route declares and a body that matches that status's schema.
 * The requests are made from the document itself: every property and parameter gets its boundary
 * values, one past them, wrong types, null, a NUL character, values outside its enum or pattern.
 * The booking routes (D23) and attendees.csv are replayed the same way.
 */

type Json = any;
const ABSENT = Symbol('absent');
type Value = unknown;

interface Case {
  readonly label: string;
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly path: string;
  /** The template of the operation in the document (`/v1/events/{slug}`). */
  readonly template: string;
  readonly query?: Array<[string, string]>;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  /** The answer a valid request gets is about stored state, not its shape (a slug no event has). */
  readonly stateful?: boolean;
}

const ctx = useTestApp({}, { tenant: true });
let doc: Json;
let readOnlyKey: string;
let ajv: Ajv2020;
const compiled = new Map<string, ValidateFunction>();

const DAY = 86_400_000;
const HOUR = 3_600_000;
const iso = (date: Date) => date.toISOString();
const unique = (prefix = 'c') => `${prefix}-${randomBytes(5).toString('hex')}`;
const startOf = () => new Date(Math.floor((Date.now() + 30 * DAY) / 1000) * 1000);

beforeAll(async () => {
  doc = (await ctx.app.client.request('GET', '/v1/openapi.json')).body;
  readOnlyKey = (await createApiKey(ctx.app.orm, ctx.organizationId, { permissions: ['events:read'] })).key;
  // The most a hold may last by the document (holdMinutes ≤ 1440) is what this organization allows.
  const settings = await ctx.app.client.graphql(ctx.key, 'mutation { updateOrganization(input: { holdMinutes: 1440 }) { id } }');
  if (settings.body.errors) throw new Error(JSON.stringify(settings.body.errors));
  ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  // The document's own extension: a number with at most this many decimal places (see rule-schemas.ts).
  ajv.addKeyword({
    keyword: 'x-decimal-places',
    type: 'number',
    validate: (places: number, value: number) => Math.abs(Math.round(value * 10 ** places) - value * 10 ** places) < 1e-6,
  });
  ajv.addSchema({ $id: 'openapi', components: doc.components });
});

/** A schema of the document, its local references pointed at the document's components. */
function validator(schema: Json): ValidateFunction {
  const text = JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/');
  let validate = compiled.get(text);
  if (!validate) {
    validate = ajv.compile(JSON.parse(text));
    compiled.set(text, validate);
  }
  return validate;
}

const resolve = (schema: Json): Json => (schema?.$ref ? resolve(doc.components.schemas[schema.$ref.split('/').pop()]) : schema);
const operationOf = (c: Case): Json => doc.paths[c.template][c.method.toLowerCase()];

/** Query and header values are text: a number-shaped value is read as a number where the schema wants one. */
function fromText(value: string, schema: Json): unknown {
  const types = [resolve(schema).type].flat();
  if ((types.includes('integer') || types.includes('number')) && /^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  return value;
}

/** What the document says of a request: the problems it finds (none: valid). */
function documentProblems(c: Case): string[] {
  const operation = operationOf(c);
  const problems: string[] = [];
  const check = (where: string, schema: Json, value: unknown) => {
    const validate = validator(schema);
    if (!validate(value)) problems.push(`${where}: ${ajv.errorsText(validate.errors)}`);
  };
  const pathValues = c.template.match(/\{(\w+)\}/g)?.map((name) => name.slice(1, -1)) ?? [];
  const pattern = new RegExp(`^${c.template.replace(/\{\w+\}/g, '([^/]+)')}$`);
  const match = pattern.exec(c.path.split('?')[0]);
  for (const parameter of operation.parameters ?? []) {
    if (parameter.in === 'path') {
      const raw = match?.[pathValues.indexOf(parameter.name) + 1];
      let value: string | undefined;
      try {
        value = raw === undefined ? undefined : decodeURIComponent(raw);
      } catch {
        problems.push(`path ${parameter.name}: not percent-encoded UTF-8`);
        continue;
      }
      check(`path ${parameter.name}`, parameter.schema, value);
    } else if (parameter.in === 'query') {
      const values = (c.query ?? []).filter(([name]) => name === parameter.name).map(([, value]) => value);
      if (values.length === 0) {
        if (parameter.required) problems.push(`query ${parameter.name}: required`);
      } else if (values.length > 1) {
        problems.push(`query ${parameter.name}: given ${values.length} times`);
      } else {
        check(`query ${parameter.name}`, parameter.schema, fromText(values[0], parameter.schema));
      }
    } else if (parameter.in === 'header') {
      const value = Object.entries(c.headers ?? {}).find(([name]) => name.toLowerCase() === parameter.name.toLowerCase())?.[1];
      if (value !== undefined) check(`header ${parameter.name}`, parameter.schema, value);
    }
  }
  if (operation.requestBody) {
    if (c.body === undefined) problems.push('body: required');
    else check('body', operation.requestBody.content['application/json'].schema, c.body);
  }
  return problems;
}

/** What the document says of an answer: the problems it finds (none: it is a declared answer). */
function responseProblems(c: Case, status: number, body: unknown, headers: Record<string, unknown>): string[] {
  const declared = operationOf(c).responses[String(status)];
  if (!declared) return [`status ${status} is not declared for ${c.method} ${c.template}`];
  const problems: string[] = [];
  const mediaTypes = Object.keys(declared.content ?? {});
  const contentType = typeof headers['content-type'] === 'string' ? headers['content-type'] : '';
  if (mediaTypes.length > 0 && !mediaTypes.some((type) => contentType.startsWith(type))) problems.push(`${status} is ${contentType}, declared ${mediaTypes.join(', ')}`);
  const schema = declared.content?.['application/json']?.schema;
  if (schema) {
    const validate = validator(schema);
    if (!validate(body)) problems.push(`body of ${status}: ${ajv.errorsText(validate.errors)}`);
  } else if (body !== undefined) {
    problems.push(`${status} declares no body, got one`);
  }
  for (const name of Object.keys(declared.headers ?? {})) {
    if (name === 'X-Request-Id' && headers['x-request-id'] === undefined) problems.push('no X-Request-Id');
  }
  return problems;
}

// ---- The requests, made from the document ---------------------------------------------------------

/** Values to try for a property or parameter: boundaries, one past them, wrong types, null, NUL, outside enum and pattern. */
function variantsOf(schemaRef: Json, sample: Sample): Array<{ label: string; value: Value }> {
  const schema = resolve(schemaRef);
  const types: string[] = schema.enum ? ['string'] : [schema.type].flat();
  const out: Array<{ label: string; value: Value }> = sample.valid.map((value, index) => ({ label: `valid sample ${index}`, value }));
  out.push({ label: 'absent', value: ABSENT }, { label: 'null', value: null });
  if (schema.enum) {
    // A few of a long enum (the currencies): the first ones and the last.
    const values: unknown[] = schema.enum.length > 8 ? [...schema.enum.slice(0, 4), schema.enum.at(-1)] : schema.enum;
    for (const value of values) out.push({ label: `enum ${String(value)}`, value });
    out.push({ label: 'not in the enum', value: 'NOT_A_VALUE' }, { label: 'enum in lower case', value: String(schema.enum[0]).toLowerCase() });
  }
  if (types.includes('string')) {
    out.push({ label: 'a number for a string', value: 12345 }, { label: 'an object for a string', value: { text: 'x' } });
    if (sample.fill && schema.maxLength !== undefined) {
      out.push({ label: `maxLength ${schema.maxLength}`, value: sample.fill(schema.maxLength) });
      out.push({ label: `maxLength ${schema.maxLength} in astral characters`, value: sample.fill(schema.maxLength, true) });
      out.push({ label: `maxLength + 1`, value: sample.fill(schema.maxLength + 1) });
    }
    if (typeof sample.valid[0] === 'string') out.push({ label: 'with a NUL character', value: `${sample.valid[0]}\u0000` });
    for (const [index, value] of (sample.invalid ?? []).entries()) out.push({ label: `off pattern ${index}`, value });
  }
  if (types.includes('integer') || types.includes('number')) {
    out.push({ label: 'a string for a number', value: 'ten' }, { label: 'a boolean for a number', value: true });
    if (types.includes('integer')) out.push({ label: 'a fraction for an integer', value: 1.5 });
    if (schema.minimum !== undefined) out.push({ label: 'minimum', value: schema.minimum }, { label: 'minimum - 1', value: schema.minimum - 1 });
    if (schema.maximum !== undefined) out.push({ label: 'maximum', value: schema.maximum }, { label: 'maximum + 1', value: schema.maximum + 1 });
    if (schema['x-decimal-places'] !== undefined) out.push({ label: 'one decimal place too many', value: 1.234 }, { label: 'two places', value: 19.99 });
  }
  if (types.includes('array')) {
    out.push({ label: 'an object for an array', value: {} }, { label: 'empty array', value: [] });
    if (schema.maxItems !== undefined && sample.item) {
      out.push({ label: `maxItems ${schema.maxItems}`, value: Array.from({ length: schema.maxItems }, sample.item) });
      out.push({ label: 'maxItems + 1', value: Array.from({ length: schema.maxItems + 1 }, sample.item) });
    }
  }
  return out;
}

interface Sample {
  /** Values the server should take (in the request they are sent in). */
  readonly valid: Value[];
  /** Values off the field's pattern or format. */
  readonly invalid?: Value[];
  /** A valid value of `length` characters (code points; astral ones when asked). */
  readonly fill?: (length: number, astral?: boolean) => string;
  readonly item?: () => Value;
}

const text = (length: number, astral = false) => (astral ? '😀' : 'a').repeat(length);
const ticketType = () => ({ name: 'General', price: 25.5, currency: 'EUR', quantity: 100 });

/** Samples per field of the event's inputs and the list's parameters (the names the document uses). */
function samples(start: Date): Record<string, Sample> {
  const later = new Date(start.getTime() + HOUR);
  return {
    title: { valid: ['Launch party', ' x '], invalid: ['   ', ''], fill: text },
    slug: {
      valid: [unique('s')],
      invalid: ['Has Caps', 'double--hyphen', '-leading', 'trailing-', 'spa ce', ''],
      fill: (length) => `${unique('s')}-${'a'.repeat(length)}`.slice(0, length).replace(/-$/, 'a'),
    },
    description: { valid: ['# Markdown\n\n*kept* verbatim', ''], fill: text },
    startDate: {
      valid: [iso(later), iso(later).replace('T', 't').replace('Z', 'z'), offsetForm(later)],
      invalid: ['tomorrow', iso(later).replace('T', ' '), iso(later).slice(0, 10), iso(later).replace('Z', ''), iso(later).replace('Z', '+0100'), '2027-02-30T09:00:00Z'],
    },
    endDate: {
      valid: [iso(new Date(start.getTime() + 9 * HOUR)), offsetForm(new Date(start.getTime() + 9 * HOUR))],
      invalid: ['next week', iso(start).replace(/:\d\d\.\d+Z$/, 'Z')],
    },
    timezone: { valid: ['Europe/Paris', 'UTC', 'America/Argentina/Buenos_Aires'], invalid: ['Europe Paris', '../etc', '+01:00'] },
    venue: { valid: ['Main hall'], fill: text },
    venueAddress: { valid: ['1 Main Street, Springfield'], fill: text },
    coverImage: {
      valid: ['https://example.com/cover.jpg', 'https://cdn.example.org/a/b.png?w=800#top'],
      invalid: ['http://example.com/cover.jpg', 'ftp://example.com/x', 'example.com/cover.jpg', 'https://exa mple.com/x', 'https://'],
      fill: (length) => `https://example.com/${'a'.repeat(Math.max(0, length - 20))}`,
    },
    capacity: { valid: [50] },
    status: { valid: ['PUBLISHED'], invalid: ['COMPLETED'] },
    ticketTypes: { valid: [[ticketType()]], item: ticketType },
    name: { valid: ['VIP'], invalid: ['  '], fill: text },
    price: { valid: [0, 10] },
    currency: { valid: ['EUR', 'USD', 'JPY'], invalid: ['eur', 'EURO', 'ZZZ'] },
    quantity: { valid: [0, 10] },
    page: { valid: [1, 2] },
    limit: { valid: [1, 50] },
    search: { valid: ['party', 'ÉTÉ'], fill: text },
    // D28: a series slug (one no series has lists nothing).
    series: {
      valid: [unique('series')],
      invalid: ['Has Caps', 'double--hyphen', 'spa ce'],
      fill: (length) => `${unique('s')}-${'a'.repeat(length)}`.slice(0, length).replace(/-$/, 'a'),
    },
    startsAfter: { valid: [iso(later)], invalid: ['yesterday', '2027-03-01'] },
    startsBefore: { valid: [iso(new Date(start.getTime() + 365 * DAY))], invalid: ['2027-13-01T00:00:00Z'] },
    orderBy: { valid: [] },
    // Only a cursor the service made opens (D25): one of this organization's list, and strings off the pattern.
    after: { valid: [listCursor], invalid: ['not a cursor', 'c'.repeat(10)] },
    // Bookings (D23): the event's own ticket type, filled in by cases().
    ticketTypeId: { valid: [] },
    attendeeEmail: { valid: ['ada@example.com', 'grace.hopper+tickets@example.org'], invalid: ['not-an-email', 'ada@', '@example.com'] },
    attendeeName: { valid: ['Ada Lovelace', ' Grace '], invalid: ['   ', ''], fill: text },
    hold: { valid: [true, false] },
    holdMinutes: { valid: [5] },
    // D30: a queue set up on create or update; an admission's id (ignored by an event without a queue).
    queue: { valid: [{ admitPerMinute: 60, onSaleAt: iso(later) }] },
    queueEntryId: { valid: ['qe_abcdefghij0123456789'], invalid: ['bk_abcdefghij', 'qe_', 'qe_a-b'] },
  };
}

/** A nextCursor of the key's organization's list (no filters), for the `after` samples. */
let listCursor = '';

function offsetForm(date: Date): string {
  const shifted = new Date(date.getTime() + HOUR);
  return `${iso(shifted).slice(0, 19)}+01:00`;
}

function createBody(start: Date): Record<string, unknown> {
  return { title: 'Conformance', slug: unique('ev'), startDate: iso(start), endDate: iso(new Date(start.getTime() + 8 * HOUR)) };
}

async function freshEvent(): Promise<string> {
  const created = await ctx.app.client.rest('POST', '/v1/events', ctx.key, createBody(startOf()));
  if (created.status !== 201) throw new Error(`could not create an event: ${created.text}`);
  return created.body.slug;
}

async function publishedEvent(): Promise<{ slug: string; ticketTypeId: string }> {
  const body = { ...createBody(startOf()), ticketTypes: [{ ...ticketType(), quantity: 1_000_000 }] };
  const created = await ctx.app.client.rest('POST', '/v1/events', ctx.key, body);
  if (created.status !== 201) throw new Error(`could not create an event: ${created.text}`);
  const published = await ctx.app.client.rest('PUT', `/v1/events/${created.body.slug}`, ctx.key, { status: 'PUBLISHED' });
  if (published.status !== 200) throw new Error(`could not publish an event: ${published.text}`);
  return { slug: created.body.slug, ticketTypeId: created.body.ticketTypes[0].id };
}

const attendeeBody = (): Record<string, unknown> => ({ quantity: 1, attendeeEmail: 'ada@example.com', attendeeName: 'Ada Lovelace' });

/** A booking of `slug` in the state a route acts on: CONFIRMED, HELD, or CONFIRMED and checked in. */
async function bookingOf(slug: string, state: 'confirmed' | 'held' | 'checked-in'): Promise<string> {
  const made = await ctx.app.client.rest('POST', `/v1/events/${slug}/bookings`, ctx.key, { ...attendeeBody(), hold: state === 'held' });
  if (made.status !== 201) throw new Error(`could not book: ${made.text}`);
  if (state === 'checked-in' && (await ctx.app.client.rest('POST', `/v1/bookings/${made.body.id}/check-in`, ctx.key)).status !== 200) throw new Error('could not check in');
  return made.body.id;
}

function withValue(body: Record<string, unknown>, field: string, value: Value): Record<string, unknown> {
  const copy = { ...body };
  if (value === ABSENT) delete copy[field];
  else copy[field] = value;
  return copy;
}

async function cases(): Promise<Case[]> {
  const start = startOf();
  await freshEvent();
  await freshEvent();
  listCursor = (await ctx.app.client.rest('GET', '/v1/events?limit=1', ctx.key)).body.nextCursor;
  let table = samples(start);
  const list: Case[] = [];
  const createSchema = resolve(doc.paths['/v1/events'].post.requestBody.content['application/json'].schema);
  const updateSchema = resolve(doc.paths['/v1/events/{slug}'].put.requestBody.content['application/json'].schema);
  const ticketTypeSchema = resolve(resolve(createSchema.properties.ticketTypes).items ?? { $ref: '#/components/schemas/TicketTypeInput' });

  // POST /v1/events: every property of the body, then every property of a ticket type.
  for (const [field, schema] of Object.entries<Json>(createSchema.properties)) {
    for (const variant of variantsOf(schema, table[field])) {
      list.push({ label: `create ${field}: ${variant.label}`, method: 'POST', path: '/v1/events', template: '/v1/events', body: withValue(createBody(start), field, variant.value) });
    }
  }
  for (const [field, schema] of Object.entries<Json>(ticketTypeSchema.properties)) {
    for (const variant of variantsOf(schema, table[field])) {
      const body = { ...createBody(start), ticketTypes: [withValue(ticketType(), field, variant.value)] };
      list.push({ label: `create ticketTypes[0].${field}: ${variant.label}`, method: 'POST', path: '/v1/events', template: '/v1/events', body });
    }
  }
  list.push(
    { label: 'create: an unknown field is ignored', method: 'POST', path: '/v1/events', template: '/v1/events', body: { ...createBody(start), colour: 'red', status: 'PUBLISHED' } },
    { label: 'create: an array body', method: 'POST', path: '/v1/events', template: '/v1/events', body: [createBody(start)] },
    { label: 'create: a string body', method: 'POST', path: '/v1/events', template: '/v1/events', body: 'event' },
    { label: 'create: an empty object', method: 'POST', path: '/v1/events', template: '/v1/events', body: {} },
  );

  // PUT /v1/events/{slug}: each on a DRAFT event of its own (new samples: new slugs).
  table = samples(start);
  for (const [field, schema] of Object.entries<Json>(updateSchema.properties)) {
    for (const variant of variantsOf(schema, table[field])) {
      const slug = await freshEvent();
      list.push({
        label: `update ${field}: ${variant.label}`,
        method: 'PUT',
        path: `/v1/events/${slug}`,
        template: '/v1/events/{slug}',
        body: withValue({}, field, variant.value),
      });
    }
  }
  const updated = await freshEvent();
  list.push(
    { label: 'update: an unknown field is ignored', method: 'PUT', path: `/v1/events/${updated}`, template: '/v1/events/{slug}', body: { nickname: 'x' } },
    { label: 'update: unknown slug', method: 'PUT', path: `/v1/events/${unique('none')}`, template: '/v1/events/{slug}', body: { title: 'x' }, stateful: true },
  );

  // GET /v1/events: every query parameter.
  for (const parameter of doc.paths['/v1/events'].get.parameters) {
    for (const variant of variantsOf(parameter.schema, table[parameter.name])) {
      const { value } = variant;
      // Only text, numbers and booleans can be written in a query string.
      if (value !== ABSENT && typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') continue;
      const query: Array<[string, string]> = value === ABSENT ? [] : [[parameter.name, String(value)]];
      list.push({ label: `list ${parameter.name}: ${variant.label}`, method: 'GET', path: '/v1/events', template: '/v1/events', query });
    }
    list.push({ label: `list ${parameter.name}: given twice`, method: 'GET', path: '/v1/events', template: '/v1/events', query: [[parameter.name, '1'], [parameter.name, '2']] });
  }
  list.push({ label: 'list: an unknown parameter is ignored', method: 'GET', path: '/v1/events', template: '/v1/events', query: [['colour', 'red']] });

  // GET and DELETE /v1/events/{slug}.
  const existing = await freshEvent();
  const slugs: Array<[string, string, boolean]> = [
    ['an existing event', existing, false],
    ['a slug no event has', unique('none'), true],
    ['upper case (no event can have it)', 'ABC', true],
    ['101 characters', 'a'.repeat(101), true],
    ['non-ASCII', encodeURIComponent('été'), true],
    ['a NUL character', 'abc%00def', false],
    ['invalid percent-encoded UTF-8', '%ff%fe', false],
  ];
  for (const [label, slug, stateful] of slugs) list.push({ label: `get: ${label}`, method: 'GET', path: `/v1/events/${slug}`, template: '/v1/events/{slug}', stateful });
  list.push({ label: 'delete: an existing event', method: 'DELETE', path: `/v1/events/${await freshEvent()}`, template: '/v1/events/{slug}' });
  for (const [label, slug, stateful] of slugs.slice(1)) {
    list.push({ label: `delete: ${label}`, method: 'DELETE', path: `/v1/events/${slug}`, template: '/v1/events/{slug}', stateful });
  }

  // D23 bookings. POST /v1/events/{slug}/bookings: every property of the body (holdMinutes with a
  // hold, which it needs), on a published event without a capacity (the organization's holdMinutes is
  // 1440, the most the document allows).
  const booked = await publishedEvent();
  table = samples(start);
  table.ticketTypeId = { valid: [booked.ticketTypeId] };
  const bookingPath = `/v1/events/${booked.slug}/bookings`;
  const bookingTemplate = '/v1/events/{slug}/bookings';
  // The list's after: a cursor of this event's bookings (D25).
  for (let made = 0; made < 2; made += 1) await bookingOf(booked.slug, 'confirmed');
  table.after = { ...table.after, valid: [(await ctx.app.client.rest('GET', `${bookingPath}?limit=1`, ctx.key)).body.nextCursor] };
  const bookingSchema = resolve(doc.paths[bookingTemplate].post.requestBody.content['application/json'].schema);
  for (const [field, schema] of Object.entries<Json>(bookingSchema.properties)) {
    const base = field === 'holdMinutes' ? { ...attendeeBody(), hold: true } : attendeeBody();
    for (const variant of variantsOf(schema, table[field])) {
      list.push({ label: `book ${field}: ${variant.label}`, method: 'POST', path: bookingPath, template: bookingTemplate, body: withValue(base, field, variant.value) });
    }
  }
  list.push(
    { label: 'book: an unknown field is ignored', method: 'POST', path: bookingPath, template: bookingTemplate, body: { ...attendeeBody(), colour: 'red' } },
    { label: 'book: eventSlug in the body is ignored', method: 'POST', path: bookingPath, template: bookingTemplate, body: { ...attendeeBody(), eventSlug: 'Not A Slug' } },
    { label: 'book: an array body', method: 'POST', path: bookingPath, template: bookingTemplate, body: [attendeeBody()] },
    { label: 'book: an empty object', method: 'POST', path: bookingPath, template: bookingTemplate, body: {} },
    { label: 'book: a ticket type no event has', method: 'POST', path: bookingPath, template: bookingTemplate, body: { ...attendeeBody(), ticketTypeId: 'tt_none' }, stateful: true },
  );

  // GET /v1/events/{slug}/bookings: every query parameter.
  for (const parameter of doc.paths[bookingTemplate].get.parameters.filter((candidate: Json) => candidate.in === 'query')) {
    for (const variant of variantsOf(parameter.schema, table[parameter.name])) {
      const { value } = variant;
      if (value !== ABSENT && typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') continue;
      const query: Array<[string, string]> = value === ABSENT ? [] : [[parameter.name, String(value)]];
      list.push({ label: `bookings ${parameter.name}: ${variant.label}`, method: 'GET', path: bookingPath, template: bookingTemplate, query });
    }
  }

  // The event's slug in every route that takes it: the bookings list and create, attendees.csv.
  for (const [label, slug, stateful] of slugs) {
    list.push({ label: `bookings of ${label}`, method: 'GET', path: `/v1/events/${slug === existing ? booked.slug : slug}/bookings`, template: bookingTemplate, stateful });
    list.push({ label: `book ${label}`, method: 'POST', path: `/v1/events/${slug === existing ? booked.slug : slug}/bookings`, template: bookingTemplate, body: attendeeBody(), stateful });
    list.push({
      label: `attendees.csv of ${label}`,
      method: 'GET',
      path: `/v1/events/${slug === existing ? booked.slug : slug}/attendees.csv`,
      template: '/v1/events/{slug}/attendees.csv',
      stateful,
    });
  }

  // The booking routes, each on a booking in the state it acts on, and on ids no booking has or can have.
  const byId: Array<['GET' | 'POST' | 'DELETE', string, 'confirmed' | 'held' | 'checked-in']> = [
    ['GET', '', 'confirmed'],
    ['POST', '/confirm', 'held'],
    ['POST', '/cancel', 'confirmed'],
    ['POST', '/check-in', 'confirmed'],
    ['DELETE', '/check-in', 'checked-in'],
  ];
  const ids: Array<[string, string, boolean]> = [
    ['an id no booking has', 'bk_none', true],
    ['a malformed id', 'nope', false],
    ['an id of another kind', 'evt_abc', false],
    ['an id 40 characters long', `bk_${'a'.repeat(37)}`, false],
    ['a NUL character', 'bk_a%00b', false],
    ['invalid percent-encoded UTF-8', '%ff%fe', false],
  ];
  for (const [method, action, state] of byId) {
    const template = `/v1/bookings/{id}${action}`;
    list.push({ label: `${method} ${template}: a booking ${state}`, method, path: `/v1/bookings/${await bookingOf(booked.slug, state)}${action}`, template });
    for (const [label, id, stateful] of ids) list.push({ label: `${method} ${template}: ${label}`, method, path: `/v1/bookings/${id}${action}`, template, stateful });
  }

  // Idempotency-Key on a write.
  for (const [label, value] of [
    ['a UUID', randomUUID()],
    ['255 characters', 'k'.repeat(255)],
    ['256 characters', 'k'.repeat(256)],
    ['a tab', 'a\tb'],
  ] as const) {
    list.push({ label: `create with Idempotency-Key ${label}`, method: 'POST', path: '/v1/events', template: '/v1/events', body: createBody(start), headers: { 'idempotency-key': value } });
  }
  return list;
}

// ---- The replay -------------------------------------------------------------------------------------

test('every request the document calls valid is accepted, every one it calls invalid is refused with a declared 4xx, every answer matches its declaration', async () => {
  const all = await cases();
  const disagreements: string[] = [];
  let valid = 0;
  let invalid = 0;
  for (const c of all) {
    const problems = documentProblems(c);
    const query = c.query && c.query.length > 0 ? `?${new URLSearchParams(c.query).toString()}` : '';
    const response = await ctx.app.client.request(c.method, `${c.path}${query}`, {
      headers: { authorization: `Bearer ${ctx.key}`, ...c.headers },
      ...(c.body === undefined ? {} : { json: c.body }),
    });
    const where = `${c.label} (${c.method} ${c.path.slice(0, 60)}${query.slice(0, 60)}) answered ${response.status} ${response.text.slice(0, 200)}`;
    if (problems.length === 0) {
      valid += 1;
      const accepted = response.status >= 200 && response.status < 300;
      if (!accepted && !c.stateful) disagreements.push(`valid by the document, refused: ${where}`);
    } else {
      invalid += 1;
      if (response.status < 400 || response.status >= 500) disagreements.push(`invalid by the document (${problems.join('; ')}), not refused: ${where}`);
    }
    for (const problem of responseProblems(c, response.status, response.body, response.headers)) disagreements.push(`${problem}: ${where}`);
  }
  expect(disagreements).toEqual([]);
  // Not vacuous: both kinds in numbers, a few hundred requests in all.
  expect(all.length).toBeGreaterThan(400);
  expect(all.filter((c) => c.template.includes('booking') || c.template.endsWith('.csv')).length).toBeGreaterThan(120);
  expect(valid).toBeGreaterThan(80);
  expect(invalid).toBeGreaterThan(100);
});

test('answers decided before the operation runs, or by stored state, are declared too: 401, 403, 404, 413, 422, 409', async () => {
  const start = startOf();
  const body = createBody(start);
  const slug = await freshEvent();
  const idempotencyKey = randomUUID();
  const huge = JSON.stringify({ ...body, description: 'x'.repeat(1024 * 1024) });
  const answers: Array<[Case, Record<string, string>, string | undefined]> = [
    [{ label: 'no key', method: 'GET', path: '/v1/events', template: '/v1/events' }, {}, undefined],
    [{ label: 'unknown key', method: 'GET', path: `/v1/events/${slug}`, template: '/v1/events/{slug}' }, { authorization: 'Bearer nk_test_0000000000000000000000000000000' }, undefined],
    [{ label: 'read-only key writes', method: 'DELETE', path: `/v1/events/${slug}`, template: '/v1/events/{slug}' }, { authorization: `Bearer ${readOnlyKey}` }, undefined],
    [{ label: 'body over 1 MiB', method: 'POST', path: '/v1/events', template: '/v1/events' }, { authorization: `Bearer ${ctx.key}`, 'content-type': 'application/json' }, huge],
    [{ label: 'not JSON', method: 'PUT', path: `/v1/events/${slug}`, template: '/v1/events/{slug}' }, { authorization: `Bearer ${ctx.key}`, 'content-type': 'text/plain' }, 'title=x'],
  ];
  for (const [c, headers, raw] of answers) {
    const response = await ctx.app.client.request(c.method, c.path, { headers, ...(raw === undefined ? {} : { raw }) });
    expect({ label: c.label, status: response.status, problems: responseProblems(c, response.status, response.body, response.headers) }).toEqual({
      label: c.label,
      status: expect.any(Number),
      problems: [],
    });
    expect(response.status).toBeGreaterThanOrEqual(400);
  }
  // The same Idempotency-Key with another body: 422; a published event's slug changed: 409.
  const create: Case = { label: 'keyed', method: 'POST', path: '/v1/events', template: '/v1/events' };
  await ctx.app.client.request('POST', '/v1/events', { headers: { authorization: `Bearer ${ctx.key}`, 'idempotency-key': idempotencyKey }, json: body });
  const reused = await ctx.app.client.request('POST', '/v1/events', { headers: { authorization: `Bearer ${ctx.key}`, 'idempotency-key': idempotencyKey }, json: createBody(start) });
  expect(reused.status).toBe(422);
  expect(responseProblems(create, reused.status, reused.body, reused.headers)).toEqual([]);
  expect((await ctx.app.client.rest('PUT', `/v1/events/${slug}`, ctx.key, { status: 'PUBLISHED' })).status).toBe(200);
  const update: Case = { label: 'published', method: 'PUT', path: `/v1/events/${slug}`, template: '/v1/events/{slug}' };
  const refused = await ctx.app.client.rest('PUT', `/v1/events/${slug}`, ctx.key, { slug: unique('moved') });
  expect(refused.status).toBe(409);
  expect(responseProblems(update, refused.status, refused.body, refused.headers)).toEqual([]);

  // D23: a key without bookings:* (403), a booking's state rules (409), a sold-out event (409).
  const booked = await publishedEvent();
  const forbidden: Array<[Case, unknown]> = [
    [{ label: 'read-only key books', method: 'POST', path: `/v1/events/${booked.slug}/bookings`, template: '/v1/events/{slug}/bookings' }, attendeeBody()],
    [{ label: 'read-only key lists', method: 'GET', path: `/v1/events/${booked.slug}/bookings`, template: '/v1/events/{slug}/bookings' }, undefined],
    [{ label: 'read-only key exports', method: 'GET', path: `/v1/events/${booked.slug}/attendees.csv`, template: '/v1/events/{slug}/attendees.csv' }, undefined],
  ];
  for (const [c, json] of forbidden) {
    const response = await ctx.app.client.request(c.method, c.path, { headers: { authorization: `Bearer ${readOnlyKey}` }, ...(json === undefined ? {} : { json }) });
    expect([c.label, response.status, responseProblems(c, response.status, response.body, response.headers)]).toEqual([c.label, 403, []]);
  }
  const id = await bookingOf(booked.slug, 'confirmed');
  const states: Array<[Case, number]> = [
    [{ label: 'cancel', method: 'POST', path: `/v1/bookings/${id}/cancel`, template: '/v1/bookings/{id}/cancel' }, 200],
    [{ label: 'cancel twice', method: 'POST', path: `/v1/bookings/${id}/cancel`, template: '/v1/bookings/{id}/cancel' }, 409],
    [{ label: 'confirm a cancelled booking', method: 'POST', path: `/v1/bookings/${id}/confirm`, template: '/v1/bookings/{id}/confirm' }, 409],
    [{ label: 'check in a cancelled booking', method: 'POST', path: `/v1/bookings/${id}/check-in`, template: '/v1/bookings/{id}/check-in' }, 409],
    [{ label: 'undo no check-in', method: 'DELETE', path: `/v1/bookings/${id}/check-in`, template: '/v1/bookings/{id}/check-in' }, 409],
  ];
  for (const [c, status] of states) {
    const response = await ctx.app.client.request(c.method, c.path, { headers: { authorization: `Bearer ${ctx.key}` } });
    expect([c.label, response.status, responseProblems(c, response.status, response.body, response.headers)]).toEqual([c.label, status, []]);
  }
  const small = await ctx.app.client.rest('POST', '/v1/events', ctx.key, { ...createBody(start), capacity: 1 });
  await ctx.app.client.rest('PUT', `/v1/events/${small.body.slug}`, ctx.key, { status: 'PUBLISHED' });
  const soldOut: Case = { label: 'sold out', method: 'POST', path: `/v1/events/${small.body.slug}/bookings`, template: '/v1/events/{slug}/bookings' };
  const answer = await ctx.app.client.rest('POST', soldOut.path, ctx.key, { ...attendeeBody(), quantity: 2 });
  expect([answer.status, answer.body.error.code, responseProblems(soldOut, answer.status, answer.body, answer.headers)]).toEqual([409, 'SOLD_OUT', []]);
  const draft = await freshEvent();
  const notPublished: Case = { label: 'draft', method: 'POST', path: `/v1/events/${draft}/bookings`, template: '/v1/events/{slug}/bookings' };
  const unpublished = await ctx.app.client.rest('POST', notPublished.path, ctx.key, attendeeBody());
  expect([unpublished.status, unpublished.body.error.code, responseProblems(notPublished, unpublished.status, unpublished.body, unpublished.headers)]).toEqual([
    409,
    'EVENT_NOT_PUBLISHED',
    [],
  ]);
});

test('D20: the counts of every event answer (heldCount, checkedInCount, ticketTypes[].held) are required integers, and the answers after a hold and a check-in match', async () => {
  const { FullEvent: full, EventListItem: item } = doc.components.schemas;
  const counted = (schema: Json) => [schema.properties.heldCount?.type, schema.properties.checkedInCount?.type];
  expect([counted(full), counted(item)]).toEqual([
    ['integer', 'integer'],
    ['integer', 'integer'],
  ]);
  expect(full.required).toEqual(expect.arrayContaining(['heldCount', 'checkedInCount']));
  expect(item.required).toEqual(expect.arrayContaining(['heldCount', 'checkedInCount']));
  expect(full.properties.ticketTypes.items.properties.held.type).toBe('integer');
  expect(full.properties.ticketTypes.items.required).toContain('held');

  const booked = await publishedEvent();
  const book = (hold: boolean) => ctx.app.client.rest('POST', `/v1/events/${booked.slug}/bookings`, ctx.key, { ...attendeeBody(), ticketTypeId: booked.ticketTypeId, hold });
  expect((await book(true)).status).toBe(201);
  const arrived = await book(false);
  expect((await ctx.app.client.rest('POST', `/v1/bookings/${arrived.body.id}/check-in`, ctx.key)).status).toBe(200);
  const get: Case = { label: 'get', method: 'GET', path: `/v1/events/${booked.slug}`, template: '/v1/events/{slug}' };
  const update: Case = { label: 'update', method: 'PUT', path: `/v1/events/${booked.slug}`, template: '/v1/events/{slug}' };
  const list: Case = { label: 'list', method: 'GET', path: '/v1/events', template: '/v1/events' };
  const read = await ctx.app.client.rest('GET', get.path, ctx.key);
  const updated = await ctx.app.client.rest('PUT', update.path, ctx.key, { title: 'Counted' });
  const listed = await ctx.app.client.rest('GET', '/v1/events?limit=100', ctx.key);
  for (const [c, response] of [[get, read], [update, updated], [list, listed]] as const) {
    expect([c.label, response.status, responseProblems(c, response.status, response.body, response.headers)]).toEqual([c.label, 200, []]);
  }
  const counts = { heldCount: 1, checkedInCount: 1 };
  expect(read.body).toMatchObject({ ...counts, ticketTypes: [expect.objectContaining({ sold: 1, held: 1 })] });
  expect(updated.body).toMatchObject({ ...counts, ticketTypes: [expect.objectContaining({ sold: 1, held: 1 })] });
  expect(listed.body.events.find((event: { slug: string }) => event.slug === booked.slug)).toMatchObject(counts);

  // The document judges these fields: an answer without them, or with another type, is not the declared one.
  const { heldCount, ...withoutHeldCount } = read.body;
  expect(heldCount).toBe(1);
  const altered = [
    withoutHeldCount,
    { ...read.body, checkedInCount: '1' },
    { ...read.body, ticketTypes: read.body.ticketTypes.map(({ held, ...type }: { held: number }) => ({ ...type, heldSeats: held })) },
  ];
  for (const body of altered) expect(responseProblems(get, 200, body, read.headers)).not.toEqual([]);
  const listItem = { ...listed.body, events: [{ ...listed.body.events[0], heldCount: null }] };
  expect(responseProblems(list, 200, listItem, listed.headers)).not.toEqual([]);
});
