import { getDirective } from '@graphql-tools/utils';
import { DirectiveLocation, GraphQLDirective, GraphQLNonNull, GraphQLString, type GraphQLSchema } from 'graphql';
import { Directive } from 'type-graphql';
import type { AuthContext } from '../auth/auth-context';
import { AppError } from '../../foundation/errors/app-error';

const DIRECTIVE_NAME = 'requiresSession';

export type SessionRole = 'ADMIN' | 'MEMBER';

export const requiresSessionDirective = new GraphQLDirective({
  name: DIRECTIVE_NAME,
  description:
    'Only a signed-in dashboard member may resolve this field: role ADMIN for an organization admin, MEMBER for any member. ' +
    'No API key can ever satisfy it, whatever its permissions (403 FORBIDDEN).',
  locations: [DirectiveLocation.FIELD_DEFINITION],
  args: { role: { type: new GraphQLNonNull(GraphQLString) } },
});

/** Declares, once, that a field belongs to the dashboard: visible in schema.graphql and enforced there. */
export function RequiresSession(role: SessionRole): MethodDecorator & PropertyDecorator {
  return Directive(`@${DIRECTIVE_NAME}(role: "${role}")`);
}

export function sessionRoleOf(schema: GraphQLSchema, field: Parameters<typeof getDirective>[1]): SessionRole | undefined {
  const role = getDirective(schema, field, DIRECTIVE_NAME)?.[0]?.role as string | undefined;
  if (role === undefined) return undefined;
  if (role !== 'ADMIN' && role !== 'MEMBER') throw new Error(`Unknown session role "${role}" on a schema field`);
  return role;
}

/** 403 FORBIDDEN unless the caller is a signed-in member (of role ADMIN when `role` is ADMIN). */
export function requireSession(auth: AuthContext, role: SessionRole): void {
  if (auth.session && (role === 'MEMBER' || auth.session.role === 'ADMIN')) return;
  const message = auth.session
    ? 'Only an organization admin can do this'
    : 'Only a signed-in dashboard member can use this field; API keys never can';
  throw AppError.sessionRequired(role, auth.permissions, message);
}
