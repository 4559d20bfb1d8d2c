import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GraphQLRequestContextWillSendResponse } from '@apollo/server';
import Negotiator from 'negotiator';
import { httpStatusOf, SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS, type AppError } from '../../foundation/errors/app-error';
import { graphqlExtensionsOf } from '../../platform/graphql/graphql-errors';
import type { RequestContext } from '../../platform/graphql/request-context';

/*
 * GraphQL over HTTP (https://github.com/graphql/graphql-over-http, D13): the media type
 * of an answer and its HTTP status, the same whoever writes it (the request pipeline before the door,
 * the door's own refusals and compiled answers, Apollo), for GET and POST alike.
 *
 * - The media type is the one the client prefers of application/graphql-response+json and
 *   application/json (what graphql-request, Apollo Client and GraphiQL send asks for the first);
 *   without an Accept header, application/json (as Apollo chooses). docs/auth-and-errors.md.
 * - The status is the same for both: an answer with data (null or not) is 200, errors or not; an
 *   answer without data carries the status of its error in the error table (400 for a document that
 *   does not parse, validate or fit the limits, an operation that cannot be chosen, variables or
 *   arguments refused; 401/403 for keys and permissions; 500/503 for a server failure). That is the
 *   specification's rule for application/graphql-response+json; for application/json it uses the
 *   allowance the specification keeps for 4xx statuses (its SHOULD is 200 there), because every bad
 *   input gets a 4xx here and REST and GraphQL share one error table. Its one MUST for
 *   application/json, 200 whenever `data` is not null, holds.
 */

export const APPLICATION_JSON = 'application/json; charset=utf-8';
export const GRAPHQL_RESPONSE_JSON = 'application/graphql-response+json; charset=utf-8';

/**
 * The media type of a GraphQL answer for this Accept header, as Apollo chooses it (the same library,
 * the same candidates): none given, application/json; else the client's preferred of the two;
 * undefined when it accepts neither (Apollo answers such a request 406).
 */
export function acceptedMediaType(accept: string | undefined): string | undefined {
  if (!accept) return APPLICATION_JSON;
  return new Negotiator({ headers: { accept } }).mediaType([APPLICATION_JSON, GRAPHQL_RESPONSE_JSON]);
}

/** The media type an error answer is written in: the accepted one, else application/json. */
export function graphqlMediaType(accept: string | undefined): string {
  return acceptedMediaType(accept) ?? APPLICATION_JSON;
}

/**
 * A guard on Apollo's answers for the rule above (Apollo's willSendResponse): an answer with data is
 * 200 (an error raised while resolving a field may carry the status of its code: it does not make the
 * answer's).
 */
export function dataAnswersAre200({ response }: GraphQLRequestContextWillSendResponse<RequestContext>): void {
  if (response.body.kind !== 'single') return;
  const { data } = response.body.singleResult;
  if (data !== undefined && data !== null && response.http.status !== undefined) response.http.status = 200;
}

/**
 * Writes a GraphQL request error the door found itself (a document over its bounds or limits), as Apollo
 * would write it: `{"errors":[{message, extensions:{code, details}}]}` and a newline, in the negotiated
 * media type, with the status of its code.
 */
export function writeGraphqlRequestError(req: IncomingMessage, res: ServerResponse, error: AppError): void {
  const mediaType = graphqlMediaType(req.headers.accept);
  const text = `${JSON.stringify({ errors: [{ message: error.message, extensions: graphqlExtensionsOf(error) }] })}\n`;
  res.statusCode = httpStatusOf(error.code);
  if (error.code === 'SERVICE_UNAVAILABLE') res.setHeader('Retry-After', String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS));
  res.setHeader('Content-Type', mediaType);
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/** The media type of the common Accept headers (acceptedMediaType: as Apollo chooses), found once each. */
const MEDIA_TYPES = new Map<string | undefined, string | undefined>([
  [undefined, APPLICATION_JSON],
  ['*/*', APPLICATION_JSON],
  ['application/json', APPLICATION_JSON],
]);
const MAX_MEDIA_TYPES = 64;

export function mediaTypeOf(accept: string | undefined): string | undefined {
  if (MEDIA_TYPES.has(accept)) return MEDIA_TYPES.get(accept);
  const mediaType = acceptedMediaType(accept);
  if (MEDIA_TYPES.size < MAX_MEDIA_TYPES) MEDIA_TYPES.set(accept, mediaType);
  return mediaType;
}
