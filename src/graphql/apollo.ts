import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import { getOperationAST, type GraphQLError, type GraphQLSchema } from 'graphql';
import { AppError } from '../errors/app-error';
import { assertValidArguments } from './check-arguments';
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

/** The messages of graphql's ValuesOfCorrectTypeRule: a value written inline that its argument's type refuses. */
const VALUE_ERROR = /cannot represent|does not exist in ".*" enum|^Expected value of type|^Field ".*" of required type .* was not provided|^Field ".*" is not defined by type/;

/**
 * Before execution, as the REST door does: the root fields' permissions (403 FORBIDDEN), then the
 * arguments, checked like REST bodies (every failing field at once, as VALIDATION_ERROR, HTTP 400).
 */
const operationChecksPlugin: ApolloServerPlugin<RequestContext> = {
  async requestDidStart() {
    return {
      /**
       * A value written inline that its type refuses fails document validation, before the operation
       * is resolved. Answered like the same value sent as a variable: one VALIDATION_ERROR naming the
       * field (all of the arguments' failures), instead of graphql's GRAPHQL_VALIDATION_FAILED.
       */
      async validationDidStart({ document, request, schema }) {
        // Apollo does not await this hook: all of it runs before Apollo answers.
        return async (validationErrors) => {
          if (!validationErrors?.length || !validationErrors.every((error) => VALUE_ERROR.test(error.message))) return;
          const operation = getOperationAST(document, request.operationName);
          if (!operation) return;
          try {
            assertValidArguments(schema, document, operation, request.variables ?? {});
          } catch (error) {
            if (!(error instanceof AppError)) return;
            // Apollo sends exactly this array: our one error stands for graphql's.
            (validationErrors as GraphQLError[]).splice(0, validationErrors.length, toGraphQLError(error));
          }
        };
      },
      async didResolveOperation({ operation, document, request, schema, contextValue }) {
        if (!operation) return;
        try {
          assertOperationAllowed(contextValue.auth, operationPermissions(schema, document, operation));
          assertValidArguments(schema, document, operation, request.variables ?? {});
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
