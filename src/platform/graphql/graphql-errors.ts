import type { GraphQLRequestContextWillSendResponse } from '@apollo/server';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { AppError, httpStatusOf, isServerFailure, type ErrorCode, type ErrorDetails, SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS } from '../../foundation/errors/app-error';
import { boundText, echo } from '../../foundation/errors/echo';
import { toAppError } from '../../foundation/errors/to-app-error';
import type { RequestContext } from './request-context';

/*
 * The GraphQL side of error mapping, in one file: AppError → `extensions` (the same code and details
 * as the REST envelope, src/http/error-handler.ts), the HTTP status of a GraphQL answer, and the
 * logging of unexpected failures.
 */

/** The GraphQL `extensions` of an error: the same code and details as the REST envelope. */
export function graphqlExtensionsOf(error: AppError): { code: ErrorCode; details?: ErrorDetails } {
  return { code: error.code, ...(error.details === undefined ? {} : { details: error.details }) };
}

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
export function formatGraphQLError(unbounded: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  // GraphQL's own messages quote what they were sent (a field, an argument's value) and a path names
  // the client's aliases: each shown bounded (D13).
  const formatted = {
    ...unbounded,
    message: boundText(unbounded.message),
    ...(unbounded.path ? { path: unbounded.path.map((entry) => (typeof entry === 'string' ? echo(entry) : entry)) } : {}),
  };
  const original = originalErrorOf(error);
  // Apollo refuses a mutation over GET itself (HTTP 405, Allow: POST) with its generic BAD_REQUEST;
  // a wrong method is METHOD_NOT_ALLOWED in REST, so it is here too.
  if (isGraphQLNativeError(original) && (original.extensions.http as { status?: number } | undefined)?.status === 405) {
    return { message: formatted.message, extensions: graphqlExtensionsOf(new AppError('METHOD_NOT_ALLOWED', formatted.message, { allowed: ['POST'] })) };
  }
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

/** An AppError raised before execution (permissions, variables, limits), with its HTTP status. */
export function toGraphQLError(error: AppError): GraphQLError {
  return new GraphQLError(error.message, { originalError: error, extensions: { http: { status: httpStatusOf(error.code) } } });
}

/** Logs unexpected failures with the request's logger (Apollo's didEncounterErrors). */
export function logUnexpectedErrors({ errors, contextValue }: { readonly errors: readonly GraphQLError[]; readonly contextValue: RequestContext }): void {
  for (const error of errors) {
    const original = originalErrorOf(error);
    if (!(original instanceof AppError) && !isGraphQLNativeError(original)) {
      contextValue.logger.error({ err: original, path: error.path }, 'GraphQL resolver failed');
    }
  }
}

/**
 * Puts the request id into the details of unexpected failures, and when nothing could be resolved
 * because of a server failure, gives the HTTP status its code (500 / 503) as in REST, so load
 * balancers, monitors and retrying clients see it (Apollo's willSendResponse).
 */
export function serverFailureStatus({ response, contextValue }: GraphQLRequestContextWillSendResponse<RequestContext>): void {
  if (response.body.kind !== 'single') return;
  const { data, errors = [] } = response.body.singleResult;
  for (const error of errors) {
    const details = error.extensions?.details as { requestId?: string } | undefined;
    if (details && details.requestId === '') details.requestId = contextValue.requestId;
  }
  const codes = new Set(errors.map((error) => error.extensions?.code));
  const [code] = codes;
  if (data == null && codes.size === 1 && typeof code === 'string' && isServerFailure(code)) {
    response.http.status = httpStatusOf(code);
  }
  if (codes.has('SERVICE_UNAVAILABLE')) response.http.headers.set('retry-after', String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS));
}
