import type { FieldError } from '../errors/app-error';
import { SLUG_PATTERN } from './rules';

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;
const MAX_PAGE = 1_000_000;

/** `page` 1 to 1,000,000 and `limit` 1 to 100, as for the event list (D4). */
export function paginationErrors(page: number, limit: number): FieldError[] {
  const errors: FieldError[] = [];
  if (page < 1 || page > MAX_PAGE) errors.push({ field: 'page', message: `page must be between 1 and ${MAX_PAGE}` });
  if (limit < 1 || limit > MAX_LIMIT) errors.push({ field: 'limit', message: `limit must be between 1 and ${MAX_LIMIT}` });
  return errors;
}

/** A slug argument that can never name an event is bad input, not a missing event. */
export function slugErrors(field: string, value: string): FieldError[] {
  return SLUG_PATTERN.test(value) && value.length <= 100
    ? []
    : [{ field, message: `${field} must be an event slug: lower-case letters and digits joined by single hyphens` }];
}

const ID_SHAPE = /^[A-Za-z0-9]{1,36}$/;

/** Server-assigned ids are `<prefix>_` and an alphanumeric part; anything else is bad input. */
export function idErrors(field: string, value: string, prefix: string): FieldError[] {
  const [head, rest] = [value.slice(0, prefix.length + 1), value.slice(prefix.length + 1)];
  return head === `${prefix}_` && ID_SHAPE.test(rest) ? [] : [{ field, message: `${field} must be an id starting with ${prefix}_` }];
}
