import 'reflect-metadata';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isObjectType } from 'graphql';
import { permissionOf } from '../src/platform/graphql/requires-permission';
import { sessionRoleOf } from '../src/platform/graphql/requires-session';
import { buildAppSchema } from '../src/schema/graphql-schema';
import { compileRoutes } from '../src/doors/rest/rest-executor';
import { REST_DOWNLOADS } from '../src/doors/rest/routes';

// Who can reach what, as a committed file: any change to a field's permission or to the operation behind
// a REST route shows up as a diff of test/snapshots/access-control.json in review.
// After an intended change: UPDATE_ACCESS_SNAPSHOT=1 npx jest test/group-graphql.test.ts -t schema-access, then review the diff.

const SNAPSHOT = path.join(__dirname, 'snapshots', 'access-control.json');

function currentAccess() {
  const schema = buildAppSchema();
  const graphqlFields: Record<string, string> = {};
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const permission = permissionOf(schema, field);
      const sessionRole = sessionRoleOf(schema, field);
      // Dashboard fields read "session:ADMIN" / "session:MEMBER": no API key can reach them.
      const access = [sessionRole && `session:${sessionRole}`, permission].filter(Boolean).join(' + ');
      if (access) graphqlFields[`${type.name}.${field.name}`] = access;
    }
  }
  const restRoutes: Record<string, { operation: string; permissions: string[] }> = {};
  for (const route of compileRoutes(schema)) {
    restRoutes[`${route.method} ${route.path}`] = { operation: route.operation, permissions: [...route.permissions] };
  }
  // Routes the REST door streams itself (attendees.csv): the permission they declare.
  for (const download of REST_DOWNLOADS) restRoutes[`${download.method} ${download.path}`] = { operation: download.name, permissions: [download.permission] };
  return {
    graphqlFields: Object.fromEntries(Object.entries(graphqlFields).sort(([a], [b]) => a.localeCompare(b))),
    restRoutes,
  };
}

test('field -> permission and REST route -> operation match the reviewed snapshot', () => {
  const current = currentAccess();
  if (process.env.UPDATE_ACCESS_SNAPSHOT === '1') writeFileSync(SNAPSHOT, `${JSON.stringify(current, null, 2)}\n`);
  expect(existsSync(SNAPSHOT)).toBe(true);
  const committed = JSON.parse(readFileSync(SNAPSHOT, 'utf8'));
  try {
    expect(current).toEqual(committed);
  } catch (error) {
    (error as Error).message =
      'Who can reach what has changed. If intended: UPDATE_ACCESS_SNAPSHOT=1 npx jest test/group-graphql.test.ts -t schema-access, ' +
      `then review and commit test/snapshots/access-control.json.\n${(error as Error).message}`;
    throw error;
  }
});

test('the snapshot says what D2 says for events', () => {
  const { graphqlFields, restRoutes } = JSON.parse(readFileSync(SNAPSHOT, 'utf8'));
  expect(graphqlFields).toMatchObject({
    'Query.events': 'events:read',
    'Query.event': 'events:read',
    'Mutation.createEvent': 'events:write',
    'Mutation.updateEvent': 'events:write',
    'Mutation.deleteEvent': 'events:write',
  });
  expect(restRoutes).toMatchObject({
    'GET /v1/events': { operation: 'ListEvents', permissions: ['events:read'] },
    'POST /v1/events': { operation: 'CreateEvent', permissions: ['events:write'] },
    'GET /v1/events/:slug': { operation: 'GetEvent', permissions: ['events:read'] },
    'PUT /v1/events/:slug': { operation: 'UpdateEvent', permissions: ['events:write'] },
    'DELETE /v1/events/:slug': { operation: 'DeleteEvent', permissions: ['events:write'] },
  });
});
