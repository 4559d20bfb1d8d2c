import {
  getIntrospectionQuery,
  getNamedType,
  isInterfaceType,
  isObjectType,
  Kind,
  OperationTypeNode,
  parse,
  SchemaMetaFieldDef,
  TypeMetaFieldDef,
  TypeNameMetaFieldDef,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionNode,
  type ValueNode,
} from 'graphql';
import { AppError } from '../../foundation/errors/app-error';
import { MAX_DOCUMENT_TOKENS } from '../../foundation/validation/input-bounds';
import { INTROSPECTION_ALLOWANCE, INTROSPECTION_TYPES, introspectionSizes, type IntrospectionSizes } from './introspection-sizes';
import { isSkipped, pageSize } from './operation-values';

export interface QueryLimits {
  /** Deepest selection nesting allowed (GRAPHQL_MAX_DEPTH). */
  readonly maxDepth: number;
  /** Highest estimated cost allowed (GRAPHQL_MAX_COST). */
  readonly maxCost: number;
}

/**
 * Most selections the estimate walks once fragments are expanded (a fragment spread 1,000 times is
 * walked 1,000 times): as many as a document may hold tokens. Past it, the estimate stops and refuses.
 */
export const MAX_EXPANDED_SELECTIONS = MAX_DOCUMENT_TOKENS;

/** Why an operation is refused before it runs: which limit, and what was counted when the walk stopped. */
export interface LimitVerdict {
  readonly limit: 'depth' | 'cost';
  readonly maximum: number;
  readonly message: string;
  readonly cost?: number;
}

interface Frame {
  readonly selections: readonly SelectionNode[];
  readonly parent: GraphQLNamedType | undefined;
  /** How many times each selection here is answered: the product of the pages and lists above it. */
  readonly multiplier: number;
  /** Fields above these selections (`ofType` not counted). */
  readonly depth: number;
  /** Inside an introspection field (its own budget). */
  readonly introspection: boolean;
  /** The next selection to visit (the walk is depth first: it reaches a limit as soon as it can). */
  next: number;
}

/** A frame that closes an expanded fragment (cycles are not expanded twice: validation refuses them). */
interface Leave {
  readonly leave: string;
}

function fieldDefinition(schema: GraphQLSchema, parent: GraphQLNamedType | undefined, name: string): GraphQLField<unknown, unknown> | undefined {
  if (name === '__typename') return TypeNameMetaFieldDef;
  if (parent !== undefined && parent === schema.getQueryType()) {
    if (name === '__schema') return SchemaMetaFieldDef;
    if (name === '__type') return TypeMetaFieldDef;
  }
  if (isObjectType(parent) || isInterfaceType(parent)) return parent.getFields()[name];
  return undefined;
}

/**
 * The limits of one operation, in one walk of its selections (fragments expanded, `@skip`/`@include`
 * followed), before validation and before anything runs. Every selected field costs 1 each time it is
 * answered: what is selected under a field with a `limit` argument is answered `limit` times, under an
 * introspection list as many times as the schema holds such items on average. Depth counts the fields
 * above a field (`ofType`, a type's single wrapped type, does not count). The walk stops at the first
 * limit crossed: at most `maxCost + 1` data fields, `introspectionBudget + 1` introspection fields and
 * MAX_EXPANDED_SELECTIONS selections are visited, whatever the document. Introspection fields are
 * bounded by their own budget (twice the standard introspection query's estimate on this schema), data
 * fields by GRAPHQL_MAX_COST.
 */
export function operationLimitVerdict(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown> | undefined,
  limits: QueryLimits,
): LimitVerdict | undefined {
  return walk(schema, document, operation, variables, limits, introspectionLimits(schema)).verdict;
}

export interface Walked {
  readonly verdict?: LimitVerdict;
  readonly cost: number;
  readonly introspectionCost: number;
  /** Selections visited (fragments expanded). */
  readonly visited: number;
}

