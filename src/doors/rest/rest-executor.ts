import type { ServerResponse } from 'node:http';
import {
  getNamedType,
  isInputObjectType,
  isListType,
  isNonNullType,
  Kind,
  parse,
  typeFromAST,
  validate,
  type DocumentNode,
  type FieldNode,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { AppError, isServerFailure } from '../../foundation/errors/app-error';
import { assertValidArguments } from '../../platform/graphql/check-arguments';
import { CompiledOperations } from '../../platform/graphql/compiled-operations';
import { appErrorOf, originalErrorOf } from '../../platform/graphql/graphql-errors';
import type { RequestContext } from '../../platform/graphql/request-context';
import { assertOperationAllowed, operationPermissions } from '../../platform/graphql/requires-permission';
import type { Permission } from '../../platform/auth/permissions';
import { REST_OPERATIONS } from './operations';
import { BODY_VARIABLES, REST_ROUTES, type RestDownload, type RestRoute } from './routes';

export interface CompiledRoute extends RestRoute {
  readonly document: DocumentNode;
  readonly operationNode: OperationDefinitionNode;
  readonly variableTypes: ReadonlyMap<string, GraphQLInputType>;
  /** What the operation's root fields declare with @requiresPermission, checked before anything else. */
  readonly permissions: readonly Permission[];
  /** The operation compiled once (graphql-jit), with graphql-js semantics. */
  readonly compiled: CompiledOperations;
  /**
   * The fields a VALIDATION_ERROR names, as the REST request spells them: an argument or input field
   * fed by a path parameter of another name (`eventSlug` → `slug`). Empty for most routes.
   */
  readonly restFieldNames: ReadonlyMap<string, string>;
  /** The operation's variables the door sets from the caller's permissions (PERMISSION_VARIABLES). */
  readonly permissionVariables: ReadonlyArray<readonly [variable: string, permission: Permission]>;
}

/**
 * Variables the door sets from the caller, never from the request: whether it holds a permission. A
 * REST body then carries a field only for callers who may read it, where GraphQL would answer that
 * field FORBIDDEN: a booking's ticketCode (D29) for keys holding bookings:read
 * (`ticketCode @include(if: $mayReadBookings)`, operations.ts).
 */
const PERMISSION_VARIABLES: Readonly<Record<string, Permission>> = { mayReadBookings: 'bookings:read' };

export interface RestRequest {
  readonly params: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, unknown>>;
  readonly body: unknown;
}

/** Parses and validates every route's operation against the schema: once, at start-up. */
export function compileRoutes(
  schema: GraphQLSchema,
  routes: readonly RestRoute[] = REST_ROUTES,
  operations: string = REST_OPERATIONS,
): CompiledRoute[] {
  const document = parse(operations);
  const errors = validate(schema, document);
  if (errors.length > 0) throw new Error(`REST operations do not match the schema: ${errors.map((e) => e.message).join('; ')}`);
  const compiled = new CompiledOperations(schema);
  return routes.map((route) => {
    const operationNode = document.definitions.find(
      (definition): definition is OperationDefinitionNode =>
        definition.kind === Kind.OPERATION_DEFINITION && definition.name?.value === route.operation,
    );
    if (!operationNode) throw new Error(`Route ${route.method} ${route.path}: no operation named ${route.operation}`);
    const variableTypes = new Map<string, GraphQLInputType>();
    for (const definition of operationNode.variableDefinitions ?? []) {
      variableTypes.set(definition.variable.name.value, typeFromAST(schema, definition.type) as GraphQLInputType);
    }
    compiled.precompile(document, route.operation);
    const permissions = operationPermissions(schema, document, operationNode);
    const permissionVariables = [...variableTypes.keys()].filter((name) => Object.hasOwn(PERMISSION_VARIABLES, name)).map((name) => [name, PERMISSION_VARIABLES[name]] as const);
    return { ...route, document, operationNode, variableTypes, permissions, compiled, restFieldNames: restFieldNamesOf(route, operationNode), permissionVariables };
  });
}

/** The arguments (and body fields) a path parameter of another name feeds, by the name the client knows. */
function restFieldNamesOf(route: RestRoute, operationNode: OperationDefinitionNode): Map<string, string> {
  const names = new Map<string, string>();
  const root = operationNode.selectionSet.selections.find((selection): selection is FieldNode => selection.kind === Kind.FIELD);
  for (const argument of root?.arguments ?? []) {
    const { value } = argument;
    if (value.kind !== Kind.VARIABLE || value.name.value === argument.name.value) continue;
    if (route.path.split('/').includes(`:${value.name.value}`)) names.set(argument.name.value, value.name.value);
  }
  for (const [field, parameter] of Object.entries(route.bodyFromPath ?? {})) if (field !== parameter) names.set(field, parameter);
  return names;
}

/** A VALIDATION_ERROR with its fields named as the REST request names them (see restFieldNames). */
function inRestTerms(error: unknown, names: ReadonlyMap<string, string>): unknown {
  if (names.size === 0 || !(error instanceof AppError) || error.code !== 'VALIDATION_ERROR') return error;
  const errors = (error.details as { errors: Array<{ field: string; message: string }> }).errors;
  return AppError.validation(
    errors.map(({ field, message }) => {
      const name = names.get(field);
      if (name === undefined) return { field, message };
      return { field: name, message: message.startsWith(`${field} `) ? `${name}${message.slice(field.length)}` : message };
    }),
  );
}

/** Keeps only the fields an input type accepts, at every depth: REST ignores fields it does not take. */
function acceptedFields(value: unknown, type: GraphQLInputType): unknown {
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) return Array.isArray(value) ? value.map((item) => acceptedFields(item, inner.ofType)) : value;
  if (!isInputObjectType(inner) || value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const fields = inner.getFields();
  const accepted: Record<string, unknown> = {};
  for (const [name, fieldValue] of Object.entries(value)) if (Object.hasOwn(fields, name)) accepted[name] = acceptedFields(fieldValue, fields[name].type);
  return accepted;
}

/** A query-string value as the variable's type expects it; anything unconvertible is left for the check. */
function fromQueryString(value: unknown, type: GraphQLInputType): unknown {
  const named = getNamedType(type).name;
  if (typeof value === 'string' && named === 'Int' && /^-?\d{1,10}$/.test(value)) return Number(value);
  return value;
}

function variablesOf(route: CompiledRoute, request: RestRequest): Record<string, unknown> {
  const variables: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(request.params)) if (route.variableTypes.has(name)) variables[name] = value;
  for (const name of route.query ?? []) {
    const type = route.variableTypes.get(name);
    if (type && request.query[name] !== undefined) variables[name] = fromQueryString(request.query[name], type);
  }
  if (route.body) {
    const body = request.body;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw AppError.validation([
        { field: 'body', message: 'the request body must be a JSON object, sent with Content-Type: application/json' },
      ]);
    }
    if (route.body === BODY_VARIABLES) {
      // Each field of the body is the variable of its name; the path's and the query's are not the body's.
      const taken = new Set([...Object.keys(request.params), ...(route.query ?? [])]);
      for (const [name, value] of Object.entries(body)) {
        const type = route.variableTypes.get(name);
        if (type && !taken.has(name)) variables[name] = acceptedFields(value, type);
      }
      return variables;
    }
    const accepted = acceptedFields(body, route.variableTypes.get(route.body) as GraphQLInputType) as Record<string, unknown>;
    for (const [field, parameter] of Object.entries(route.bodyFromPath ?? {})) accepted[field] = request.params[parameter];
    variables[route.body] = accepted;
  }
  return variables;
}

