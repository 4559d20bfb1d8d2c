import type { HttpResponse, HttpsClient } from './https-client';

export type IdempotencyDoor = 'rest' | 'graphql';

const CREATE_EVENT = 'mutation Create($input: CreateEventInput!) { createEvent(input: $input) { id slug title status } }';

/** A create through one door with an Idempotency-Key (none when `idempotencyKey` is undefined). */
export function createWithKey(
  client: HttpsClient,
  door: IdempotencyDoor,
  apiKey: string,
  idempotencyKey: string | undefined,
  input: Record<string, unknown>,
): Promise<HttpResponse> {
  const headers: Record<string, string> = { authorization: `Bearer ${apiKey}` };
  if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
  return door === 'rest'
    ? client.request('POST', '/v1/events', { headers, json: input })
    : client.request('POST', '/graphql', { headers, json: { query: CREATE_EVENT, variables: { input } } });
}

/** The status a create through `door` answers when it runs (REST 201, GraphQL 200). */
export const createdStatus = (door: IdempotencyDoor) => (door === 'rest' ? 201 : 200);

/** The error code of an answer from either door. */
export const errorCodeOf = (response: HttpResponse): string | undefined =>
  response.body?.error?.code ?? response.body?.errors?.[0]?.extensions?.code;
