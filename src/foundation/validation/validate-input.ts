import { validateSync, type ValidationError } from 'class-validator';
import { AppError, type FieldError } from '../errors/app-error';
import { notNullFieldsOf } from './rules';

function flatten(errors: ValidationError[], parent: string): FieldError[] {
  return errors.flatMap((error) => {
    const field = /^\d+$/.test(error.property) ? `${parent}[${error.property}]` : parent ? `${parent}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((message) => ({ field, message }));
    return [...own, ...flatten(error.children ?? [], field)];
  });
}

/** An input class may declare the rules that compare its fields, beside the rules of each field. */
interface WithCrossFieldRules {
  crossFieldErrors?(input: object): FieldError[];
}

/**
 * An input checked against its one schema, the input class: the field rules declared on it with
 * class-validator, the fields that may not be null (@NotNull), and the rules that compare fields
 * (a static `crossFieldErrors`). Every failure is reported. Absent fields are left alone (required-ness
 * is the GraphQL type's job); rules that need stored state run in the command, through the policy.
 */
export function validateInput(input: object): FieldError[] {
  const nullErrors = notNullFieldsOf(input)
    .filter((field) => (input as Record<string, unknown>)[field] === null)
    .map((field) => ({ field, message: `${field} cannot be null` }));
  const fieldErrors = flatten(
    validateSync(input, { skipUndefinedProperties: true, skipNullProperties: true, forbidUnknownValues: false }),
    '',
  );
  const crossField = (input.constructor as WithCrossFieldRules).crossFieldErrors?.(input) ?? [];
  return [...nullErrors, ...fieldErrors, ...crossField];
}

/** The input's failures as one VALIDATION_ERROR (with `more` found by the caller), or nothing. */
export function assertValidInput(input: object, ...more: FieldError[]): void {
  const errors = [...validateInput(input), ...more];
  if (errors.length > 0) throw AppError.validation(errors);
}
