import { isEnumType, isInputObjectType, isInterfaceType, isObjectType, isUnionType, type GraphQLSchema } from 'graphql';

/*
 * How large an introspection answer is on this schema, for the cost estimate of query-limits.ts: the
 * introspection fields have their own budget, a multiple of the standard introspection query's cost.
 */

/**
 * How many times the standard full introspection query (graphql-js getIntrospectionQuery with every
 * option, what GraphiQL, Apollo Sandbox and code generators send) an operation's introspection fields
 * may ask for: enough for every explorer, far from 1,380 copies of the schema.
 */
export const INTROSPECTION_ALLOWANCE = 2;

export const INTROSPECTION_TYPES = new Set(['__Schema', '__Type', '__Field', '__InputValue', '__EnumValue', '__Directive']);

/**
 * For each introspection list field, how many items it answers on average in this schema
 * (`__Schema.types`: every type; `__Type.fields`: the schema's fields over its types…): the estimate of
 * an introspection answer follows the schema's real size, as a page's estimate follows its `limit`.
 */
export type IntrospectionSizes = ReadonlyMap<string, number>;

export function introspectionSizes(schema: GraphQLSchema): IntrospectionSizes {
  const types = Object.values(schema.getTypeMap());
  const directives = schema.getDirectives();
  let fields = 0;
  let fieldArgs = 0;
  let inputFields = 0;
  let enumValues = 0;
  let interfaces = 0;
  let possibleTypes = 0;
  for (const type of types) {
    if (isObjectType(type) || isInterfaceType(type)) {
      const own = Object.values(type.getFields());
      fields += own.length;
      for (const field of own) fieldArgs += field.args.length;
      interfaces += type.getInterfaces().length;
    }
    if (isInterfaceType(type) || isUnionType(type)) possibleTypes += schema.getPossibleTypes(type).length;
    if (isInputObjectType(type)) inputFields += Object.keys(type.getFields()).length;
    if (isEnumType(type)) enumValues += type.getValues().length;
  }
  const perType = (total: number) => Math.max(1, Math.ceil(total / Math.max(1, types.length)));
  return new Map([
    ['__Schema.types', Math.max(1, types.length)],
    ['__Schema.directives', Math.max(1, directives.length)],
    ['__Type.fields', perType(fields)],
    ['__Type.inputFields', perType(inputFields)],
    ['__Type.enumValues', perType(enumValues)],
    ['__Type.interfaces', perType(interfaces)],
    ['__Type.possibleTypes', perType(possibleTypes)],
    ['__Field.args', Math.max(1, Math.ceil(fieldArgs / Math.max(1, fields)))],
    ['__Directive.args', Math.max(1, Math.ceil(directives.reduce((sum, directive) => sum + directive.args.length, 0) / Math.max(1, directives.length)))],
  ]);
}
