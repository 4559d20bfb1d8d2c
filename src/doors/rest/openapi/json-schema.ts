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

export type JsonSchema = Record<string, unknown>;

/** Named schemas collected while converting, destined for `components.schemas`. */
export type SchemaComponents = Record<string, JsonSchema>;

const SCALARS: Record<string, JsonSchema> = {
  String: { type: 'string' },
  ID: { type: 'string' },
  Int: { type: 'integer' },
  Float: { type: 'number' },
  Boolean: { type: 'boolean' },
  DateTimeISO: { type: 'string', format: 'date-time', examples: ['2027-03-01T09:00:00.000Z'] },
};

export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/** `null` is a value the field may take (D5: absent optional fields are null, never omitted). */
function nullable(schema: JsonSchema): JsonSchema {
  if (typeof schema.type === 'string') return { ...schema, type: [schema.type, 'null'] };
  return { anyOf: [schema, { type: 'null' }] };
}

function withDescription(schema: JsonSchema, description: string | null | undefined): JsonSchema {
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
    if (!isInputObjectType(type)) return this.leaf(type);
    if (!this.components[type.name]) {
      this.components[type.name] = {}; // placeholder: recursive inputs terminate here
      const properties: Record<string, JsonSchema> = {};
      const required: string[] = [];
      for (const field of Object.values(type.getFields())) {
        const isRequired = isNonNullType(field.type) && field.defaultValue === undefined;
        // An optional field may be left out; sending null is the same as leaving it out.
        const schema = isNonNullType(field.type) ? this.inputInner(field.type.ofType) : this.input(field.type);
        properties[field.name] = withDescription(field.defaultValue === undefined ? schema : { ...schema, default: field.defaultValue }, field.description);
        if (isRequired) required.push(field.name);
      }
      this.components[type.name] = withDescription(
        { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: true },
        type.description,
      );
    }
    return ref(type.name);
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
    this.collect(type, selectionSet, properties);
    // Every selected field is always present (null when it has no value).
    return { type: 'object', properties, required: Object.keys(properties) };
  }

  private collect(type: GraphQLObjectType, selectionSet: SelectionSetNode, properties: Record<string, JsonSchema>): void {
    const fields = type.getFields();
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        if (selection.name.value === '__typename') {
          properties[selection.alias?.value ?? '__typename'] = { type: 'string', const: type.name };
          continue;
        }
        const field = fields[selection.name.value];
        properties[selection.alias?.value ?? field.name] = withDescription(this.output(field.type, selection.selectionSet), field.description);
      } else if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = this.fragments.get(selection.name.value);
        if (fragment) this.collect(type, fragment.selectionSet, properties);
      } else {
        this.collect(type, selection.selectionSet, properties);
      }
    }
  }
}