/** The walk of operationLimitVerdict with what it counted (how far it went: tests show where it stops). */
export function measureOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown> | undefined,
  limits: QueryLimits,
): Walked {
  return walk(schema, document, operation, variables, limits, introspectionLimits(schema));
}

function walk(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown> | undefined,
  limits: QueryLimits,
  introspection: { readonly sizes: IntrospectionSizes; readonly budget: number },
): Walked {
  const values = variables ?? {};
  const defaults = new Map<string, ValueNode>();
  for (const definition of operation.variableDefinitions ?? []) {
    if (definition.defaultValue) defaults.set(definition.variable.name.value, definition.defaultValue);
  }
  let fragments: Map<string, FragmentDefinitionNode> | undefined;
  const fragmentNamed = (name: string): FragmentDefinitionNode | undefined => {
    if (!fragments) {
      fragments = new Map();
      for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    }
    return fragments.get(name);
  };
  const root =
    operation.operation === OperationTypeNode.MUTATION
      ? schema.getMutationType()
      : operation.operation === OperationTypeNode.SUBSCRIPTION
        ? schema.getSubscriptionType()
        : schema.getQueryType();
  const stack: Array<Frame | Leave> = [
    { selections: operation.selectionSet.selections, parent: root ?? undefined, multiplier: 1, depth: 0, introspection: false, next: 0 },
  ];
  const expanding = new Set<string>();
  let cost = 0;
  let introspectionCost = 0;
  let visited = 0;
  const stop = (verdict: LimitVerdict): Walked => ({ cost, introspectionCost, visited, verdict });
  while (stack.length > 0) {
    const frame = stack[stack.length - 1];
    if ('leave' in frame) {
      stack.pop();
      expanding.delete(frame.leave);
      continue;
    }
    if (frame.next >= frame.selections.length) {
      stack.pop();
      continue;
    }
    const selection = frame.selections[frame.next];
    frame.next += 1;
    visited += 1;
    if (visited > MAX_EXPANDED_SELECTIONS) {
      return stop({ limit: 'cost', maximum: limits.maxCost, message: `The query expands to more than ${MAX_EXPANDED_SELECTIONS} selections once its fragments are spread: too large to estimate its cost (GRAPHQL_MAX_COST ${limits.maxCost}); ask for fewer items or fields`, });
    }
    if (isSkipped(selection.directives, values, defaults)) continue;
    if (selection.kind === Kind.INLINE_FRAGMENT) {
      const parent = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : frame.parent;
      stack.push({ ...frame, selections: selection.selectionSet.selections, parent: parent ?? undefined, next: 0 });
      continue;
    }
    if (selection.kind === Kind.FRAGMENT_SPREAD) {
      const name = selection.name.value;
      const fragment = fragmentNamed(name);
      // Unknown or cyclic: validation refuses it. A fragment spread twice in one selection set is
      // answered once by GraphQL but counted twice here: fan-outs of fragments are refused, not walked.
      if (!fragment || expanding.has(name)) continue;
      expanding.add(name);
      stack.push({ leave: name });
      stack.push({ ...frame, selections: fragment.selectionSet.selections, parent: schema.getType(fragment.typeCondition.name.value) ?? undefined, next: 0 });
      continue;
    }
    const name = selection.name.value;
    const definition = fieldDefinition(schema, frame.parent, name);
    const introspective = frame.introspection || name === '__schema' || name === '__type';
    const depth = name === 'ofType' && frame.introspection ? frame.depth - 1 : frame.depth;
    if (depth > limits.maxDepth) {
      return stop({ limit: 'depth', maximum: limits.maxDepth, message: `The query is nested more than ${limits.maxDepth} levels deep (GRAPHQL_MAX_DEPTH); ask for less at once`, });
    }
    if (introspective) {
      introspectionCost += frame.multiplier;
      if (introspectionCost > introspection.budget) {
        return stop({ limit: 'cost', maximum: introspection.budget, cost: introspectionCost, message: `The query's introspection costs more than the maximum of ${introspection.budget} (twice the standard introspection query); ask for the schema once`, });
      }
    } else {
      cost += frame.multiplier;
      if (cost > limits.maxCost) {
        return stop({ limit: 'cost', maximum: limits.maxCost, cost, message: `The query costs more than the maximum of ${limits.maxCost} (GRAPHQL_MAX_COST): at least ${cost} counted before the estimate stopped; ask for fewer items or fields`, });
      }
    }
    if (!selection.selectionSet) continue;
    const parentName = frame.parent?.name;
    const listed = parentName !== undefined && INTROSPECTION_TYPES.has(parentName) ? introspection.sizes.get(`${parentName}.${name}`) : undefined;
    const page = listed ?? pageSize(selection, definition, values, defaults) ?? 1;
    const type = definition ? getNamedType(definition.type) : undefined;
    stack.push({
      selections: selection.selectionSet.selections,
      parent: type,
      multiplier: frame.multiplier * page,
      depth: depth + 1,
      introspection: introspective,
      next: 0,
    });
  }
  return { cost, introspectionCost, visited };
}

