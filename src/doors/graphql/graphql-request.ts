import type { IncomingMessage, ServerResponse } from 'node:http';
import { HeaderMap, type ApolloServer } from '@apollo/server';
import type { RequestContext } from '../../platform/graphql/request-context';

/*
 * A GraphQL request over HTTP as the door reads it (its parameters, from a POST's JSON body or a GET's
 * query string) and as Apollo answers it (graphql-execution.ts).
 */

/** A GraphQL request's parameters, from a JSON body (POST) or the query string (GET). */
export interface GraphqlParameters {
  readonly query?: unknown;
  readonly operationName?: unknown;
  readonly variables?: unknown;
  readonly extensions?: unknown;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A text content type without a charset gets utf-8, as Express's res.send wrote Apollo's answers. */
function withCharset(type: string): string {
  return /;\s*charset=/i.test(type) ? type : `${type}; charset=utf-8`;
}

/** Apollo answers the request (as its Express integration wrote it), with this request's context. */
export async function answerByApollo(
  apollo: ApolloServer<RequestContext>,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  context: () => Promise<RequestContext>,
  /** The URL Apollo reads the GET parameters from, when it is not the request's own. */
  url: string = req.url as string,
): Promise<void> {
  const headers = new HeaderMap();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const queryAt = url.indexOf('?');
  const response = await apollo.executeHTTPGraphQLRequest({
    httpGraphQLRequest: { method: (req.method as string).toUpperCase(), headers, search: queryAt === -1 ? '' : url.slice(queryAt), body: body ?? {} },
    context,
  });
  for (const [name, value] of response.headers) res.setHeader(name, name === 'content-type' ? withCharset(value) : value);
  res.statusCode = response.status ?? 200;
  if (response.body.kind === 'complete') {
    res.setHeader('Content-Length', Buffer.byteLength(response.body.string));
    res.end(response.body.string);
    return;
  }
  for await (const chunk of response.body.asyncIterator) res.write(chunk);
  res.end();
}

/** The request's GraphQL parameters: a POST's JSON body, or a GET's query string (its variables parsed). */
export function parametersOf(req: IncomingMessage, body: unknown): GraphqlParameters | undefined {
  if (req.method === 'POST') return isRecord(body) ? body : undefined;
  const url = req.url as string;
  const queryAt = url.indexOf('?');
  if (queryAt === -1) return undefined;
  const search = new URLSearchParams(url.slice(queryAt + 1));
  const variables = search.get('variables');
  let parsed: unknown;
  if (variables !== null && variables !== '') {
    try {
      parsed = JSON.parse(variables);
    } catch {
      parsed = undefined; // Apollo reports it
    }
  }
  return { query: search.get('query') ?? undefined, operationName: search.get('operationName') ?? undefined, variables: parsed };
}

/**
 * An empty `operationName` is an absent one (GraphQL over HTTP: "Setting the value of the operationName
 * parameter to the empty string is equivalent to omitting the operationName parameter"); Apollo would
 * look for an operation named "" instead. Returns the body or URL Apollo gets, without it.
 */
export function withoutEmptyOperationName(req: IncomingMessage, body: unknown): { body: unknown; url?: string } {
  if (req.method === 'POST') {
    if (!isRecord(body) || body.operationName !== '') return { body };
    return { body: { ...body, operationName: null } };
  }
  const url = req.url as string;
  const queryAt = url.indexOf('?');
  if (queryAt === -1) return { body };
  const search = new URLSearchParams(url.slice(queryAt + 1));
  if (search.get('operationName') !== '') return { body };
  search.delete('operationName');
  return { body, url: `${url.slice(0, queryAt)}?${search.toString()}` };
}
