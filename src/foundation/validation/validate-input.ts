import { validateSync, type ValidationError } from 'class-validator';
import { AppError, type FieldError } from '../errors/app-error';
import { notNullFieldsOfClass } from './rules';

function flatten(errors: ValidationError[], parent: string): FieldError[] {
  return errors.flatMap((error) => {
    const field = /^\d+$/.test(error.property) ? `${parent}[${error.property}]` : parent ? `${parent}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((message) => ({ field, message }));
    return [...own, ...flatten(error.children ?? [], field)];
  });
}

/** The options every input is validated with (see validateInput). */
const OPTIONS = { skipUndefinedProperties: true, skipNullProperties: true, forbidUnknownValues: false } as const;

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
  const nullErrors = notNullFieldsOfClass(Object.getPrototypeOf(input) as object)
    .filter((field) => (input as Record<string, unknown>)[field] === null)
    .map((field) => ({ field, message: `${field} cannot be null` }));
  const failures = validateSync(input, OPTIONS);
  const fieldErrors = failures.length === 0 ? [] : flatten(failures, '');
  const crossField = (input.constructor as WithCrossFieldRules).crossFieldErrors?.(input) ?? [];
  return [...nullErrors, ...fieldErrors, ...crossField];
}

/**
 * One part of an input's check: the failures a rule function found (an argument rule such as
 * slugErrors, idErrors or paginationErrors, a policy's field rules, a uniqueness check), or an input
 * class instance, whose own rules run here (validateInput).
 */
export type InputPart = readonly FieldError[] | object;

/** Every failing field of an input, part by part in the order given. */
export function inputErrors(...parts: InputPart[]): FieldError[] {
  const errors: FieldError[] = [];
  for (const part of parts) errors.push(...(Array.isArray(part) ? (part as FieldError[]) : validateInput(part)));
  return errors;
}

/** The input's failures as one VALIDATION_ERROR listing all of them, or undefined when it has none. */
export function invalidInput(...parts: InputPart[]): AppError | undefined {
  const errors = inputErrors(...parts);
  return errors.length > 0 ? AppError.validation(errors) : undefined;
}

/**
 * The one way an input is refused (D4): every part checked, in one pass, and every failing field of
 * all of them thrown as one VALIDATION_ERROR, in the order of the parts; nothing when all pass. A rule
 * that needs stored state runs in a second pass only where the first must answer before the row is
 * looked up or locked (said where it happens). A refusal that is not an input's check — one stored-state
 * rule of a policy (the last admin, a revoked key), a transport failure (a body that is not JSON) —
 * is thrown as AppError.validation where it is found.
 */
export function assertValidInput(...parts: InputPart[]): void {
  const errors = inputErrors(...parts);
  if (errors.length > 0) throw AppError.validation(errors);
}
