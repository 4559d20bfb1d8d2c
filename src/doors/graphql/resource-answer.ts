import { Kind, OperationTypeNode, type OperationDefinitionNode } from 'graphql';
import type { ResourceAnswer } from '../../platform/idempotency/pending-key';

/**
 * What Apollo answers (src/doors/graphql/graphql-execution.ts) for a mutation whose one root
 * field (`rootFields`: those of the REST routes that declare `answerIsResource`) returns a resource as
 * its module presents it, when the mutation selects only fields of that presentation, without
 * arguments, directives or fragments: 200, `{"data":{<field>:{<those fields>}}}` and a newline, in
 * `mediaType`. Undefined for any other operation: its answer is stored after it is sent, as always.
 */
export function graphqlResourceAnswer(operation: OperationDefinitionNode, mediaType: string, rootFields: ReadonlySet<string>): ResourceAnswer | undefined {
  if (operation.operation !== OperationTypeNode.MUTATION || (operation.directives?.length ?? 0) > 0) return undefined;
  const [root, ...others] = operation.selectionSet.selections;
  if (root?.kind !== Kind.FIELD || others.length > 0 || (root.directives?.length ?? 0) > 0 || !rootFields.has(root.name.value) || !root.selectionSet) return undefined;
  const picks: Array<readonly [string, string]> = [];
  for (const selection of root.selectionSet.selections) {
    if (selection.kind !== Kind.FIELD || (selection.arguments?.length ?? 0) > 0 || (selection.directives?.length ?? 0) > 0 || selection.selectionSet) return undefined;
    picks.push([selection.alias?.value ?? selection.name.value, selection.name.value]);
  }
  const responseKey = root.alias?.value ?? root.name.value;
  return (resource) => {
    const picked: Record<string, unknown> = {};
    for (const [key, name] of picks) {
      // __typename, or a field the presentation does not carry: the door's own answer, stored after.
      if (!Object.hasOwn(resource, name)) return undefined;
      if (!Object.hasOwn(picked, key)) picked[key] = resource[name];
    }
    return { status: 200, headers: { 'content-type': mediaType }, body: { data: { [responseKey]: picked } }, suffix: '\n' };
  };
}
