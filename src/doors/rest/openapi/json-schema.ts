import {
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  Kind,
  type FragmentDefinitionNode,
  type GraphQLInputType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type GraphQLType,
  type SelectionSetNode,
} from 'graphql';

import { getMetadataStorage } from 'type-graphql';
import { fieldRulesOf, NUL_FREE_PATTERN, type FieldRules } from '../../../foundation/validation/rule-schemas';

export type JsonSchema = Record<string, unknown>;

/** Named schemas collected while converting, destined for `components.schemas`. */
export type SchemaComponents = Record<string, JsonSchema>;

/**
 * What graphql-scalars' DateTimeISO accepts beside `format: date-time` (which also lets through a
 * space for the T, `+0100`, `+01` and a leap second): `T`, seconds, optional fraction, `Z` or `±hh:mm`.
 */
const DATE_TIME_PATTERN = '^\\d{4}-\\d{2}-\\d{2}[Tt]\\d{2}:\\d{2}:[0-5]\\d(\\.\\d+)?([Zz]|[+-]\\d{2}:\\d{2})$';

const SCALARS: Record<string, JsonSchema> = {
  String: { type: 'string' },
  ID: { type: 'string' },
  // GraphQL's Int is 32 bits.
  Int: { type: 'integer', minimum: -2147483648, maximum: 2147483647 },
  Float: { type: 'number' },
  Boolean: { type: 'boolean' },
  DateTimeISO: { type: 'string', format: 'date-time', pattern: DATE_TIME_PATTERN, examples: ['2027-03-01T09:00:00.000Z'] },
};

/** The class type-graphql built an input type from (its decorators hold the field rules). */
function inputClassOf(typeName: string): (new () => unknown) | undefined {
  return getMetadataStorage().inputTypes.find((metadata) => metadata.name === typeName)?.target as (new () => unknown) | undefined;
}

/** Every pattern a string must match: one as `pattern`, several as `allOf` (JSON Schema has one `pattern` per schema). */
export function withPatterns(schema: JsonSchema, patterns: readonly string[]): JsonSchema {
  const { pattern, ...rest } = schema;
  const all = [...new Set([...patterns, ...(typeof pattern === 'string' ? [pattern] : [])])];
  if (all.length === 0) return rest;
  if (all.length === 1) return { ...rest, pattern: all[0] };
  return { ...rest, allOf: all.map((one) => ({ pattern: one })) };
}

export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/** `null` is a value the field may take (D5: absent optional fields are null, never omitted). */
function nullable(schema: JsonSchema): JsonSchema {
  if (typeof schema.type === 'string') return { ...schema, type: [schema.type, 'null'] };
  return { anyOf: [schema, { type: 'null' }] };
}

export function withDescription(schema: JsonSchema, description: string | null | undefined): JsonSchema {
  return description ? { ...schema, description } : schema;
}

/**
 * GraphQL types as JSON Schema (OpenAPI 3.1): scalars, enums, lists, non-null; input objects and
 * enums become named components; output objects follow the selection set the REST route returns.
 */
