import { createApiKey, createOrganization, eventInput } from './helpers/factories';
import { startTestApp, type TestApp } from './helpers/test-app';

// D2: each operation needs exactly one permission; without it, 403 FORBIDDEN with requiredPermission and the
// key's currentPermissions, before anything else about the request is looked at, through both doors.

let app: TestApp;
let organizationId: string;
let existingSlug: string;
const keys: Record<string, string> = {};

const KEY_PERMISSIONS: Record<string, string[]> = {
  readOnly: ['events:read'],
  writeOnly: ['events:write'],
  noEvents: ['members:read', 'bookings:read', 'bookings:write'],
  all: ['events:read', 'events:write'],
};

beforeAll(async () => {
  app = await startTestApp();
  organizationId = (await createOrganization(app.orm)).id;
  for (const [name, permissions] of Object.entries(KEY_PERMISSIONS)) {
    keys[name] = (await createApiKey(app.orm, organizationId, { permissions })).key;
  }
  const input = eventInput();
  existingSlug = input.slug as string;
  expect((await app.client.rest('POST', '/v1/events', keys.all, input)).status).toBe(201);
});
afterAll(() => app.close());

interface Operation {
  name: string;
  permission: string;
  rest: () => [string, string, unknown?];
  graphql: () => [string, Record<string, unknown>?];
}

const OPERATIONS: Operation[] = [
  {
    name: 'list',
    permission: 'events:read',
    rest: () => ['GET', '/v1/events'],
    graphql: () => ['{ events { total } }'],
  },
  {
    name: 'get',
    permission: 'events:read',
    rest: () => ['GET', `/v1/events/${existingSlug}`],
    graphql: () => ['query($slug: String!) { event(slug: $slug) { id } }', { slug: existingSlug }],
  },
  {
    name: 'create',
    permission: 'events:write',
    rest: () => ['POST', '/v1/events', eventInput()],
    graphql: () => ['mutation($input: CreateEventInput!) { createEvent(input: $input) { id } }', { input: eventInput() }],
  },
  {
    name: 'update',
    permission: 'events:write',
    rest: () => ['PUT', `/v1/events/${existingSlug}`, { title: 'Renamed' }],
    graphql: () => [
      'mutation($slug: String!, $input: UpdateEventInput!) { updateEvent(slug: $slug, input: $input) { id } }',
      { slug: existingSlug, input: { title: 'Renamed' } },
    ],
  },
  {
    name: 'delete',
    permission: 'events:write',
    rest: () => ['DELETE', `/v1/events/${existingSlug}`],
    graphql: () => ['mutation($slug: String!) { deleteEvent(slug: $slug) { id } }', { slug: existingSlug }],
  },
];

const DENIALS = OPERATIONS.flatMap((operation) =>
  Object.entries(KEY_PERMISSIONS)
    .filter(([, permissions]) => !permissions.includes(operation.permission))
    .map(([keyName]) => ({ operation, keyName })),
);

async function storedEvent() {
  const rows = await app.orm.em
    .fork()
    .getConnection()
    .execute<Array<{ title: string }>>('select title from events where organization_id = ? and slug = ?', [organizationId, existingSlug]);
  return rows;
}

describe.each(DENIALS)('$operation.name with the $keyName key', ({ operation, keyName }) => {
  const details = () => ({ requiredPermission: operation.permission, currentPermissions: KEY_PERMISSIONS[keyName] });

  test('REST: 403 FORBIDDEN with requiredPermission and currentPermissions', async () => {
    const [method, path, body] = operation.rest();
    const response = await app.client.rest(method, path, keys[keyName], body);
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ error: { code: 'FORBIDDEN', message: expect.any(String), details: details() } });
    expect(response.body.error.message).toContain(operation.permission);
  });

  test('GraphQL: 403 FORBIDDEN with the same details and no data', async () => {
    const [query, variables] = operation.graphql();
    const response = await app.client.graphql(keys[keyName], query, variables);
    expect(response.status).toBe(403);
    expect(response.body.data).toBeUndefined();
    expect(response.body.errors).toHaveLength(1);
    expect(response.body.errors[0].extensions).toEqual({ code: 'FORBIDDEN', details: details() });
  });
});

describe('nothing is changed by a denied write', () => {
  test('the event is still there, unchanged, and no event was created', async () => {
    expect(await storedEvent()).toEqual([{ title: 'Launch party' }]);
    const count = await app.orm.em.fork().getConnection().execute('select count(*)::int as count from events');
    expect(count).toEqual([{ count: 1 }]);
  });
});

describe('the permission check comes before everything else about the request', () => {
  test('an invalid create body from a read-only key is 403, not 400, through both doors', async () => {
    const rest = await app.client.rest('POST', '/v1/events', keys.readOnly, { title: '' });
    expect(rest.status).toBe(403);
    expect(rest.body.error.code).toBe('FORBIDDEN');
    const graphql = await app.client.graphql(keys.readOnly, 'mutation($input: CreateEventInput!) { createEvent(input: $input) { id } }', {
      input: { title: '' },
    });
    expect(graphql.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  test('an unknown slug for a key without events:read is 403, not 404', async () => {
    const rest = await app.client.rest('GET', '/v1/events/no-such-event', keys.writeOnly);
    expect(rest.status).toBe(403);
    const graphql = await app.client.graphql(keys.writeOnly, '{ event(slug: "no-such-event") { id } }');
    expect(graphql.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  test('an invalid list parameter for a key without events:read is 403, not 400', async () => {
    const rest = await app.client.rest('GET', '/v1/events?limit=1000', keys.noEvents);
    expect(rest.status).toBe(403);
  });
});

describe('with the permission', () => {
  test.each(OPERATIONS.map((operation) => [operation.name, operation]))('%s succeeds through both doors', async (_name, operation) => {
    const keyName = operation.permission === 'events:read' ? 'readOnly' : 'writeOnly';
    const [method, path, body] = operation.rest();
    if (operation.name === 'delete') {
      // Delete last, through each door, on events made for it.
      const restSlug = eventInput().slug as string;
      await app.client.rest('POST', '/v1/events', keys.all, eventInput({ slug: restSlug }));
      expect((await app.client.rest('DELETE', `/v1/events/${restSlug}`, keys.writeOnly)).status).toBe(204);
      const graphqlSlug = eventInput().slug as string;
      await app.client.rest('POST', '/v1/events', keys.all, eventInput({ slug: graphqlSlug }));
      const deleted = await app.client.graphql(keys.writeOnly, 'mutation($slug: String!) { deleteEvent(slug: $slug) { slug } }', {
        slug: graphqlSlug,
      });
      expect(deleted.body).toEqual({ data: { deleteEvent: { slug: graphqlSlug } } });
      return;
    }
    const rest = await app.client.rest(method, path, keys[keyName], body);
    expect([200, 201]).toContain(rest.status);
    const [query, variables] = operation.graphql();
    const graphql = await app.client.graphql(keys[keyName], query, variables);
    expect(graphql.body.errors).toBeUndefined();
  });
});
