import {
  coerceInputValue,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isInputType,
  isNonNullType,
  typeFromAST,
  type GraphQLError,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { AppError, type FieldError } from '../errors/app-error';
import { fieldRuleErrors } from './input-rules';

type Path = ReadonlyArray<string | number>;

function formatPath(path: Path): string {
  return path.reduce<string>((out, key) => (typeof key === 'number' ? `${out}[${key}]` : out ? `${out}.${key}` : key), '');
}

const FRIENDLY_MESSAGES: Array<[RegExp, string]> = [
  [/^Int cannot represent/, 'must be an integer'],
  [/^Float cannot represent/, 'must be a number'],
  [/^String cannot represent/, 'must be a string'],
  [/^Boolean cannot represent/, 'must be true or false'],
  [/^ID cannot represent/, 'must be a string'],
  [/^DateTime(ISO)? cannot represent/, 'must be an ISO 8601 date-time with a timezone, e.g. 2027-03-01T09:00:00Z'],
  [/^Expected type ".*" to be an object/, 'must be an object'],
  [/^Expected non-nullable type/, 'must not be null'],
];

function describe(error: GraphQLError, schema: GraphQLSchema): string {
  const enumMatch = /^Value .* does not exist in "(\w+)" enum|^Enum "(\w+)" cannot represent/.exec(error.message);
  if (enumMatch) {
    const type = schema.getType(enumMatch[1] ?? enumMatch[2]);
    if (type && isEnumType(type)) return `must be one of ${type.getValues().map((value) => value.name).join(', ')}`;
  }
  for (const [pattern, message] of FRIENDLY_MESSAGES) if (pattern.test(error.message)) return message;
  return error.message;
}

/** Where a value holds text with a NUL character, which PostgreSQL cannot store in any text column. */
function nulCharacterPaths(value: unknown, path: Path = []): Path[] {
  if (typeof value === 'string') return value.includes('\u0000') ? [path] : [];
  if (Array.isArray(value)) return value.flatMap((item, index) => nulCharacterPaths(item, [...path, index]));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) => nulCharacterPaths(item, [...path, key]));
  }
  return [];
}

/**
 * Checks an operation's variables against their declared types the way GraphQL execution would, but
 * reports every failing field at once as VALIDATION_ERROR (`details.errors`), for both doors alike.
 * Fields of an input-object variable are named from inside it (`capacity`, `ticketTypes[0].price`).
 * When some fields fail their type, the field rules of the others are reported with them.
 */
export function assertValidVariables(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  inputs: Readonly<Record<string, unknown>>,
): void {
  const errors: FieldError[] = [];
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    const type = typeFromAST(schema, definition.type);
    if (!type || !isInputType(type)) continue;
    const value = inputs[name];
    if (value === undefined) {
      if (isNonNullType(type) && !definition.defaultValue) errors.push({ field: name, message: 'is required' });
      continue;
    }
    const isObjectVariable = isInputObjectType(getNamedType(type));
    const errorsBefore = errors.length;
    for (const path of nulCharacterPaths(value)) {
      const field = formatPath(isObjectVariable ? path : [name, ...path]) || name;
      errors.push({ field, message: 'must not contain the NUL character (\\u0000)' });
    }
    const coerced = coerceInputValue(value, type, (path, _invalid, error) => {
      const base = isObjectVariable ? path : [name, ...path];
      const missing = /^Field "(\w+)" of required type ".*" was not provided/.exec(error.message);
      const unknown = /^Field "(\w+)" is not defined by type/.exec(error.message);
      if (missing) errors.push({ field: formatPath([...base, missing[1]]), message: 'is required' });
      else if (unknown) errors.push({ field: formatPath([...base, unknown[1]]), message: 'is not a known field' });
      else errors.push({ field: formatPath(base) || name, message: describe(error, schema) });
    });
    if (isObjectVariable && errors.length > errorsBefore) {
      errors.push(...fieldRuleErrors(coerced, type, errors.slice(errorsBefore).map((error) => error.field)));
    }
  }
  if (errors.length > 0) throw AppError.validation(errors);
}
