import { isInputObjectType, isListType, isNonNullType, type GraphQLInputType } from 'graphql';
import { getMetadataStorage } from 'type-graphql';
import type { FieldError } from '../errors/app-error';
import { validateInput } from '../validation/validate-input';

type InputClass = new () => Record<string, unknown>;

/** The class type-graphql built an input type from, found by the type's GraphQL name. */
function inputClassOf(typeName: string): InputClass | undefined {
  return getMetadataStorage().inputTypes.find((metadata) => metadata.name === typeName)?.target as InputClass | undefined;
}

/** A coerced value as instances of its input classes, so nested class-validator rules run too. */
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
 * The field rules (class-validator) of the parts of an input that did coerce, so a request with a
 * type error also hears about its other bad fields in the same answer. `coerced` holds undefined
 * where coercion failed; rules on those fields, and below them, are left out (their type error
 * already names them). Rules that compare fields or need the database run in the services, once
 * the types are right.
 */
export function fieldRuleErrors(coerced: unknown, type: GraphQLInputType, typeErrorFields: readonly string[]): FieldError[] {
  const instance = toInstances(coerced, type);
  if (instance === null || typeof instance !== 'object' || Array.isArray(instance)) return [];
  const coveredBy = (field: string) =>
    typeErrorFields.some((typeField) => field === typeField || field.startsWith(`${typeField}.`) || field.startsWith(`${typeField}[`));
  return validateInput(instance).filter((error) => !coveredBy(error.field));
}
