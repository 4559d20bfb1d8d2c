import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { GraphQLError, type GraphQLSchema } from 'graphql';
import { AppError } from '../errors/app-error';
import { assertValidVariables } from './coerce-variables';
import { formatGraphQLError, isGraphQLNativeError, originalErrorOf } from './graphql-errors';
import type { RequestContext } from './request-context';

/** Variables are checked like REST bodies: every failing field at once, as VALIDATION_ERROR (HTTP 400). */
const variablesPlugin: ApolloServerPlugin<RequestContext> = {
  async requestDidStart() {
    return {
      async didResolveOperation({ operation, request, schema }) {
        if (!operation) return;
        try {
          assertValidVariables(schema, operation, request.variables ?? {});
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          throw new GraphQLError(error.message, { originalError: error, extensions: { http: { status: 400 } } });
        }
      },
    };
  },
};

/** Logs unexpected failures with the request's logger, and puts the request id into their details. */
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
        for (const error of response.body.singleResult.errors ?? []) {
          const details = error.extensions?.details as { requestId?: string } | undefined;
          if (details && details.requestId === '') details.requestId = contextValue.requestId;
        }
      },
    };
  },
};

export async function startApollo(schema: GraphQLSchema, options: { introspection: boolean }): Promise<ApolloServer<RequestContext>> {
  const server = new ApolloServer<RequestContext>({
    schema,
    formatError: formatGraphQLError,
    includeStacktraceInErrorResponses: false,
    introspection: options.introspection,
    plugins: [variablesPlugin, unexpectedErrorsPlugin],
    // Apollo would stop itself on SIGTERM and re-raise the signal (exit 143) before the server has
    // drained its requests and closed the database: src/server.ts owns shutdown.
    stopOnTerminationSignals: false,
  });
  await server.start();
  return server;
}
