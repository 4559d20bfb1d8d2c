import {
  coerceInputValue,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isInputType,
  isListType,
  isNonNullType,
  Kind,
  TypeInfo,
  typeFromAST,
  valueFromASTUntyped,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type GraphQLError,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type ValueNode,
} from 'graphql';
import { getMetadataStorage } from 'type-graphql';
import type { FieldError } from '../../foundation/errors/app-error';
import { argumentRuleErrors } from '../../foundation/validation/arguments';
import { validateInput } from '../../foundation/validation/validate-input';
import { AppError } from '../../foundation/errors/app-error';

/*
 * The arguments of an operation checked once, before anything runs, the same way for both doors (REST
 * routes run a named operation through here too) and for values written inline or sent as variables:
 * every failing field at once, as one VALIDATION_ERROR. Fields are named from the argument: a scalar
 * argument by its name (`limit`), an input object from inside it (`capacity`, `ticketTypes[0].price`),
 * never by the variable that carried the value. Messages start with the field's own name, as the field
 * rules' messages do ("capacity must be an integer").
 */

type Path = ReadonlyArray<string | number>;

function formatPath(path: Path): string {
  return path.reduce<string>((out, key) => (typeof key === 'number' ? `${out}[${key}]` : out ? `${out}.${key}` : key), '');
}

/** The last property named in a path (`ticketTypes[0].price` → `price`), as field rule messages say it. */
function subjectOf(path: Path, fallback: string): string {
  for (let index = path.length - 1; index >= 0; index -= 1) if (typeof path[index] === 'string') return String(path[index]);
  return fallback;
}

const TYPE_MESSAGES: Array<[RegExp, string]> = [
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
  for (const [pattern, message] of TYPE_MESSAGES) if (pattern.test(error.message)) return message;
  return error.message;
}

/** Deepest nesting of a value that is looked into; deeper values are refused, never walked recursively. */
const MAX_VALUE_DEPTH = 32;

/**
 * Where a value holds text with a NUL character, which PostgreSQL cannot store in any text column; or
 * the value nests too deeply to be an input of ours. Iterative: the depth of a value costs no stack.
 */
function nulCharacterPaths(value: unknown): { paths: Path[]; tooDeep: boolean } {
  const paths: Path[] = [];
  const stack: Array<[unknown, Path]> = [[value, []]];
  while (stack.length > 0) {
    const [current, path] = stack.pop()!;
    if (typeof current === 'string') {
      if (current.includes('\u0000')) paths.push(path);
    } else if (current !== null && typeof current === 'object') {
      if (path.length >= MAX_VALUE_DEPTH) return { paths, tooDeep: true };
      const entries = Array.isArray(current) ? current.map((item, index) => [index, item] as const) : Object.entries(current);
      for (const [key, item] of entries) stack.push([item, [...path, key]]);
    }
  }
  return { paths: paths.reverse(), tooDeep: false };
}

type InputClass = new () => Record<string, unknown>;

/** The class type-graphql built an input type from, found by the type's GraphQL name. */
function inputClassOf(typeName: string): InputClass | undefined {
  return getMetadataStorage().inputTypes.find((metadata) => metadata.name === typeName)?.target as InputClass | undefined;
}

/** A coerced value as instances of its input classes, so their rules run (bounded by the type's own depth). */
function toInstances(value: unknown, type: GraphQLInputType): unknown {
  const inner = isNonNullType(type) ? type.ofType : type;
  if (value === null || value === undefined) return value;
  if (isListType(inner)) return Array.isArray(value) ? value.map((item) => toInstances(item, inner.ofType)) : value;
  if (!isInputObjectType(inner) || typeof value !== 'object') return value;
  const InputClassOfType = inputClassOf(inner.name);
  const instance: Record<string, unknown> = InputClassOfType ? new InputClassOfType() : {};
  const fields = inner.getFields();
  for (const [name, fieldValue] of Object.entries(value)) {
    instance[name] = Object.hasOwn(fields, name) ? toInstances(fieldValue, fields[name].type) : fieldValue;
  }
  return instance;
}

/**
 * The rules of an input object whose other fields failed their types, so that one answer names every
 * failing field; fields with a type error (and what is below them) are left to that error.
 */
function fieldRuleErrors(coerced: unknown, type: GraphQLInputType, typeErrorFields: readonly string[]): FieldError[] {
  const instance = toInstances(coerced, type);
  if (instance === null || typeof instance !== 'object' || Array.isArray(instance)) return [];
  const coveredBy = (field: string) =>
    typeErrorFields.some((typeField) => field === typeField || field.startsWith(`${typeField}.`) || field.startsWith(`${typeField}[`));
  return validateInput(instance).filter((error) => !coveredBy(error.field));
}

/**
 * One argument's value against its type, its input rules when a type failed, and (on root fields) its
 * argument rules. The argument rules of a nested field (Event.bookings) are its resolver's: that one
 * field fails, with the rest of the answer kept.
 */
