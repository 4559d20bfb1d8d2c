import { Kind, type FieldNode, type SelectionSetNode } from 'graphql';
import { httpStatusOf, type ErrorCode } from '../../../foundation/errors/app-error';
import type { CompiledRoute } from '../rest-executor';
import { readsBody, type RestDownload } from '../routes';
import { ERROR_CATALOGUE, errorSchemaName } from './error-catalogue';
import { ref } from './json-schema';

/*
 * What every route of the OpenAPI document shares (openapi-document.ts): the error codes and their
 * responses, the headers, and the Idempotency-Key parameter of writes.
 */

type Json = Record<string, unknown>;

/**
 * Errors every authenticated route can answer, whatever it does. VALIDATION_ERROR: a path that is not
 * percent-encoded UTF-8, headers past the server's limit, a parameter with a NUL character.
 */
export const EVERY_ROUTE: readonly ErrorCode[] = [
  'VALIDATION_ERROR',
  'UNAUTHORIZED',
  'INVALID_API_KEY',
  'API_KEY_EXPIRED',
  'FORBIDDEN',
  'IP_NOT_ALLOWED',
  'HTTPS_REQUIRED',
  'RATE_LIMITED',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
];

export const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  204: 'No Content',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  422: 'Unprocessable Content',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export const HEADERS: Record<string, Json> = {
  'X-Request-Id': { description: 'Identifies the request in the logs; echoed from the request when it is a sane token.', schema: { type: 'string' } },
  'RateLimit-Limit': { description: "The organization's requests per minute.", schema: { type: 'integer' } },
  'RateLimit-Remaining': { description: 'Requests left in the current window.', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until the window resets.', schema: { type: 'integer' } },
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } },
  Location: { description: 'The path of the created resource.', schema: { type: 'string' } },
  'Content-Disposition': { description: 'A download: `attachment` with the file name.', schema: { type: 'string' } },
  'Idempotent-Replayed': {
    description: '`true` when this is the stored answer to an earlier request with the same Idempotency-Key.',
    schema: { type: 'string', enum: ['true'] },
  },
};
export const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });
export const commonHeaders = () => ({ 'X-Request-Id': headerRef('X-Request-Id') });
export const rateLimitHeaders = () => ({
  'RateLimit-Limit': headerRef('RateLimit-Limit'),
  'RateLimit-Remaining': headerRef('RateLimit-Remaining'),
  'RateLimit-Reset': headerRef('RateLimit-Reset'),
});


export function errorResponses(codes: readonly ErrorCode[]): Record<string, Json> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) byStatus.set(httpStatusOf(code), [...(byStatus.get(httpStatusOf(code)) ?? []), code]);
  const responses: Record<string, Json> = {};
  for (const [status, group] of [...byStatus].sort(([a], [b]) => a - b)) {
    const schema = group.length === 1 ? ref(errorSchemaName(group[0])) : { anyOf: group.map((code) => ref(errorSchemaName(code))) };
    responses[String(status)] = {
      description: group.map((code) => `${code}: ${ERROR_CATALOGUE[code].when}`).join(' '),
      headers: { ...commonHeaders(), ...(status === 429 || status === 503 || group.includes('IDEMPOTENCY_KEY_IN_USE') ? { 'Retry-After': headerRef('Retry-After') } : {}) },
      content: { 'application/json': { schema } },
    };
  }
  return responses;
}

export const isWrite = (route: CompiledRoute): boolean => route.method !== 'GET';

/** The Idempotency-Key header parameter of every write (D17). */
export const IDEMPOTENCY_KEY_PARAMETER: Json = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes a retry safe: a request with the same key and the same method, path and body within 24 hours gets the stored answer again (header `Idempotent-Replayed: true`) and runs nothing twice. 1 to 255 printable ASCII characters; a UUID is a good choice.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
};

export const replayedHeader = (route: CompiledRoute) => (isWrite(route) ? { 'Idempotent-Replayed': headerRef('Idempotent-Replayed') } : {});

/** Every error code a route can answer: the common ones, those its inputs imply, and its declared ones. */
export function errorCodesOf(route: CompiledRoute | RestDownload): ErrorCode[] {
  if (!('operation' in route)) return [...new Set([...EVERY_ROUTE, ...route.errors])];
  const codes: ErrorCode[] = [...EVERY_ROUTE];
  if (readsBody(route) || (route.query ?? []).length > 0) codes.push('VALIDATION_ERROR');
  if (readsBody(route)) codes.push('PAYLOAD_TOO_LARGE');
  codes.push(...(route.errors ?? []));
  if (isWrite(route)) codes.push('VALIDATION_ERROR', 'IDEMPOTENCY_KEY_IN_USE', 'IDEMPOTENCY_KEY_REUSED');
  return [...new Set(codes)];
}

/** The selection a route's body shows: its root field's, less the field that only decides its status (`created`). */
export function bodySelection(route: CompiledRoute, node: FieldNode): SelectionSetNode | undefined {
  if (route.created === undefined || !node.selectionSet) return node.selectionSet;
  const selections = node.selectionSet.selections.filter((selection) => !(selection.kind === Kind.FIELD && selection.name.value === route.created));
  return { ...node.selectionSet, selections };
}

/** A route that answers an existing resource when there is one (`created`): 200 with the same body, without Location. */
export function existingResponse(route: CompiledRoute, success: Json): Record<string, Json> {
  if (route.created === undefined) return {};
  const { Location: _location, ...headers } = success.headers as Record<string, Json>;
  return { '200': { ...success, description: 'OK: the resource there was already (nothing made).', headers } };
}