/** What the standard full introspection query costs on this schema, by the estimate above. */
function standardIntrospectionCost(schema: GraphQLSchema, sizes: IntrospectionSizes): number {
  const document = parse(
    getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true, oneOf: true }),
  );
  const operation = document.definitions.find((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION)!;
  const unbounded = { maxDepth: Number.MAX_SAFE_INTEGER, maxCost: Number.MAX_SAFE_INTEGER };
  return walk(schema, document, operation, {}, unbounded, { sizes, budget: Number.MAX_SAFE_INTEGER }).introspectionCost;
}

/** The introspection sizes and budget of a schema, found once. */
const introspectionOf = new WeakMap<GraphQLSchema, { readonly sizes: IntrospectionSizes; readonly budget: number }>();

function introspectionLimits(schema: GraphQLSchema): { readonly sizes: IntrospectionSizes; readonly budget: number } {
  let known = introspectionOf.get(schema);
  if (!known) {
    const sizes = introspectionSizes(schema);
    known = { sizes, budget: INTROSPECTION_ALLOWANCE * standardIntrospectionCost(schema, sizes) };
    introspectionOf.set(schema, known);
  }
  return known;
}

/** The introspection budget of a schema (for documentation and tests). */
export function introspectionBudget(schema: GraphQLSchema): number {
  return introspectionLimits(schema).budget;
}

const MAX_KNOWN_VERDICTS = 32;

export type QueryLimitsCheck = (
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown> | undefined,
) => AppError | undefined;

/**
 * The limits of an operation (operationLimitVerdict) as the AppError that refuses it (400
 * QUERY_TOO_COMPLEX, the limit in details), or undefined when it may run. A repeated document is the
 * same parsed object (the door's and Apollo's caches hand it back): its verdict for the same variables
 * is kept (a few variable sets per operation).
 */
export function queryLimitsCheck(limits: QueryLimits): QueryLimitsCheck {
  const verdicts = new WeakMap<OperationDefinitionNode, Map<string, AppError | null>>();
  return (schema, document, operation, variables) => {
    const known = verdicts.get(operation) ?? new Map<string, AppError | null>();
    verdicts.set(operation, known);
    const variablesKey = variables === undefined ? '' : JSON.stringify(variables);
    let refusal = known.get(variablesKey);
    if (refusal === undefined) {
      const verdict = walk(schema, document, operation, variables, limits, introspectionLimits(schema)).verdict;
      refusal = verdict
        ? AppError.queryTooComplex(verdict.message, { limit: verdict.limit, maximum: verdict.maximum, ...(verdict.cost === undefined ? {} : { cost: verdict.cost }) })
        : null;
      if (known.size >= MAX_KNOWN_VERDICTS) known.delete(known.keys().next().value as string);
      known.set(variablesKey, refusal);
    }
    return refusal ?? undefined;
  };
}
