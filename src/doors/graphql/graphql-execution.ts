import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApolloServer } from '@apollo/server';
import { getOperationAST, OperationTypeNode, parse, type DocumentNode, type OperationDefinitionNode } from 'graphql';
import { documentBoundViolation, MAX_DOCUMENT_TOKENS } from '../../foundation/validation/input-bounds';
import type { RequestContext } from '../../platform/graphql/request-context';
import { AppError } from '../../foundation/errors/app-error';
import { writeGraphqlRequestError } from './graphql-http';
import { answerByApollo, parametersOf, withoutEmptyOperationName, type GraphqlParameters } from './graphql-request';

/**
 * What the door knows of a document before Apollo runs it, kept by its text and operation name: its
 * operation (is it a mutation? D17 and D25 need to know before execution), or the bound of the text it
 * crossed (refused before anything parses it).
 */
interface Known {
  readonly document?: DocumentNode;
  readonly operation?: OperationDefinitionNode;
  /** A bound of the text itself crossed (size, tokens, nesting): refused before parsing. */
  readonly violation?: AppError;
}

/** Documents kept, by query text and operation name; the least recently used goes first. */
const MAX_KNOWN_DOCUMENTS = 500;

export interface GraphqlExecution {
  /** Is this request's operation a mutation? One parse per distinct document. */
  isMutation(parameters: GraphqlParameters): boolean;
  /**
   * Runs the request through Apollo Server, the one executor of /graphql (its plugins check
   * permissions, arguments and limits once; its gateway runs the compiled operation), and writes the
   * answer. A document over its bounds is refused first, unparsed. `body` is the parsed JSON body of a POST.
   */
  answer(req: IncomingMessage, res: ServerResponse, body: unknown, context: RequestContext): Promise<void>;
}

export interface GraphqlExecutionDeps {
  readonly apollo: ApolloServer<RequestContext>;
}

/** The GraphQL door: every request is answered by Apollo, after the document's text bounds. */
export function graphqlExecution({ apollo }: GraphqlExecutionDeps): GraphqlExecution {
  const known = new Map<string, Known>();

  function learn(query: string, operationName: string | null): Known {
    let document: DocumentNode;
    try {
      document = parse(query, { maxTokens: MAX_DOCUMENT_TOKENS });
    } catch {
      return {};
    }
    return { document, operation: getOperationAST(document, operationName) ?? undefined };
  }

  function lookup(parameters: GraphqlParameters): Known | undefined {
    const { query } = parameters;
    const operationName = parameters.operationName === '' ? null : parameters.operationName;
    if (typeof query !== 'string' || !(operationName === undefined || operationName === null || typeof operationName === 'string')) return undefined;
    const key = operationName ? `${operationName}\u0000${query}` : query;
    let entry = known.get(key);
    if (entry === undefined) {
      // A text over its bounds is refused as it is, never parsed nor kept.
      const violation = documentBoundViolation(query);
      if (violation) return { violation: AppError.queryTooComplex(violation.message, { limit: violation.limit, maximum: violation.maximum }) };
      entry = learn(query, operationName ?? null);
      if (known.size >= MAX_KNOWN_DOCUMENTS) known.delete(known.keys().next().value as string);
    } else {
      known.delete(key);
    }
    known.set(key, entry);
    return entry;
  }

  return {
    isMutation: (parameters) => lookup(parameters)?.operation?.operation === OperationTypeNode.MUTATION,
    async answer(req, res, body, context) {
      const parameters = parametersOf(req, body);
      const entry = parameters ? lookup(parameters) : undefined;
      if (entry?.violation) {
        if (context.operation) context.operation.name = 'anonymous';
        return writeGraphqlRequestError(req, res, entry.violation);
      }
      const normalized = withoutEmptyOperationName(req, body);
      return answerByApollo(apollo, req, res, normalized.body, async () => context, normalized.url);
    },
  };
}
