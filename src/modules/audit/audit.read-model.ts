import type { FieldError } from '../../foundation/errors/app-error';
import { paginationErrors } from '../../foundation/validation/arguments';
import { assertValidInput } from '../../foundation/validation/validate-input';
import { AUDIT_ACTIONS } from '../../platform/audit/audit-log';
import { cursorErrors, cursorsOf, openCursor } from '../../platform/graphql/list-cursors';
import type { RequestContext } from '../../platform/graphql/request-context';
import { auditPage, type AuditQuery } from './audit.repository';
import type { AuditLogList } from './audit.types';

/** What an audit cursor is bound to besides the organization: the filters. */
const auditListOf = (query: Omit<AuditQuery, 'page' | 'limit' | 'after'>): string =>
  JSON.stringify(['audit', query.action ?? null, query.actor ?? null, query.since?.toISOString() ?? null, query.until?.toISOString() ?? null]);

const MAX_ACTOR_LENGTH = 254;

/** The filters' own rules: a known action, an actor of sensible length, a range that is one. */
function filterErrors(query: Omit<AuditQuery, 'after'>): FieldError[] {
  const errors: FieldError[] = [];
  if (query.action != null && !(AUDIT_ACTIONS as readonly string[]).includes(query.action)) {
    errors.push({ field: 'action', message: `action must be one of ${AUDIT_ACTIONS.join(', ')}` });
  }
  if (query.actor != null && (query.actor.length === 0 || query.actor.length > MAX_ACTOR_LENGTH)) {
    errors.push({ field: 'actor', message: `actor must be 1 to ${MAX_ACTOR_LENGTH} characters: a member's id or email, a key's id or prefix, or cli` });
  }
  if (query.since != null && query.until != null && query.until <= query.since) {
    errors.push({ field: 'until', message: 'until must be after since' });
  }
  return errors;
}

/** Query.auditLog (D26): the organization's entries, newest first, filtered; pages by number or cursor. */
export async function auditLogPage(context: RequestContext, query: Omit<AuditQuery, 'after'> & { after?: string | null }): Promise<AuditLogList> {
  assertValidInput(paginationErrors(query.page, query.limit), filterErrors(query), cursorErrors(query.page, query.after));
  const organizationId = context.auth.organization.id;
  const cursors = cursorsOf(context);
  const list = auditListOf(query);
  const after = query.after != null ? openCursor(cursors, organizationId, list, query.after) : null;
  const { entries, total, next } = await auditPage(context.em, organizationId, { ...query, after });
  return { entries, total, page: query.page, limit: query.limit, nextCursor: next ? cursors.seal(organizationId, list, next) : null };
}
