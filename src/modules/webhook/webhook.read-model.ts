import type { EntityManager } from '@mikro-orm/postgresql';
import { paginationErrors } from '../../foundation/validation/arguments';
import { findEndpoint, pageOfMessages } from './webhook.repository';
import type { WebhookMessageList, WebhookMessageStatus } from './webhook.types';
import { assertValidInput } from '../../foundation/validation/validate-input';
import type { ListCursors } from '../../platform/crypto/list-cursor';
import { cursorErrors, openCursor } from '../../platform/graphql/list-cursors';

/** What a messages cursor is bound to besides the organization: the endpoint and the status filter. */
const messagesListOf = (endpointId: string, status: WebhookMessageStatus | null): string => JSON.stringify(['webhook-messages', endpointId, status]);

/**
 * Query.webhookMessages (D18): `page` and `limit` checked (400 listing both), the endpoint found in the
 * caller's organization (else WEBHOOK_ENDPOINT_NOT_FOUND), then one page of its messages, newest
 * first, each with every attempt: by page number, or after a cursor (D25). Without `cursors` (a
 * caller that never pages on) no nextCursor is made.
 */
export async function listWebhookMessages(
  em: EntityManager,
  organizationId: string,
  endpointId: string,
  query: { page: number; limit: number; status?: WebhookMessageStatus | null; after?: string | null },
  cursors?: ListCursors,
): Promise<WebhookMessageList> {
  assertValidInput(paginationErrors(query.page, query.limit), cursorErrors(query.page, query.after));
  const endpoint = await findEndpoint(em, organizationId, endpointId);
  const status = query.status ?? null;
  const list = messagesListOf(endpoint.id, status);
  if (query.after != null && !cursors) throw new Error('a cursor page needs the list cursors');
  const after = query.after != null && cursors ? openCursor(cursors, organizationId, list, query.after) : null;
  const { messages, total, next } = await pageOfMessages(em, organizationId, endpoint.id, { page: query.page, limit: query.limit, status, after });
  const nextCursor = next && cursors ? cursors.seal(organizationId, list, next) : null;
  return { messages, total, page: query.page, limit: query.limit, nextCursor };
}
