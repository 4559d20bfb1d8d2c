import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildSchema, Kind, parse, type ObjectTypeDefinitionNode } from 'graphql';
import { PERMISSIONS } from '../src/platform/auth/permissions';
import { buildAppSchema, printAppSchema } from '../src/schema/graphql-schema';
import { enforcePermissions, isOpenToAnyKey, permissionOf } from '../src/platform/graphql/requires-permission';
import { sessionRoleOf } from '../src/platform/graphql/requires-session';

// schema.graphql is generated from the code and committed: a reviewer reads who can reach what there.

const committedPath = path.resolve(__dirname, '../schema.graphql');
const committed = readFileSync(committedPath, 'utf8');
const schema = buildAppSchema();

test('schema.graphql matches the schema the code builds', () => {
  const printed = printAppSchema(schema);
  if (printed !== committed) {
    throw new Error(
      'schema.graphql is out of date with the code: run `npm run --silent schema:print` and commit the result.\n' +
        'First difference at line ' +
        String(printed.split('\n').findIndex((line, index) => line !== committed.split('\n')[index]) + 1),
    );
  }
  expect(printed).toBe(committed);
});

test('every Query and Mutation field declares @requiresPermission with a known permission (or @requiresSession, or @anyKey), in the code', () => {
  for (const rootType of [schema.getQueryType(), schema.getMutationType()]) {
    expect(rootType).toBeDefined();
    for (const field of Object.values(rootType!.getFields())) {
      const sessionRole = sessionRoleOf(schema, field);
      if (sessionRole !== undefined) {
        expect(['ADMIN', 'MEMBER']).toContain(sessionRole);
        continue;
      }
      // The one other declaration a root field may make: any authenticated caller (Query.viewer).
      if (isOpenToAnyKey(schema, field)) continue;
      const permission = permissionOf(schema, field);
      expect({ field: `${rootType!.name}.${field.name}`, permission }).toEqual({
        field: `${rootType!.name}.${field.name}`,
        permission: expect.stringMatching(new RegExp(`^(${PERMISSIONS.join('|')})$`)),
      });
    }
  }
});

test('and it is visible on every Query and Mutation field of the committed schema.graphql', () => {
  const document = parse(committed);
  const roots = document.definitions.filter(
    (definition): definition is ObjectTypeDefinitionNode =>
      definition.kind === Kind.OBJECT_TYPE_DEFINITION && ['Query', 'Mutation'].includes(definition.name.value),
  );
  expect(roots.map((root) => root.name.value).sort()).toEqual(['Mutation', 'Query']);
  for (const root of roots) {
    for (const field of root.fields ?? []) {
      const directive = field.directives?.find((node) => ['requiresPermission', 'requiresSession', 'anyKey'].includes(node.name.value));
      expect({ field: `${root.name.value}.${field.name.value}`, declared: directive !== undefined }).toEqual({
        field: `${root.name.value}.${field.name.value}`,
        declared: true,
      });
    }
  }
  expect(committed).toContain('directive @requiresPermission(permission: String!) on FIELD_DEFINITION');
  expect(committed).toContain('directive @requiresSession(role: String!) on FIELD_DEFINITION');
});

describe('deny by default', () => {
  const DIRECTIVE = 'directive @requiresPermission(permission: String!) on FIELD_DEFINITION';

  test('a schema with a root field that declares no permission refuses to build', () => {
    const unguarded = buildSchema(`${DIRECTIVE}
      type Query { guarded: Int @requiresPermission(permission: "events:read") open: Int }`);
    expect(() => enforcePermissions(unguarded)).toThrow('Query.open declares no @requiresPermission');
    const unguardedMutation = buildSchema(`${DIRECTIVE}
      type Query { guarded: Int @requiresPermission(permission: "events:read") }
      type Mutation { change: Int }`);
    expect(() => enforcePermissions(unguardedMutation)).toThrow('Mutation.change declares no @requiresPermission');
  });

  test('an unknown permission name refuses to build', () => {
    const misspelled = buildSchema(`${DIRECTIVE}
      type Query { guarded: Int @requiresPermission(permission: "event:read") }`);
    expect(() => enforcePermissions(misspelled)).toThrow('Unknown permission "event:read"');
  });

  test('a fully guarded schema builds', () => {
    const guarded = buildSchema(`${DIRECTIVE}
      type Query { guarded: Int @requiresPermission(permission: "events:read") }`);
    expect(() => enforcePermissions(guarded)).not.toThrow();
  });
});