export class SchemaConverter {
  readonly components: SchemaComponents = {};

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  ) {}

  private leaf(type: GraphQLType): JsonSchema {
    if (isEnumType(type)) {
      if (!this.components[type.name]) {
        this.components[type.name] = withDescription({ type: 'string', enum: type.getValues().map((value) => value.value as string) }, type.description);
      }
      return ref(type.name);
    }
    if (isScalarType(type)) return SCALARS[type.name] ?? withDescription({}, type.description);
    throw new Error(`Not a leaf type: ${String(type)}`);
  }

  input(type: GraphQLInputType): JsonSchema {
    if (isNonNullType(type)) return this.inputInner(type.ofType);
    return nullable(this.inputInner(type));
  }

  private inputInner(type: GraphQLInputType): JsonSchema {
    if (isListType(type)) return { type: 'array', items: this.input(type.ofType) };
    if (!isInputObjectType(type)) {
      const leaf = this.leaf(type);
      // Text sent to the server never holds a NUL character (every door refuses it).
      return leaf.type === 'string' && !leaf.format ? withPatterns(leaf, [NUL_FREE_PATTERN]) : leaf;
    }
    if (!this.components[type.name]) {
      this.components[type.name] = {}; // placeholder: recursive inputs terminate here
      const properties: Record<string, JsonSchema> = {};
      const required: string[] = [];
      const inputClass = inputClassOf(type.name);
      const rules: FieldRules = inputClass ? fieldRulesOf(inputClass) : { fields: {}, notNull: [] };
      for (const field of Object.values(type.getFields())) {
        const isRequired = isNonNullType(field.type) && field.defaultValue === undefined;
        // The field's own rules (class-validator decorators) on its value; null only where the server takes it.
        const inner = this.constrained(this.inputInner(isNonNullType(field.type) ? field.type.ofType : field.type), rules.fields[field.name]);
        const schema = isNonNullType(field.type) || rules.notNull.includes(field.name) ? inner : nullable(inner);
        properties[field.name] = withDescription(field.defaultValue === undefined ? schema : { ...schema, default: field.defaultValue }, field.description);
        if (isRequired) required.push(field.name);
      }
      // Fields the operation does not take are ignored, at every depth (D4): the document allows them.
      this.components[type.name] = withDescription(
        { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: true },
        type.description,
      );
    }
    return ref(type.name);
  }

  /** A value's schema narrowed by its field's rules: an enum rule replaces a referenced enum, patterns add up. */
  private constrained(schema: JsonSchema, rules: FieldRules['fields'][string] | undefined): JsonSchema {
    if (!rules) return schema;
    const { keywords, patterns } = rules;
    if (Array.isArray(keywords.enum)) {
      const { enum: values, ...rest } = keywords;
      return { type: 'string', enum: values, ...rest };
    }
    const items = schema.type === 'array' ? schema.items : undefined;
    if (items && typeof items === 'object' && 'maxItems' in keywords) return { ...schema, ...keywords };
    return withPatterns({ ...schema, ...keywords }, patterns);
  }

  /** The JSON a selection set produces from a field of `type`. */
  output(type: GraphQLOutputType, selectionSet: SelectionSetNode | undefined): JsonSchema {
    if (isNonNullType(type)) return this.outputInner(type.ofType, selectionSet);
    return nullable(this.outputInner(type, selectionSet));
  }

  private outputInner(type: GraphQLOutputType, selectionSet: SelectionSetNode | undefined): JsonSchema {
    if (isListType(type)) return { type: 'array', items: this.output(type.ofType, selectionSet) };
    if (!isObjectType(type)) return this.leaf(type);
    if (!selectionSet) throw new Error(`Object type ${type.name} selected without fields`);
    const [only] = selectionSet.selections;
    // A selection that is exactly one fragment is a named, reusable shape (e.g. FullEvent).
    if (selectionSet.selections.length === 1 && only.kind === Kind.FRAGMENT_SPREAD) return this.fragment(only.name.value);
    return this.object(type, selectionSet);
  }

  private fragment(name: string): JsonSchema {
    const fragment = this.fragments.get(name);
    if (!fragment) throw new Error(`Unknown fragment ${name}`);
    if (!this.components[name]) {
      const type = this.schema.getType(fragment.typeCondition.name.value) as GraphQLObjectType;
      this.components[name] = {};
      this.components[name] = withDescription(this.object(type, fragment.selectionSet), type.description);
    }
    return ref(name);
  }

  private object(type: GraphQLObjectType, selectionSet: SelectionSetNode): JsonSchema {
    const properties: Record<string, JsonSchema> = {};
    const conditional = new Set<string>();
    this.collect(type, selectionSet, properties, conditional);
    // Every selected field is always present (null when it has no value), except one the door selects
    // for some callers only (@include: a booking's ticketCode for keys holding bookings:read, D29).
    return { type: 'object', properties, required: Object.keys(properties).filter((name) => !conditional.has(name)) };
  }

  private collect(type: GraphQLObjectType, selectionSet: SelectionSetNode, properties: Record<string, JsonSchema>, conditional: Set<string>): void {
    const fields = type.getFields();
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        const name = selection.alias?.value ?? selection.name.value;
        if (selection.directives?.some((directive) => directive.name.value === 'include' || directive.name.value === 'skip')) conditional.add(name);
        if (selection.name.value === '__typename') {
          properties[name] = { type: 'string', const: type.name };
          continue;
        }
        const field = fields[selection.name.value];
        properties[name] = withDescription(this.output(field.type, selection.selectionSet), field.description);
      } else if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = this.fragments.get(selection.name.value);
        if (fragment) this.collect(type, fragment.selectionSet, properties, conditional);
      } else {
        this.collect(type, selection.selectionSet, properties, conditional);
      }
    }
  }
}
