import type { ApolloServerPlugin } from '@apollo/server';
import { type DocumentNode, type GraphQLError, type GraphQLSchema, Kind, validate, type OperationDefinitionNode } from 'graphql';
import depthLimit from 'graphql-depth-limit';
import { getComplexity, simpleEstimator, type ComplexityEstimator } from 'graphql-query-complexity';
import { AppError, type ErrorDetailsByCode } from '../../foundation/errors/app-error';
import { MAX_LIMIT } from '../../foundation/validation/arguments';
import { toGraphQLError } from '../../platform/graphql/graphql-errors';
import type { RequestContext } from '../../platform/graphql/request-context';

export interface QueryLimits {
  /** Deepest selection nesting allowed (GRAPHQL_MAX_DEPTH). */
  readonly maxDepth: number;
  /** Highest estimated cost allowed (GRAPHQL_MAX_COST). */
  readonly maxCost: number;
}

/**
 * A field with a `limit` argument returns up to `limit` items: what is selected under it counts that
 * many times. Every other field costs 1 (simpleEstimator), so aliases and wide selections add up. A
 * limit above the page maximum is refused by the field's own validation (400 naming `limit`), so it
 * is costed as the maximum, not reported as a complexity problem.
 */
const pageSizeEstimator: ComplexityEstimator = ({ args, childComplexity }) =>
  typeof args.limit === 'number' ? 1 + childComplexity * Math.min(Math.max(args.limit, 1), MAX_LIMIT) : undefined;

/** Operations that only ask for the schema (Sandbox, codegen) are not limited: they read no data. */
export function isIntrospectionOnly(operation: OperationDefinitionNode): boolean {
  return operation.selectionSet.selections.every((selection) => selection.kind === Kind.FIELD && selection.name.value.startsWith('__'));
}

const MAX_KNOWN_COSTS = 32;

function tooComplex(message: string, details: ErrorDetailsByCode['QUERY_TOO_COMPLEX']): GraphQLError {
  return toGraphQLError(AppError.queryTooComplex(message, details));
}

export type QueryLimitsCheck = (
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown> | undefined,
) => void;

/**
 * Refuses, before anything runs, queries nested deeper than `maxDepth` or estimated costlier than
 * `maxCost`: throws a GraphQLError (400, extensions.code QUERY_TOO_COMPLEX, the limit in
 * extensions.details). Operations that only ask for the schema pass.
 */
export function queryLimitsCheck(limits: QueryLimits): QueryLimitsCheck {
  // Apollo (and the compiled path) hand back the same parsed document for every repeat of a query: its
  // depth is known after the first time, and its cost for the same variables too (a few variable sets
  // kept per operation).
  const tooDeep = new WeakMap<OperationDefinitionNode, boolean>();
  const costs = new WeakMap<OperationDefinitionNode, Map<string, number>>();
  return (schema, document, operation, variables) => {
    if (isIntrospectionOnly(operation)) return;
    const operationName = operation.name?.value;
    let deep = tooDeep.get(operation);
    if (deep === undefined) {
      // Only the operation being run counts, not the others of the same document.
      const single = { ...document, definitions: document.definitions.filter((d) => d.kind !== Kind.OPERATION_DEFINITION || d === operation) };
      deep = validate(schema, single, [depthLimit(limits.maxDepth)]).length > 0;
      tooDeep.set(operation, deep);
    }
    if (deep) {
      throw tooComplex(`The query is nested more than ${limits.maxDepth} levels deep (GRAPHQL_MAX_DEPTH); ask for less at once`, {
        limit: 'depth',
        maximum: limits.maxDepth,
      });
    }
    const known = costs.get(operation) ?? new Map<string, number>();
    costs.set(operation, known);
    const variablesKey = JSON.stringify(variables ?? {});
    let cost = known.get(variablesKey);
    if (cost === undefined) {
      try {
        cost = getComplexity({
          schema,
          query: document,
          operationName,
          variables: variables ?? {},
          estimators: [pageSizeEstimator, simpleEstimator({ defaultComplexity: 1 })],
        });
      } catch {
        // Invalid variables were refused before (operation checks); anything else means the
        // estimate could not be made (e.g. more nodes than it will walk): a check that cannot
        // decide refuses.
        throw tooComplex(`The query is too large to estimate its cost (GRAPHQL_MAX_COST ${limits.maxCost}); ask for fewer items or fields`, {
          limit: 'cost',
          maximum: limits.maxCost,
        });
      }
      if (known.size >= MAX_KNOWN_COSTS) known.delete(known.keys().next().value as string);
      known.set(variablesKey, cost);
    }
    if (cost > limits.maxCost) {
      throw tooComplex(`The query costs ${cost}, more than the maximum of ${limits.maxCost} (GRAPHQL_MAX_COST); ask for fewer items or fields`, {
        limit: 'cost',
        maximum: limits.maxCost,
        cost,
      });
    }
  };
}

/** Apollo's side of queryLimitsCheck. */
export function queryLimitsPlugin(limits: QueryLimits): ApolloServerPlugin<RequestContext> {
  const check = queryLimitsCheck(limits);
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation, document, schema, request }) {
          if (operation) check(schema, document, operation, request.variables);
        },
      };
    },
  };
}
