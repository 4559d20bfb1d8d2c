import { ApolloServer, type ApolloServerPlugin, type GraphQLRequestListener } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled } from '@apollo/server/plugin/disabled';
import { getOperationAST, type DocumentNode, type GraphQLError, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import type { Permission } from '../../platform/auth/permissions';
import type { ExplorerKind } from '../../foundation/config';
import { AppError } from '../../foundation/errors/app-error';
import { assertValidArguments } from '../../platform/graphql/check-arguments';
import { CompiledOperations } from '../../platform/graphql/compiled-operations';
import { explorerPlugin } from './explorer';
import { formatGraphQLError, logUnexpectedErrors, serverFailureStatus, toGraphQLError } from '../../platform/graphql/graphql-errors';
import { MAX_DOCUMENT_TOKENS } from '../../foundation/validation/input-bounds';
import { NoNulCharactersRule } from '../../platform/graphql/no-nul-characters';
import { dataAnswersAre200 } from './graphql-http';
import { queryLimitsCheck, type QueryLimits } from './query-limits';
import type { RequestContext } from '../../platform/graphql/request-context';
import { assertOperationAllowed, operationPermissions } from '../../platform/graphql/requires-permission';

/** The messages of graphql's ValuesOfCorrectTypeRule: a value written inline that its argument's type refuses. */
const VALUE_ERROR = /cannot represent|does not exist in ".*" enum|^Expected value of type|^Field ".*" of required type .* was not provided|^Field ".*" is not defined by type/;

const permissionsByOperation = new WeakMap<OperationDefinitionNode, readonly Permission[]>();

/**
 * Before execution, as the REST door does: the root fields' permissions (403 FORBIDDEN), then the
 * arguments, checked like REST bodies (every failing field at once, as VALIDATION_ERROR, HTTP 400).
 * Throws the AppError. A repeated document's permissions are found once (Apollo hands back the same
 * parsed document for every repeat of a query).
 */
function checkOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  context: RequestContext,
  variables: Record<string, unknown>,
): void {
  let permissions = permissionsByOperation.get(operation);
  if (!permissions) {
    permissions = operationPermissions(schema, document, operation);
    permissionsByOperation.set(operation, permissions);
  }
  assertOperationAllowed(context, permissions);
  assertValidArguments(schema, document, operation, variables);
}

/**
 * Our part of Apollo's request pipeline, one plugin with one set of hooks for every request (no
 * per-request closures but the validation one, which runs once per new document):
 * - validation: a document that fails validation and is also over a limit is answered
 *   QUERY_TOO_COMPLEX, not with graphql's validation errors (graphql's own MaxIntrospectionDepthRule
 *   among them): the limit is the answer a client can act on. Otherwise a value written inline that
 *   its type refuses is answered like the same value sent as a variable: one VALIDATION_ERROR naming
 *   the field (all of the arguments' failures), instead of graphql's GRAPHQL_VALIDATION_FAILED.
 * - the resolved operation: named for the access log, then checked once, as the REST door checks its
 *   routes (permissions, then arguments: checkOperation), then the limits (cost, depth).
 * - the answer: unexpected failures logged, the HTTP status of server failures, 200 for data (D13).
 */
function operationPlugin(limits: QueryLimits): ApolloServerPlugin<RequestContext> {
  const check = queryLimitsCheck(limits);
  const hooks: GraphQLRequestListener<RequestContext> = {
    async validationDidStart({ document, request, schema }) {
      // Apollo does not await this hook: all of it runs before Apollo answers.
      return async (validationErrors) => {
        if (!validationErrors?.length) return;
        const operation = getOperationAST(document, request.operationName);
        if (!operation) return;
        // Apollo sends exactly this array: our one error stands for graphql's.
        const replaceWith = (error: AppError) => (validationErrors as GraphQLError[]).splice(0, validationErrors.length, toGraphQLError(error));
        const refusal = check(schema, document, operation, request.variables);
        if (refusal) return void replaceWith(refusal);
        if (!validationErrors.every((error) => VALUE_ERROR.test(error.message))) return;
        try {
          assertValidArguments(schema, document, operation, request.variables ?? {});
        } catch (error) {
          if (error instanceof AppError) replaceWith(error);
        }
      };
    },
    async didResolveOperation({ operation, document, request, schema, contextValue }) {
      if (contextValue.operation) contextValue.operation.name = operation?.name?.value ?? 'anonymous';
      if (!operation) return;
      try {
        checkOperation(schema, document, operation, contextValue, request.variables ?? {});
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        throw toGraphQLError(error);
      }
      const refusal = check(schema, document, operation, request.variables);
      if (refusal) throw toGraphQLError(refusal) satisfies GraphQLError;
    },
    async didEncounterErrors(context) {
      logUnexpectedErrors(context);
    },
    async willSendResponse(context) {
      serverFailureStatus(context);
      dataAnswersAre200(context);
    },
  };
  return { requestDidStart: async () => hooks };
}

export interface ApolloOptions {
  readonly introspection: boolean;
  /** What browsers get on GET /graphql (GRAPHQL_EXPLORER). */
  readonly explorer: ExplorerKind;
  readonly limits: QueryLimits;
}

export async function startApollo(
  schema: GraphQLSchema,
  options: ApolloOptions,
  operations: CompiledOperations = new CompiledOperations(schema),
): Promise<ApolloServer<RequestContext>> {
  const server = new ApolloServer<RequestContext>({
    // Apollo parses, validates and caches documents; repeated ones run compiled (graphql-jit).
    gateway: operations.gateway(),
    formatError: formatGraphQLError,
    includeStacktraceInErrorResponses: false,
    introspection: options.introspection,
    validationRules: [NoNulCharactersRule],
    // A backstop: the transport edge (graphqlRequestBounds) refuses longer documents first.
    parseOptions: { maxTokens: MAX_DOCUMENT_TOKENS },
    plugins: [
      operationPlugin(options.limits),
      // No cache hints in this schema: without the plugin, Apollo does not wrap every field resolver.
      ApolloServerPluginCacheControlDisabled(),
      explorerPlugin(options.explorer),
    ],
    // Apollo would stop itself on SIGTERM and re-raise the signal (exit 143) before the server has
    // drained its requests and closed the database: src/server.ts owns shutdown.
    stopOnTerminationSignals: false,
  });
  await server.start();
  return server;
}
