import { validateSync, type ValidationError } from 'class-validator';
import type { FieldError } from '../errors/app-error';

function flatten(errors: ValidationError[], parent: string): FieldError[] {
  return errors.flatMap((error) => {
    const field = /^\d+$/.test(error.property) ? `${parent}[${error.property}]` : parent ? `${parent}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((message) => ({ field, message }));
    return [...own, ...flatten(error.children ?? [], field)];
  });
}

/**
 * Field rules declared with class-validator on an input class, every failure reported. Absent and
 * null fields are left to the caller (required-ness is the GraphQL type's job, null-ness the service's).
 */
export function validateInput(input: object): FieldError[] {
  return flatten(
    validateSync(input, { skipUndefinedProperties: true, skipNullProperties: true, forbidUnknownValues: false }),
    '',
  );
}