/** Runs a route's operation in-process against the schema, with the request's context. */
export async function runRoute(
  schema: GraphQLSchema,
  route: CompiledRoute,
  request: RestRequest,
  context: RequestContext,
): Promise<unknown> {
  assertOperationAllowed(context, route.permissions);
  const variableValues = variablesOf(route, request);
  for (const [name, permission] of route.permissionVariables) variableValues[name] = context.auth.permissions.includes(permission);
  try {
    assertValidArguments(schema, route.document, route.operationNode, variableValues);
  } catch (error) {
    throw inRestTerms(error, route.restFieldNames);
  }
  const result = await route.compiled.execute(route.document, route.operation, context, variableValues);
  if (result.errors && result.errors.length > 0) {
    // A REST operation has one root field, so its first error is the answer.
    const [error] = result.errors;
    const appError = appErrorOf(error, context.requestId);
    if (isServerFailure(appError.code)) {
      // As it is, so the error handler logs it once, with its stack and the request id, and maps it.
      throw originalErrorOf(error);
    }
    throw inRestTerms(appError, route.restFieldNames);
  }
  return route.result ? result.data?.[route.result] : undefined;
}

/**
 * Runs a download route (not a GraphQL operation: attendees.csv): the permission it declares, checked
 * by the same function as the operations' (FORBIDDEN before anything is read), then its writer.
 */
export async function runDownload(download: RestDownload, res: ServerResponse, params: Readonly<Record<string, string>>, context: RequestContext): Promise<void> {
  assertOperationAllowed(context, [download.permission]);
  await download.send(res, context, params);
}
