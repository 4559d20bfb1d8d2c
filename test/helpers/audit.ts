import type { MikroORM } from '@mikro-orm/postgresql';
import { randomUUID } from 'node:crypto';
import type { HttpResponse, HttpsClient } from './https-client';
import type { SignedIn } from './dashboard';

/** Every field of an entry, as a client reads it. */
export const ENTRY_FIELDS = 'id action actor { kind id label } targetId summary clientIp requestId createdAt';

export const AUDIT_LOG = `query($page: Int, $limit: Int, $action: String, $actor: String, $since: DateTimeISO, $until: DateTimeISO, $after: String) {
  auditLog(page: $page, limit: $limit, action: $action, actor: $actor, since: $since, until: $until, after: $after) {
    entries { ${ENTRY_FIELDS} } total page limit nextCursor
  }
}`;

export interface AuditEntryView {
  id: string;
  action: string;
  actor: { kind: string; id: string | null; label: string };
  targetId: string;
  summary: Record<string, unknown>;
  clientIp: string | null;
  requestId: string | null;
  createdAt: string;
}

/** Who calls: an API key, or a dashboard session (same origin, anti-forgery header). */
export type Caller = { key: string } | { session: SignedIn };

/** A GraphQL request with its own X-Request-Id (returned), as either caller. */
export async function graphqlAs(
  client: HttpsClient,
  caller: Caller,
  query: string,
  variables?: Record<string, unknown>,
): Promise<HttpResponse & { requestId: string }> {
  const requestId = `req-${randomUUID()}`;
  const headers: Record<string, string> =
    'key' in caller
      ? { authorization: `Bearer ${caller.key}` }
      : { cookie: caller.session.cookie, 'x-csrf-token': caller.session.csrfToken, origin: client.baseUrl };
  const response = await client.request('POST', '/graphql', { headers: { ...headers, 'x-request-id': requestId }, json: { query, variables } });
  return Object.assign(response, { requestId });
}

/** A REST request with a key and its own X-Request-Id (returned). */
export async function restAs(client: HttpsClient, key: string, method: string, path: string, json?: unknown): Promise<HttpResponse & { requestId: string }> {
  const requestId = `req-${randomUUID()}`;
  const response = await client.request(method, path, { headers: { authorization: `Bearer ${key}`, 'x-request-id': requestId }, json });
  return Object.assign(response, { requestId });
}

/** The organization's entries as stored, oldest first (for counting what a change wrote, or did not). */
export async function storedEntries(orm: MikroORM, organizationId: string, action?: string): Promise<Array<Record<string, any>>> {
  return orm.em
    .fork()
    .getConnection()
    .execute(
      `select * from audit_log where organization_id = ? ${action ? 'and action = ?' : ''} order by created_at, id`,
      action ? [organizationId, action] : [organizationId],
    );
}
