import { Kind, type DirectiveNode, type FieldNode, type GraphQLField, type ValueNode } from 'graphql';
import { MAX_LIMIT } from '../../foundation/validation/arguments';

/*
 * What the cost estimate of query-limits.ts knows of an operation's arguments before it runs: literal
 * and variable values, @skip/@include, and the page size a `limit` argument asks for.
 */

/** An argument's value when it is known before execution (a literal, a variable, a default); else undefined. */
export function valueOf(node: ValueNode, variables: Record<string, unknown>, defaults: ReadonlyMap<string, ValueNode>): unknown {
  switch (node.kind) {
    case Kind.INT:
      return Number.parseInt(node.value, 10);
    case Kind.BOOLEAN:
      return node.value;
    case Kind.VARIABLE: {
      const name = node.name.value;
      if (variables[name] !== undefined) return variables[name];
      const fallback = defaults.get(name);
      return fallback === undefined || fallback.kind === Kind.VARIABLE ? undefined : valueOf(fallback, variables, defaults);
    }
    default:
      return undefined;
  }
}

/** @skip(if: true) or @include(if: false), with literals or the request's variables. */
export function isSkipped(directives: readonly DirectiveNode[] | undefined, variables: Record<string, unknown>, defaults: ReadonlyMap<string, ValueNode>): boolean {
  if (!directives) return false;
  for (const directive of directives) {
    const name = directive.name.value;
    if (name !== 'skip' && name !== 'include') continue;
    const condition = directive.arguments?.find((argument) => argument.name.value === 'if');
    const value = condition ? valueOf(condition.value, variables, defaults) : undefined;
    if ((name === 'skip' && value === true) || (name === 'include' && value === false)) return true;
  }
  return false;
}

/** The page size a field with a `limit` argument answers (its default when not given), as the cost counts it. */
export function pageSize(
  field: FieldNode,
  definition: GraphQLField<unknown, unknown> | undefined,
  variables: Record<string, unknown>,
  defaults: ReadonlyMap<string, ValueNode>,
): number | undefined {
  const argument = definition?.args.find((candidate) => candidate.name === 'limit');
  if (!argument) return undefined;
  const given = field.arguments?.find((candidate) => candidate.name.value === 'limit');
  // A variable the request does not give leaves the argument's own default (as graphql-js coerces it).
  const value = (given ? valueOf(given.value, variables, defaults) : undefined) ?? argument.defaultValue;
  // A limit above the page maximum is refused by the field's own validation (400 naming `limit`): it is
  // costed as the maximum, not reported as a complexity problem.
  return typeof value === 'number' && Number.isFinite(value) ? Math.min(Math.max(value, 1), MAX_LIMIT) : undefined;
}
