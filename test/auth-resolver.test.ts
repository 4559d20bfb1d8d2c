import 'reflect-metadata';
import { actorOf } from '../src/platform/auth/actor';
import type { MikroORM } from '@mikro-orm/postgresql';
import { graphql, type GraphQLSchema } from 'graphql';
import type { AuthContext } from '../src/platform/auth/auth-context';
import type { Permission } from '../src/platform/auth/permissions';
import { openDatabase } from '../src/schema/database';
import { AppError } from '../src/foundation/errors/app-error';
import { buildAppSchema } from '../src/schema/graphql-schema';
import type { RequestContext } from '../src/platform/graphql/request-context';
import { createLogger } from '../src/foundation/logger';
import { createTestDatabase } from './helpers/database';
import { createOrganization, eventInput } from './helpers/factories';

// The schema itself enforces @requiresPermission: executed directly with a built context (no HTTP, no
// Apollo plugin), a field without its permission throws FORBIDDEN with the details, and nothing runs.

let orm: MikroORM;
let drop: () => Promise<void>;
let schema: GraphQLSchema;
let organizationId: string;

beforeAll(async () => {
  const database = await createTestDatabase();
  drop = database.drop;
  orm = await openDatabase({ clientUrl: database.url });
  schema = buildAppSchema();
  organizationId = (await createOrganization(orm)).id;
});
afterAll(async () => {
  await orm.close(true);
  await drop();
});

function contextWith(permissions: Permission[]): RequestContext {
  const auth: AuthContext = {
    apiKeyId: 'key_resolver_test',
    permissions,
    organization: {
      id: organizationId,
      timezone: 'UTC',
      plan: 'STANDARD',
      allowedIps: [],
      restrictionMode: 'OFF',
      rateLimitPerMinute: null,
      holdMinutes: 15,
      waitlistOfferMinutes: 60,
    },
  };
  const em = orm.em.fork();
  return { requestId: 'resolver-test', auth, actor: actorOf(auth), em, scope: { em, actor: actorOf(auth) }, logger: createLogger('silent') };
}

const CREATE = 'mutation($input: CreateEventInput!) { createEvent(input: $input) { id slug status } }';

async function countEvents(): Promise<number> {
  const [row] = await orm.em.fork().getConnection().execute<Array<{ count: number }>>('select count(*)::int as count from events');
  return row.count;
}

const DENIALS = [
  { field: 'Query.events', source: '{ events { total } }', variables: {}, required: 'events:read', held: ['events:write'] },
  { field: 'Query.event', source: '{ event(slug: "anything") { id } }', variables: {}, required: 'events:read', held: [] },
  { field: 'Mutation.createEvent', source: CREATE, variables: { input: eventInput() }, required: 'events:write', held: ['events:read'] },
  {
    field: 'Mutation.updateEvent',
    source: 'mutation { updateEvent(slug: "anything", input: { title: "x" }) { id } }',
    variables: {},
    required: 'events:write',
    held: ['events:read', 'members:read'],
  },
  {
    field: 'Mutation.deleteEvent',
    source: 'mutation { deleteEvent(slug: "anything") { id } }',
    variables: {},
    required: 'events:write',
    held: ['bookings:read'],
  },
] as const;

test.each(DENIALS)('$field without $required: FORBIDDEN with the details', async ({ source, variables, required, held }) => {
  const result = await graphql({ schema, source, variableValues: variables, contextValue: contextWith([...held]) });
  // A nullable root field (Query.event) is null next to its error; a non-null one nulls the data.
  expect(Object.values(result.data ?? {}).every((value) => value === null)).toBe(true);
  expect(result.errors).toHaveLength(1);
  const original = result.errors?.[0].originalError;
  expect(original).toBeInstanceOf(AppError);
  expect((original as AppError).code).toBe('FORBIDDEN');
  expect((original as AppError).details).toEqual({ requiredPermission: required, currentPermissions: held });
});

test('a denied create stores nothing; the same create with events:write stores the event', async () => {
  const before = await countEvents();
  const input = eventInput();
  const denied = await graphql({ schema, source: CREATE, variableValues: { input }, contextValue: contextWith(['events:read']) });
  expect((denied.errors?.[0].originalError as AppError).code).toBe('FORBIDDEN');
  expect(await countEvents()).toBe(before);

  const allowed = await graphql({ schema, source: CREATE, variableValues: { input }, contextValue: contextWith(['events:write']) });
  expect(allowed.errors).toBeUndefined();
  expect(allowed.data?.createEvent).toMatchObject({ slug: input.slug, status: 'DRAFT' });
  expect(await countEvents()).toBe(before + 1);
});

test('the check runs before the resolver: a key with the permission reaches it (EVENT_NOT_FOUND), one without does not', async () => {
  const allowed = await graphql({ schema, source: '{ event(slug: "missing") { id } }', contextValue: contextWith(['events:read']) });
  expect((allowed.errors?.[0].originalError as AppError).code).toBe('EVENT_NOT_FOUND');
  const denied = await graphql({ schema, source: '{ event(slug: "missing") { id } }', contextValue: contextWith([]) });
  expect((denied.errors?.[0].originalError as AppError).details).toEqual({ requiredPermission: 'events:read', currentPermissions: [] });
});
