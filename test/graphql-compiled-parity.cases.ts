import 'reflect-metadata';
import { actorOf } from '../src/platform/auth/actor';
import type { MikroORM } from '@mikro-orm/postgresql';
import { execute, parse, type ExecutionResult, type GraphQLSchema } from 'graphql';
import type { AuthContext } from '../src/platform/auth/auth-context';
import { PERMISSIONS, type Permission } from '../src/platform/auth/permissions';
import { openDatabase } from '../src/schema/database';
import { CompiledOperations } from '../src/platform/graphql/compiled-operations';
import { originalErrorOf } from '../src/platform/graphql/graphql-errors';
import type { RequestContext } from '../src/platform/graphql/request-context';
import { buildAppSchema } from '../src/schema/graphql-schema';
import { createLogger } from '../src/foundation/logger';
import { REST_OPERATIONS } from '../src/doors/rest/operations';
import { createTestDatabase } from './helpers/database';
import { insertEvents } from './helpers/event-rows';
import { createOrganization, eventInput, uniqueSlug } from './helpers/factories';
import { ListCursors } from '../src/platform/crypto/list-cursor';

const CURSORS = new ListCursors(['parity-test-secret']);

// Issue 8: operations compiled with graphql-jit answer exactly as graphql-js does (data, errors with
// message, path, locations and extensions, the original error behind each, null propagation).

let orm: MikroORM;
let drop: () => Promise<void>;
let schema: GraphQLSchema;
let organizationId: string;
let slug: string;

beforeAll(async () => {
  const database = await createTestDatabase();
  drop = database.drop;
  orm = await openDatabase({ clientUrl: database.url });
  schema = buildAppSchema();
  organizationId = (await createOrganization(orm)).id;
  const events = await insertEvents(orm, organizationId, 5, { ticketTypesEach: 2 });
  slug = events[0].slug;
});
afterAll(async () => {
  await orm.close(true);
  await drop();
});

function contextWith(permissions: readonly Permission[], overrides: Partial<RequestContext> = {}): RequestContext {
  const auth: AuthContext = {
    apiKeyId: 'key_parity_test',
    permissions,
    organization: { id: organizationId, timezone: 'UTC', plan: 'STANDARD', allowedIps: [], restrictionMode: 'OFF', rateLimitPerMinute: null, holdMinutes: 15, waitlistOfferMinutes: 60 },
  };
  return { requestId: 'parity-test', auth, actor: actorOf(auth), em: orm.em.fork(), logger: createLogger('silent'), cursors: CURSORS, ...overrides };
}

/** What a client and the error handling see of a result: JSON, plus the original error's code. */
function observable(result: ExecutionResult) {
  return {
    json: JSON.parse(JSON.stringify(result)),
    causes: (result.errors ?? []).map((error) => {
      const original = originalErrorOf(error) as { code?: string; name?: string };
      return original?.code ?? original?.name;
    }),
  };
}

async function both(source: string, operationName: string | null, variables: Record<string, unknown>, context: () => RequestContext) {
  const document = parse(source);
  const reference = await execute({ schema, document, operationName, variableValues: variables, contextValue: context() });
  const compiled = new CompiledOperations(schema, 0);
  const first = await compiled.execute(document, operationName, context(), variables);
  const second = await compiled.execute(document, operationName, context(), variables);
  return { reference: observable(reference), compiled: observable(first), again: observable(second) };
}

const ALL = [...PERMISSIONS];

const REST_CASES: Array<[string, string, Record<string, unknown>, readonly Permission[]]> = [
  ['GetEvent found', 'GetEvent', { slug: () => slug }, ALL],
  ['GetEvent missing (error at the root field)', 'GetEvent', { slug: 'no-such-event' }, ALL],
  ['GetEvent without the permission', 'GetEvent', { slug: () => slug }, ['events:write']],
  ['ListEvents default page', 'ListEvents', {}, ALL],
  ['ListEvents filtered and ordered', 'ListEvents', { limit: 2, page: 2, orderBy: 'START_DATE_ASC', search: 'ROW', status: 'DRAFT' }, ALL],
  ['ListEvents invalid limit', 'ListEvents', { limit: 0 }, ALL],
  ['CreateEvent invalid input', 'CreateEvent', { input: { ...eventInput(), title: '', endDate: '2020-01-01T00:00:00Z' } }, ALL],
  ['UpdateEvent missing', 'UpdateEvent', { slug: 'no-such-event', input: { title: 'x' } }, ALL],
  ['DeleteEvent missing', 'DeleteEvent', { slug: 'no-such-event' }, ALL],
  ['DeleteEvent without the permission', 'DeleteEvent', { slug: 'no-such-event' }, ['events:read']],
];

