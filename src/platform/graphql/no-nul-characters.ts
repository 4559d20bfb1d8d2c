import { GraphQLError, type ASTVisitor, type ValidationContext } from 'graphql';

/**
 * String literals written into a GraphQL document may not hold a NUL character: PostgreSQL cannot
 * store or compare one, and the driver would fail with a 500. (Variables get the same check, with
 * the field named, in check-arguments.ts.)
 */
export function NoNulCharactersRule(context: ValidationContext): ASTVisitor {
  return {
    StringValue(node) {
      if (node.value.includes('\u0000')) {
        context.reportError(new GraphQLError('String values must not contain the NUL character (\\u0000)', { nodes: node }));
      }
    },
  };
}