function argumentErrors(
  schema: GraphQLSchema,
  name: string,
  type: GraphQLInputType,
  value: unknown,
  isRoot: boolean,
  deferred: Array<() => FieldError[]>,
): FieldError[] {
  const isObject = isInputObjectType(getNamedType(type));
  const base: Path = isObject ? [] : [name];
  const errors: FieldError[] = [];
  const { paths, tooDeep } = nulCharacterPaths(value);
  if (tooDeep) return [{ field: name, message: `${name} nests more than ${MAX_VALUE_DEPTH} levels deep` }];
  for (const path of paths) {
    const full = [...base, ...path];
    errors.push({ field: formatPath(full) || name, message: `${subjectOf(full, name)} must not contain the NUL character (\\u0000)` });
  }
  const coerced = coerceInputValue(value, type, (path, _invalid, error) => {
    const full = [...base, ...path];
    const missing = /^Field "(\w+)" of required type ".*" was not provided/.exec(error.message);
    const unknown = /^Field "(\w+)" is not defined by type/.exec(error.message);
    if (missing) errors.push({ field: formatPath([...full, missing[1]]), message: `${missing[1]} is required` });
    else if (unknown) errors.push({ field: formatPath([...full, unknown[1]]), message: `${unknown[1]} is not a known field` });
    else errors.push({ field: formatPath(full) || name, message: `${subjectOf(full, name)} ${describe(error, schema)}` });
  });
  if (isObject && errors.length > 0) errors.push(...fieldRuleErrors(coerced, type, errors.map((error) => error.field)));
  // A well-typed input's rules run in its command; when another argument fails here, they join this answer.
  else if (isObject) deferred.push(() => fieldRuleErrors(coerced, type, []));
  if (isRoot && !isObject && errors.length === 0) errors.push(...argumentRuleErrors(name, coerced));
  return errors;
}

/** Where an operation (with the fragments it may spread) has an argument to check: all of it fixed by the document. */
interface ArgumentSite {
  readonly name: string;
  readonly type: GraphQLInputType;
  readonly value: ValueNode;
  /** The field is a root field (its argument rules run here). */
  readonly isRoot: boolean;
}

interface ArgumentPlan {
  readonly schema: GraphQLSchema;
  readonly document: DocumentNode;
  /** Declared variables that must have a value (non-null, no default), in declaration order. */
  readonly required: readonly string[];
  readonly sites: readonly ArgumentSite[];
}

/**
 * What the document says about an operation's arguments, found once per parsed operation (REST routes
 * and Apollo's document cache reuse theirs): the visit with type information costs more than checking
 * a request's values, and nothing in it depends on the variables.
 */
const plans = new WeakMap<OperationDefinitionNode, ArgumentPlan>();

/** The plan of an operation not planned yet (assertValidArguments looks in `plans` first). */
function argumentPlan(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): ArgumentPlan {
  const declared = new Map((operation.variableDefinitions ?? []).map((definition) => [definition.variable.name.value, definition]));
  const required: string[] = [];
  for (const [name, definition] of declared) {
    const type = typeFromAST(schema, definition.type);
    if (type && isNonNullType(type) && !definition.defaultValue) required.push(name);
  }
  const sites: ArgumentSite[] = [];
  const typeInfo = new TypeInfo(schema);
  const rootTypes = new Set<GraphQLNamedType | null | undefined>([schema.getQueryType(), schema.getMutationType()]);
  rootTypes.delete(null);
  const fragments = document.definitions.filter((definition) => definition.kind === Kind.FRAGMENT_DEFINITION);
  for (const root of [operation, ...fragments]) {
    visit(
      root,
      visitWithTypeInfo(typeInfo, {
        Argument(node) {
          const argument = typeInfo.getArgument();
          if (!argument || !isInputType(argument.type)) return;
          // Variables of another operation in the same document are not this request's: leave them out.
          if (node.value.kind === Kind.VARIABLE && !declared.has(node.value.name.value)) return;
          sites.push({ name: node.name.value, type: argument.type, value: node.value, isRoot: rootTypes.has(typeInfo.getParentType()) });
        },
      }),
    );
  }
  const plan = { schema, document, required, sites };
  plans.set(operation, plan);
  return plan;
}

/**
 * Checks every argument of `operation` (and of the fragments it may spread) with its variables, before
 * execution: VALIDATION_ERROR listing every failing field. Arguments are found with graphql's
 * iterative visitor (once per parsed operation), so a deep document costs no stack.
 */
export function assertValidArguments(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Readonly<Record<string, unknown>>,
): void {
  const errors: FieldError[] = [];
  const deferred: Array<() => FieldError[]> = [];
  const cached = plans.get(operation);
  const plan = cached?.schema === schema && cached.document === document ? cached : argumentPlan(schema, document, operation);
  for (const name of plan.required) if (variables[name] === undefined) errors.push({ field: name, message: `${name} is required` });
  for (const site of plan.sites) {
    if (site.value.kind === Kind.VARIABLE && variables[site.value.name.value] === undefined) continue;
    const value = valueFromASTUntyped(site.value, variables);
    errors.push(...argumentErrors(schema, site.name, site.type, value, site.isRoot, deferred));
  }
  if (errors.length === 0) return;
  for (const rules of deferred) errors.push(...rules());
  throw AppError.validation([...new Map(errors.map((error) => [`${error.field}\u0000${error.message}`, error])).values()]);
}
