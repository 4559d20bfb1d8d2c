import { getDirective, MapperKind, mapSchema } from '@graphql-tools/utils';
import {
  defaultFieldResolver,
  DirectiveLocation,
  GraphQLDirective,
  GraphQLNonNull,
  GraphQLString,
  Kind,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { Directive } from 'type-graphql';
import { requirePermission } from '../auth/auth-context';
import { isPermission, type Permission } from '../auth/permissions';
import type { RequestContext } from './request-context';
import { requireSession, sessionRoleOf } from './requires-session';

const DIRECTIVE_NAME = 'requiresPermission';

export const requiresPermissionDirective = new GraphQLDirective({
  name: DIRECTIVE_NAME,
  description: 'The API-key permission needed to resolve this field (403 FORBIDDEN without it).',
  locations: [DirectiveLocation.FIELD_DEFINITION],
  args: { permission: { type: new GraphQLNonNull(GraphQLString) } },
});

/** Declares, once, the permission a field needs. It shows in schema.graphql and is enforced there. */
export function RequiresPermission(permission: Permission): MethodDecorator & PropertyDecorator {
  return Directive(`@${DIRECTIVE_NAME}(permission: "${permission}")`);
}

const ANY_KEY = 'anyKey';

export const anyKeyDirective = new GraphQLDirective({
  name: ANY_KEY,
  description:
    'Any authenticated caller may resolve this field, a valid API key or a signed-in dashboard member: it needs no permission (who-am-I fields such as viewer).',
  locations: [DirectiveLocation.FIELD_DEFINITION],
});

/**
 * Declares a root field every authenticated caller may call (any key, or a dashboard session standing
 * in for one), such as `viewer`: root fields declare a permission, a session role or this, visibly in
 * schema.graphql.
 */
export function AnyKey(): MethodDecorator {
  return Directive(`@${ANY_KEY}`);
}

/** Whether a field declares @anyKey. */
export function isOpenToAnyKey(schema: GraphQLSchema, field: Parameters<typeof getDirective>[1]): boolean {
  return getDirective(schema, field, ANY_KEY) !== undefined;
}

export function permissionOf(schema: GraphQLSchema, field: Parameters<typeof getDirective>[1]): Permission | undefined {
  const permission = getDirective(schema, field, DIRECTIVE_NAME)?.[0]?.permission as string | undefined;
  if (permission === undefined) return undefined;
  if (!isPermission(permission)) throw new Error(`Unknown permission "${permission}" on a schema field`);
  return permission;
}

/**
 * Wraps every nested field that declares @requiresPermission, and every field that declares
 * @requiresSession, with the check, and refuses to build a schema in which a Query or Mutation field
 * declares none: access is denied by default.
 */
export function enforcePermissions(schema: GraphQLSchema): GraphQLSchema {
  const rootTypes = new Set([schema.getQueryType()?.name, schema.getMutationType()?.name]);
  return mapSchema(schema, {
    [MapperKind.OBJECT_FIELD]: (field, fieldName, typeName) => {
      const permission = permissionOf(schema, field);
      const sessionRole = sessionRoleOf(schema, field);
      if (permission === undefined && sessionRole === undefined) {
        if (rootTypes.has(typeName) && isOpenToAnyKey(schema, field)) return field;
        if (rootTypes.has(typeName)) throw new Error(`${typeName}.${fieldName} declares no @${DIRECTIVE_NAME} (or @requiresSession, or @${ANY_KEY})`);
        return field;
      }
      // A root field's permission is its operation's, which both doors check once, before the
      // arguments (assertOperationAllowed marks the context): the wrapper checks it only for a context
      // no door checked (the schema executed directly), and always nested fields and session roles.
      const root = rootTypes.has(typeName);
      const resolve = field.resolve ?? defaultFieldResolver;
      return {
        ...field,
        resolve(source, args, context: RequestContext, info) {
          if (sessionRole !== undefined) requireSession(context.auth, sessionRole);
          if (permission !== undefined && !(root && context.operationAllowed === true)) requirePermission(context.auth, permission);
          return resolve(source, args, context, info);
        },
      };
    },
  });
}

/**
 * The permissions of the root fields an operation selects, in selection order. Checked before its
 * variables, so a key without the permission learns nothing about the operation's input rules.
 */
export function operationPermissions(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): Permission[] {
  const rootType = schema.getRootType(operation.operation);
  if (!rootType) return [];
  const fields = rootType.getFields();
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const permissions = new Set<Permission>();
  const visited = new Set<string>();
  const collect = (selectionSet: SelectionSetNode): void => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        const field = fields[selection.name.value];
        const permission = field ? permissionOf(schema, field) : undefined;
        if (permission) permissions.add(permission);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        collect(selection.selectionSet);
      } else if (!visited.has(selection.name.value)) {
        visited.add(selection.name.value);
        const fragment = fragments.get(selection.name.value);
        if (fragment) collect(fragment.selectionSet);
      }
    }
  };
  collect(operation.selectionSet);
  return [...permissions];
}

/**
 * 403 FORBIDDEN unless the key holds every permission the operation's root fields declare; then the
 * context is marked, so that the root fields' own wrappers do not check them again.
 */
export function assertOperationAllowed(context: RequestContext, permissions: readonly Permission[]): void {
  for (const permission of permissions) requirePermission(context.auth, permission);
  context.operationAllowed = true;
}
