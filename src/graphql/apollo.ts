import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import type { GraphQLSchema } from 'graphql';
import { AppError } from '../errors/app-error';
import { assertValidVariables } from './coerce-variables';
import { formatGraphQLError, graphqlErrorsPlugin, toGraphQLError } from './graphql-errors';
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
const operationChecksPlugin: ApolloServerPlugin<RequestContext> = {
  async requestDidStart() {
    return {
      async didResolveOperation({ operation, document, request, schema, contextValue }) {
        if (!operation) return;
        try {
          assertOperationAllowed(contextValue.auth, operationPermissions(schema, document, operation));
          assertValidVariables(schema, operation, request.variables ?? {});
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          throw toGraphQLError(error);
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

export async function startApollo(schema: GraphQLSchema, options: ApolloOptions): Promise<ApolloServer<RequestContext>> {
  const server = new ApolloServer<RequestContext>({
    schema,
    formatError: formatGraphQLError,
    includeStacktraceInErrorResponses: false,
    introspection: options.introspection,
    validationRules: [NoNulCharactersRule],
    plugins: [
      operationNamePlugin,
      operationChecksPlugin,
      queryLimitsPlugin(options.limits),
      graphqlErrorsPlugin,
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
