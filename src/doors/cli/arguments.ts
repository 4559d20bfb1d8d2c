import { AppError, type FieldError } from '../../foundation/errors/app-error';

export const invalid = (field: string, message: string) => AppError.validation([{ field, message }]);

export function required(options: Record<string, string | undefined>, name: string): string {
  const value = options[name];
  if (value === undefined || value.trim() === '') throw invalid(name, `--${name} is required`);
  return value;
}

export function parseCsv(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

export function parseEnum<T extends Record<string, string>>(value: string, name: string, values: T): T[keyof T] {
  const match = Object.values(values).find((candidate) => candidate.toLowerCase() === value.toLowerCase());
  if (match === undefined) throw invalid(name, `--${name} must be one of ${Object.values(values).map((v) => v.toLowerCase()).join(', ')}`);
  return match as T[keyof T];
}

export function parsePositiveInteger(value: string, name: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw invalid(name, `--${name} must be a whole number of at least 1`);
  return Number(value);
}

export function parseWholeNumber(value: string, name: string): number {
  if (!/^\d+$/.test(value)) throw invalid(name, `--${name} must be a whole number`);
  return Number(value);
}

export function parseDateTime(value: string, name: string): Date {
  const date = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(date.getTime())) {
    throw invalid(name, `--${name} must be an ISO 8601 date-time, e.g. 2027-01-01T00:00:00Z`);
  }
  return date;
}

/**
 * Runs several option parsers and reports every failure at once (one VALIDATION_ERROR), instead of
 * stopping at the first bad option.
 */
export function parseAll<T extends Record<string, () => unknown>>(parsers: T): { [K in keyof T]: ReturnType<T[K]> } {
  const errors: FieldError[] = [];
  const values: Record<string, unknown> = {};
  for (const [name, parse] of Object.entries(parsers)) {
    try {
      values[name] = parse();
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'VALIDATION_ERROR') throw error;
      errors.push(...((error.details?.errors as FieldError[] | undefined) ?? []));
    }
  }
  // The CLI's one pass over its options, as assertValidInput is the modules' (validate-input.ts): not
  // that helper itself, which loads class-validator, and this file is loaded with the command list,
  // which stays light (see Command). The option parsers above throw AppError.validation for this loop.
  if (errors.length > 0) throw AppError.validation(errors);
  return values as { [K in keyof T]: ReturnType<T[K]> };
}
