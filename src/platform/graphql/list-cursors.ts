import { AppError, type FieldError } from '../../foundation/errors/app-error';
import type { ListCursors } from '../crypto/list-cursor';
import type { ListPosition } from '../db/list-position';
import type { RequestContext } from './request-context';

/** The cursors of a request's lists (D25): every request context of a running service carries them. */
export function cursorsOf(context: RequestContext): ListCursors {
  if (!context.cursors) throw new Error('no list cursors in this request context');
  return context.cursors;
}

/**
 * `after` and a page number do not combine: a cursor names where its page starts. `page` may be left
 * out (or be 1, its default) beside `after`.
 */
export function cursorErrors(page: number, after: string | null | undefined): FieldError[] {
  return after != null && page !== 1 ? [{ field: 'page', message: 'page cannot be combined with after: a cursor names where its page starts' }] : [];
}

/** The position a cursor names in this organization's list, or VALIDATION_ERROR on `after`. */
export function openCursor(cursors: ListCursors, organizationId: string, list: string, after: string): ListPosition {
  const position = cursors.open(organizationId, list, after);
  if (!position || position.length !== 2 || !/^-?\d{1,19}$/.test(position[0])) {
    throw AppError.validation([
      { field: 'after', message: 'after must be a nextCursor this list returned (same organization, order and filters)' },
    ]);
  }
  return [position[0], position[1]];
}
