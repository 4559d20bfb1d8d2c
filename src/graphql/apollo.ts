import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import { GraphQLError, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import type { Permission } from '../auth/permissions';
import { AppError, httpStatusOf } from '../errors/app-error';
import { assertValidVariables } from './coerce-variables';
import { CompiledOperations } from './compiled-operations';
import { formatGraphQLError, isGraphQLNativeError, originalErrorOf } from './graphql-errors';
import { NoNulCharactersRule } from './no-nul-characters';
import { queryLimitsPlugin, type QueryLimits } from './query-limits';
import type { RequestContext } from './request-context';
import { assertOperationAllowed, operationPermissions } from './requires-permission';

/** Names the operation in the access log and the request's log lines. */
const operationNamePlugin: ApolloServerPlugin<RequestContext> = {
  async requestDidStart() {
    return {
      async didResolveOperation({ operation, contextValue }) {
        if (contextValue.operation) contextValue.operation.name = operation?.name?.value ?? 'anonymous';
      },
    };
  },
};

/**
 * Before execution, as the REST door does: the root fields' permissions (403 FORBIDDEN), then the
 * variables, checked like REST bodies (every failing field at once, as VALIDATION_ERROR, HTTP 400).
 */
const permissionsByOperation = new WeakMap<OperationDefinitionNode, readonly Permission[]>();

const operationChecksPlugin: ApolloServerPlugin<RequestContext> = {
  async requestDidStart() {
    return {
      async didResolveOperation({ operation, document, request, schema, contextValue }) {
        if (!operation) return;
        try {
          // Apollo reuses the parsed document of a repeated query: its permissions are found once.
          let permissions = permissionsByOperation.get(operation);
          if (!permissions) {
            permissions = operationPermissions(schema, document, operation);
            permissionsByOperation.set(operation, permissions);
          }
          assertOperationAllowed(contextValue.auth, permissions);
          assertValidVariables(schema, operation, request.variables ?? {});
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          throw new GraphQLError(error.message, { originalError: error, extensions: { http: { status: httpStatusOf(error.code) } } });
        }
      },
    };
  },
};

const SERVER_FAILURES = new Set(['INTERNAL_ERROR', 'SERVICE_UNAVAILABLE']);

/**
 * Logs unexpected failures with the request's logger and puts the request id into their details. When
 * nothing could be resolved because of a server failure, the HTTP status says so too (500 / 503), as
 * in REST, so load balancers, monitors and retrying clients see it.
 */
const unexpectedErrorsPlugin: ApolloServerPlugin<RequestContext> = {
  async requestDidStart() {
    return {
      async didEncounterErrors({ errors, contextValue }) {
        for (const error of errors) {
          const original = originalErrorOf(error);
          if (!(original instanceof AppError) && !isGraphQLNativeError(original)) {
            contextValue.logger.error({ err: original, path: error.path }, 'GraphQL resolver failed');
          }
        }
      },
      async willSendResponse({ response, contextValue }) {
        if (response.body.kind !== 'single') return;
        const { data, errors = [] } = response.body.singleResult;
        for (const error of errors) {
          const details = error.extensions?.details as { requestId?: string } | undefined;
          if (details && details.requestId === '') details.requestId = contextValue.requestId;
        }
        const codes = new Set(errors.map((error) => error.extensions?.code));
        const [code] = codes;
        if (data == null && codes.size === 1 && typeof code === 'string' && SERVER_FAILURES.has(code)) {
          response.http.status = httpStatusOf(code as 'INTERNAL_ERROR' | 'SERVICE_UNAVAILABLE');
        }
      },
    };
  },
};

export interface ApolloOptions {
  readonly introspection: boolean;
  /** The Apollo Sandbox page for browsers on GET /graphql (outside production). */
  readonly landingPage: boolean;
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
    plugins: [
      operationNamePlugin,
      operationChecksPlugin,
      queryLimitsPlugin(options.limits),
      unexpectedErrorsPlugin,
      // No cache hints in this schema: without the plugin, Apollo does not wrap every field resolver.
      ApolloServerPluginCacheControlDisabled(),
      // Explicit either way: Apollo's own default follows NODE_ENV, which tests and configs may not set.
      options.landingPage
        ? ApolloServerPluginLandingPageLocalDefault({ embed: true, includeCookies: false })
        : ApolloServerPluginLandingPageDisabled(),
    ],
    // Apollo would stop itself on SIGTERM and re-raise the signal (exit 143) before the server has
    // drained its requests and closed the database: src/server.ts owns shutdown.
    stopOnTerminationSignals: false,
  });
  await server.start();
  return server;
}
