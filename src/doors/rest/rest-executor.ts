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
import { REST_ROUTES, type RestRoute } from './routes';

export interface CompiledRoute extends RestRoute {
  readonly document: DocumentNode;
  readonly operationNode: OperationDefinitionNode;
  readonly variableTypes: ReadonlyMap<string, GraphQLInputType>;
  /** What the operation's root fields declare with @requiresPermission, checked before anything else. */
  readonly permissions: readonly Permission[];
  /** The operation compiled once (graphql-jit), with graphql-js semantics. */
  readonly compiled: CompiledOperations;
}

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
    return { ...route, document, operationNode, variableTypes, permissions, compiled };
  });
}

/** Keeps only the fields an input type accepts, at every depth: REST ignores fields it does not take. */
function acceptedFields(value: unknown, type: GraphQLInputType): unknown {
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) return Array.isArray(value) ? value.map((item) => acceptedFields(item, inner.ofType)) : value;
  if (!isInputObjectType(inner) || value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const fields = inner.getFields();
  return Object.fromEntries(
    Object.entries(value)
      .filter(([name]) => Object.hasOwn(fields, name))
      .map(([name, fieldValue]) => [name, acceptedFields(fieldValue, fields[name].type)]),
  );
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
    variables[route.body] = acceptedFields(body, route.variableTypes.get(route.body) as GraphQLInputType);
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
  assertOperationAllowed(context.auth, route.permissions);
  const variableValues = variablesOf(route, request);
  assertValidArguments(schema, route.document, route.operationNode, variableValues);
  const result = await route.compiled.execute(route.document, route.operation, context, variableValues);
  if (result.errors && result.errors.length > 0) {
    // A REST operation has one root field, so its first error is the answer.
    const [error] = result.errors;
    const appError = appErrorOf(error, context.requestId);
    if (isServerFailure(appError.code)) {
      // As it is, so the error handler logs it once, with its stack and the request id, and maps it.
      throw originalErrorOf(error);
    }
    throw appError;
  }
  return route.result ? result.data?.[route.result] : undefined;
}
