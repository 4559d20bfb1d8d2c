import { Kind, type DocumentNode, type OperationDefinitionNode } from 'graphql';

/** What a span says of an operation: its type (query, mutation, subscription) and name, if it has one. */
export interface OperationLabel {
  readonly type: string;
  readonly name: string | undefined;
}

const labels = new WeakMap<DocumentNode, Map<string | null, OperationLabel>>();

/** The operation `operationName` selects in `document` (its only one when null), remembered per document. */
export function operationOf(document: DocumentNode, operationName: string | null): OperationLabel {
  let byName = labels.get(document);
  if (!byName) {
    byName = new Map();
    labels.set(document, byName);
  }
  let label = byName.get(operationName);
  if (!label) {
    const operations = document.definitions.filter((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION);
    const selected = operationName === null ? operations[0] : operations.find((operation) => operation.name?.value === operationName);
    label = { type: selected?.operation ?? 'query', name: selected?.name?.value ?? operationName ?? undefined };
    byName.set(operationName, label);
  }
  return label;
}
