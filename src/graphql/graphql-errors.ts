import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { AppError, graphqlExtensionsOf } from '../errors/app-error';
import { toAppError } from '../errors/to-app-error';

/** The innermost cause behind GraphQL's wrapping of a thrown value. */
export function originalErrorOf(error: unknown): unknown {
  let current = error;
  while (current instanceof GraphQLError && current.originalError) current = current.originalError;
  return current;
}

/** GraphQL's own errors (syntax, document validation) keep their standard codes. */
export function isGraphQLNativeError(error: unknown): error is GraphQLError {
  return error instanceof GraphQLError && !error.originalError;
}

/** One GraphQL execution error as the client-safe AppError both doors report. */
export function appErrorOf(error: GraphQLError, requestId: string): AppError {
  const original = originalErrorOf(error);
  if (isGraphQLNativeError(original)) return AppError.validation([{ field: 'query', message: original.message }]);
  return toAppError(original, requestId);
}

/**
 * Apollo's formatError: our codes and details in `extensions`, never a stack or an ORM message. The
 * request id of an INTERNAL_ERROR is filled in by the plugin that sees the request context.
 */
export function formatGraphQLError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  const original = originalErrorOf(error);
  if (isGraphQLNativeError(original)) {
    // Apollo labels its own request errors that carry no code (an unsupported persisted-query
    // version, a hash that does not match) INTERNAL_SERVER_ERROR, though they answer 400.
    const code = formatted.extensions?.code === 'INTERNAL_SERVER_ERROR' ? 'BAD_REQUEST' : formatted.extensions?.code;
    return { message: formatted.message, locations: formatted.locations, path: formatted.path, extensions: { code } };
  }
  const appError = toAppError(original, '');
  return {
    message: appError.message,
    locations: formatted.locations,
    path: formatted.path,
    extensions: graphqlExtensionsOf(appError),
  };
}