test.each(REST_CASES)('REST operation: %s', async (_name, operation, rawVariables, permissions) => {
  const variables = Object.fromEntries(Object.entries(rawVariables).map(([key, value]) => [key, typeof value === 'function' ? value() : value]));
  const { reference, compiled, again } = await both(REST_OPERATIONS, operation, variables, () => contextWith(permissions));
  expect(compiled).toEqual(reference);
  expect(again).toEqual(reference);
});

test('REST CreateEvent success: the same shape (ids and times aside)', async () => {
  const normalize = (value: any) => ({ ...value.json, data: { createEvent: { ...value.json.data.createEvent, id: 'ID', slug: 'SLUG', createdAt: 'T', updatedAt: 'T', ticketTypes: value.json.data.createEvent.ticketTypes.map((tt: any) => ({ ...tt, id: 'ID' })) } } });
  const document = parse(REST_OPERATIONS);
  // The same dates for both (eventInput's follow the clock); a slug of its own for each.
  const base = eventInput();
  const input = () => ({ ...base, slug: uniqueSlug('parity'), ticketTypes: [{ name: 'GA', price: 12.5, currency: 'EUR', quantity: 10 }] });
  const reference = await execute({ schema, document, operationName: 'CreateEvent', variableValues: { input: input() }, contextValue: contextWith(ALL) });
  const compiled = await new CompiledOperations(schema, 0).execute(document, 'CreateEvent', contextWith(ALL), { input: input() });
  expect(reference.errors).toBeUndefined();
  expect(normalize(observable(compiled))).toEqual(normalize(observable(reference)));
});

const DOCUMENTS: Array<[string, string, Record<string, unknown>, readonly Permission[]]> = [
  ['two root fields, one failing (nullable event: the rest survives)', '{ events { total } event(slug: "nope") { id } }', {}, ALL],
  ['errors mid-list: a field the key may not read, on every item', '{ events(limit: 3) { events { slug bookings { total } } } }', {}, ['events:read']],
  ['nested lists with batching', '{ events(limit: 5) { total events { slug status organizationId ticketTypes { name price sold } } } }', {}, ALL],
  ['aliases, fragments, typename, skip/include', 'query Q($on: Boolean!) { a: events(limit: 1) { ...P } b: events(limit: 1, page: 2) @include(if: $on) { ...P } } fragment P on EventList { __typename page limit events { __typename id @skip(if: $on) slug } }', { on: true }, ALL],
  ['a variable of the wrong type', 'query Q($limit: Int) { events(limit: $limit) { total } }', { limit: 'many' }, ALL],
  ['a booking that does not exist next to a list', '{ booking(id: "bk_nothing") { id } events(limit: 1) { total } }', {}, ALL],
  ['viewer of a key that is gone (a non-null root field failing)', '{ viewer { keyId permissions rateLimit { limit } } }', {}, ALL],
];

test.each(DOCUMENTS)('GraphQL document: %s', async (_name, source, variables, permissions) => {
  const { reference, compiled, again } = await both(source, null, variables, () => contextWith(permissions));
  expect(compiled).toEqual(reference);
  expect(again).toEqual(reference);
});

test('null propagation from a non-null field failing mid-execution', async () => {
  // A read returning a row without its title: Event.title is non-null, so the event becomes null.
  const reads = { query: async () => [{ id: 'evt_x', slug: 'x', title: null, ticketTypes: [] }] };
  const source = '{ event(slug: "x") { id title } events(limit: 1) { total } }';
  const { reference, compiled, again } = await both(source, null, {}, () => contextWith(ALL, { reads: reads as never }));
  expect(reference.json.errors[0].message).toMatch(/non-nullable field Event.title/);
  expect(compiled).toEqual(reference);
  expect(again).toEqual(reference);
});
