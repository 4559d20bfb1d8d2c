import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApolloServer } from '@apollo/server';
import { getOperationAST, OperationTypeNode, parse, specifiedRules, validate, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { documentBoundViolation, MAX_DOCUMENT_TOKENS } from '../../foundation/validation/input-bounds';
import { NoNulCharactersRule } from '../../platform/graphql/no-nul-characters';
import type { RequestContext } from '../../platform/graphql/request-context';
import { AppError } from '../../foundation/errors/app-error';
import { mediaTypeOf, writeGraphqlRequestError } from './graphql-http';
import { answerByApollo, isRecord, parametersOf, withoutEmptyOperationName, type GraphqlParameters } from './graphql-request';
import { graphqlResourceAnswer } from './resource-answer';
import type { ResourceAnswer } from '../../platform/idempotency/pending-key';

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
  /** Whether the document validates against the schema, decided when first needed. */
  valid?: boolean;
  /** The mutation's answer for the resource it returns, by media type (resourceAnswer), once worked out. */
  answers?: Map<string, ResourceAnswer | undefined>;
}

/** Documents kept, by query text and operation name; the least recently used goes first. */
const MAX_KNOWN_DOCUMENTS = 500;
const JSON_REQUEST = /^application\/json(?:;\s*charset=utf-8)?$/i;

export interface GraphqlExecution {
  /** Is this request's operation a mutation? One parse per distinct document. */
  isMutation(parameters: GraphqlParameters): boolean;
  /**
   * Runs the request through Apollo Server, the one executor of /graphql (its plugins check
   * permissions, arguments and limits once; its gateway runs the compiled operation), and writes the
   * answer. A document over its bounds is refused first, unparsed. `body` is the parsed JSON body of a POST.
   */
  answer(req: IncomingMessage, res: ServerResponse, body: unknown, context: RequestContext): Promise<void>;
  /**
   * For a JSON POST of a valid mutation whose one root field is one of `rootFields` (they return a
   * resource as its module presents it; the same set on every call: the answer is kept with the
   * document): the answer Apollo writes for that resource (graphqlResourceAnswer, D17).
   */
  resourceAnswer(req: IncomingMessage, body: unknown, rootFields: ReadonlySet<string>): ResourceAnswer | undefined;
}

export interface GraphqlExecutionDeps {
  readonly schema: GraphQLSchema;
  readonly apollo: ApolloServer<RequestContext>;
}

/** The GraphQL door: every request is answered by Apollo, after the document's text bounds. */
export function graphqlExecution({ schema, apollo }: GraphqlExecutionDeps): GraphqlExecution {
  const known = new Map<string, Known>();
  const rules = [...specifiedRules, NoNulCharactersRule];

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

  /** The media type Apollo answers a JSON POST in, or undefined when the request is not one. */
  function jsonPostMediaType(req: IncomingMessage, body: unknown): string | undefined {
    const { headers } = req;
    if (req.method !== 'POST' || !JSON_REQUEST.test(headers['content-type'] ?? '') || !isRecord(body)) return undefined;
    const { variables, extensions } = body;
    if (!((extensions === undefined || extensions === null) && (variables === undefined || variables === null || isRecord(variables)))) return undefined;
    return mediaTypeOf(headers.accept);
  }

  return {
    isMutation: (parameters) => lookup(parameters)?.operation?.operation === OperationTypeNode.MUTATION,
    resourceAnswer(req, body, rootFields) {
      const mediaType = jsonPostMediaType(req, body);
      const entry = mediaType ? lookup(body as GraphqlParameters) : undefined;
      if (!entry?.document || entry.operation?.operation !== OperationTypeNode.MUTATION) return undefined;
      entry.valid ??= validate(schema, entry.document, rules).length === 0;
      if (!entry.valid) return undefined;
      const answers = (entry.answers ??= new Map<string, ResourceAnswer | undefined>());
      if (!answers.has(mediaType!)) answers.set(mediaType!, graphqlResourceAnswer(entry.operation, mediaType!, rootFields));
      return answers.get(mediaType!);
    },
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
