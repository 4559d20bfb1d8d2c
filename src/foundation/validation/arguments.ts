import type { FieldError } from '../errors/app-error';
import { SLUG_PATTERN } from './rules';

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;
const MAX_PAGE = 1_000_000;

/** Bounds of the arguments every list takes, by argument name (D4). */
const ARGUMENT_BOUNDS: Readonly<Record<string, { min: number; max: number }>> = {
  page: { min: 1, max: MAX_PAGE },
  limit: { min: 1, max: MAX_LIMIT },
};

/** The bounds of a list argument (`page`, `limit`), as the OpenAPI document states them. */
export function argumentBounds(name: 'page' | 'limit'): { minimum: number; maximum: number } {
  const bounds = ARGUMENT_BOUNDS[name];
  return { minimum: bounds.min, maximum: bounds.max };
}

/**
 * The rules of a root field's argument whose value has the right type, by argument name: checked with
 * the types, before anything runs, for both doors (the resolvers check them again for callers that
 * bypass the doors).
 */
export function argumentRuleErrors(name: string, value: unknown): FieldError[] {
  if (name === 'eventSlug' && typeof value === 'string') return slugErrors(name, value);
  const bounds = Object.hasOwn(ARGUMENT_BOUNDS, name) ? ARGUMENT_BOUNDS[name] : undefined;
  if (!bounds || typeof value !== 'number' || (value >= bounds.min && value <= bounds.max)) return [];
  return [{ field: name, message: `${name} must be between ${bounds.min} and ${bounds.max}` }];
}

/** `page` 1 to 1,000,000 and `limit` 1 to 100, as for the event list (D4). */
export function paginationErrors(page: number, limit: number): FieldError[] {
  return [...argumentRuleErrors('page', page), ...argumentRuleErrors('limit', limit)];
}

const MAX_SLUG_LENGTH = 100;

/** A slug argument that can never name an event is bad input, not a missing event. */
export function slugErrors(field: string, value: string): FieldError[] {
  return SLUG_PATTERN.test(value) && value.length <= MAX_SLUG_LENGTH
    ? []
    : [{ field, message: `${field} must be an event slug: lower-case letters and digits joined by single hyphens` }];
}

/** What slugErrors checks, as the OpenAPI document states it (a REST path parameter). */
export function slugBounds(): { pattern: string; maxLength: number } {
  return { pattern: SLUG_PATTERN.source, maxLength: MAX_SLUG_LENGTH };
}

const idPatterns = new Map<string, RegExp>();

/** `<prefix>_` and an alphanumeric part of 1 to 36 characters. */
export function idPattern(prefix: string): RegExp {
  let pattern = idPatterns.get(prefix);
  if (pattern === undefined) {
    pattern = new RegExp(`^${prefix}_[A-Za-z0-9]{1,36}$`);
    idPatterns.set(prefix, pattern);
  }
  return pattern;
}

/** Server-assigned ids are `<prefix>_` and an alphanumeric part; anything else is bad input. */
export function idErrors(field: string, value: string, prefix: string): FieldError[] {
  return idPattern(prefix).test(value) ? [] : [{ field, message: `${field} must be an id starting with ${prefix}_` }];
}

/** What idErrors checks, as the OpenAPI document states it (a REST path parameter). */
export function idBounds(prefix: string): { pattern: string } {
  return { pattern: idPattern(prefix).source };
}
