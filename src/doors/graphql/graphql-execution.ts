import type { IncomingMessage, ServerResponse } from 'node:http';
import { HeaderMap, type ApolloServer } from '@apollo/server';
import {
  getOperationAST,
  OperationTypeNode,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { documentBoundViolation, MAX_DOCUMENT_TOKENS } from '../../foundation/validation/input-bounds';
import type { CompiledOperations } from '../../platform/graphql/compiled-operations';
import { NoNulCharactersRule } from '../../platform/graphql/no-nul-characters';
import type { RequestContext } from '../../platform/graphql/request-context';
import { checkOperation } from './apollo';
import { isIntrospectionOnly, queryLimitsCheck, type QueryLimits } from './query-limits';

/** What one parse of a document told us, kept by its text: the compiled path's document, or its kind. */
type Parsed =
  /**
   * A query or mutation that validates: the compiled path may run it. A mutation's Idempotency-Key
   * (D17) is the pipeline's step before this one; a mutation's fields run one after the other.
   */
  | {
      readonly kind: 'query' | 'mutation';
      readonly document: DocumentNode;
      readonly operation: OperationDefinitionNode;
      readonly operationName: string | null;
      readonly label: string;
    }
  /** A mutation that does not validate (Idempotency-Key applies, D17); Apollo answers it. */
  | { readonly kind: 'invalid mutation' }
  /** Anything else (a subscription, introspection, a document that does not parse or validate): Apollo's. */
  | { readonly kind: 'other' };

/** Documents kept, by query text and operation name; the least recently used goes first. */
const MAX_KNOWN_DOCUMENTS = 500;
/** The content type of every answer the compiled path writes itself (Apollo's for a JSON request). */
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
const JSON_REQUEST = /^application\/json(?:;\s*charset=utf-8)?$/i;
/** Accept headers for which Apollo answers application/json. */
const JSON_ACCEPTED = new Set([undefined, '*/*', 'application/json']);

/** The context an operation runs with: the compiled path may hand Apollo a result it already has. */
export type ExecutionContext = RequestContext & { executed: ExecutionResult | undefined };

/** A GraphQL request's parameters, from a JSON body (POST) or the query string (GET). */
export interface GraphqlParameters {
  readonly query?: unknown;
  readonly operationName?: unknown;
  readonly variables?: unknown;
  readonly extensions?: unknown;
}

export interface GraphqlExecution {
  /** Is this request's operation a mutation? One parse per distinct document, shared with execution. */
  isMutation(parameters: GraphqlParameters): boolean;
  /**
   * Runs the request and writes its answer: a known query (parsed, validated and compiled once, the
   * checks Apollo's plugins run) on the compiled path, anything else, and every answer with errors,
   * through Apollo, so answers are Apollo's byte for byte. `body` is the parsed JSON body of a POST.
   */
  answer(req: IncomingMessage, res: ServerResponse, body: unknown, context: ExecutionContext): Promise<void>;
}

export interface GraphqlExecutionDeps {
  readonly schema: GraphQLSchema;
  readonly apollo: ApolloServer<RequestContext>;
  /** The executor Apollo's gateway uses: one compiled function per document. */
  readonly operations: CompiledOperations;
  readonly limits: QueryLimits;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A text content type without a charset gets utf-8, as Express's res.send wrote Apollo's answers. */
function withCharset(type: string): string {
  return /;\s*charset=/i.test(type) ? type : `${type}; charset=utf-8`;
}

/** Apollo answers the request (as its Express integration wrote it), with this request's context. */
export async function answerByApollo(
  apollo: ApolloServer<RequestContext>,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  context: () => Promise<RequestContext>,
): Promise<void> {
  const headers = new HeaderMap();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const url = req.url as string;
  const queryAt = url.indexOf('?');
  const response = await apollo.executeHTTPGraphQLRequest({
    httpGraphQLRequest: { method: (req.method as string).toUpperCase(), headers, search: queryAt === -1 ? '' : url.slice(queryAt), body: body ?? {} },
    context,
  });
  for (const [name, value] of response.headers) res.setHeader(name, name === 'content-type' ? withCharset(value) : value);
  res.statusCode = response.status ?? 200;
  if (response.body.kind === 'complete') {
    res.setHeader('Content-Length', Buffer.byteLength(response.body.string));
    res.end(response.body.string);
    return;
  }
  for await (const chunk of response.body.asyncIterator) res.write(chunk);
  res.end();
}

/**
 * The GraphQL door's execution (issue 8, then issues 24 and 19): a JSON POST whose query or mutation
 * was seen before runs on the compiled path, without Apollo's request pipeline; everything else, and
 * every answer with errors, through Apollo (a result the compiled path has is not executed again). Either
 * way the request has passed the same pipeline steps first (src/http/pipeline.ts).
 */
export function graphqlExecution({ schema, apollo, operations, limits }: GraphqlExecutionDeps): GraphqlExecution {
  const known = new Map<string, Parsed>();
  const checkLimits = queryLimitsCheck(limits);
  const rules = [...specifiedRules, NoNulCharactersRule];

  function learn(query: string, operationName: string | null): Parsed {
    if (documentBoundViolation(query)) return { kind: 'other' };
    let document: DocumentNode;
    try {
      document = parse(query, { maxTokens: MAX_DOCUMENT_TOKENS });
    } catch {
      return { kind: 'other' };
    }
    const operation = getOperationAST(document, operationName);
    if (operation?.operation === OperationTypeNode.MUTATION) {
      if (validate(schema, document, rules).length > 0) return { kind: 'invalid mutation' };
      return { kind: 'mutation', document, operation, operationName: operation.name?.value ?? null, label: operation.name?.value ?? 'anonymous' };
    }
    // Introspection may be off (Apollo then refuses it in validation), and is not limited: Apollo's.
    if (!operation || operation.operation !== OperationTypeNode.QUERY || query.includes('__schema') || query.includes('__type')) return { kind: 'other' };
    if (isIntrospectionOnly(operation) || validate(schema, document, rules).length > 0) return { kind: 'other' };
    return { kind: 'query', document, operation, operationName: operation.name?.value ?? null, label: operation.name?.value ?? 'anonymous' };
  }

  function lookup(parameters: GraphqlParameters): Parsed {
    const { query, operationName } = parameters;
    if (typeof query !== 'string' || !(operationName === undefined || operationName === null || typeof operationName === 'string')) return { kind: 'other' };
    const key = operationName ? `${operationName}\u0000${query}` : query;
    let entry = known.get(key);
    if (entry === undefined) {
      entry = learn(query, operationName ?? null);
      if (known.size >= MAX_KNOWN_DOCUMENTS) known.delete(known.keys().next().value as string);
    } else {
      known.delete(key);
    }
    known.set(key, entry);
    return entry;
  }

  /** The compiled path's conditions: what Apollo would answer as plain JSON for this request. */
  function compilable(req: IncomingMessage, body: unknown): body is Record<string, unknown> {
    const { headers } = req;
    if (req.method !== 'POST' || !JSON_REQUEST.test(headers['content-type'] ?? '') || !JSON_ACCEPTED.has(headers.accept)) return false;
    if (!isRecord(body)) return false;
    const { variables, extensions } = body;
    return (extensions === undefined || extensions === null) && (variables === undefined || variables === null || isRecord(variables));
  }

  return {
    isMutation: (parameters) => {
      const { kind } = lookup(parameters);
      return kind === 'mutation' || kind === 'invalid mutation';
    },
    async answer(req, res, body, context) {
      const entry = compilable(req, body) ? lookup(body) : undefined;
      if (entry?.kind !== 'query' && entry?.kind !== 'mutation') return answerByApollo(apollo, req, res, body, async () => context);
      // The access log names it as Apollo's operation-name plugin would.
      if (context.operation) context.operation.name = entry.label;
      const values = ((body as GraphqlParameters).variables ?? undefined) as Record<string, unknown> | undefined;
      try {
        // Apollo's didResolveOperation plugins, in their order: permissions and arguments, limits.
        checkOperation(schema, entry.document, entry.operation, context.auth, values ?? {});
        checkLimits(schema, entry.document, entry.operation, values);
      } catch {
        return answerByApollo(apollo, req, res, body, async () => context);
      }
      const result = await operations.execute(entry.document, entry.operationName, context, values);
      if ((result.errors && result.errors.length > 0) || !('data' in result) || result.extensions !== undefined) {
        context.executed = result;
        return answerByApollo(apollo, req, res, body, async () => context);
      }
      const text = `${JSON.stringify({ data: result.data })}\n`;
      res.statusCode = 200;
      res.setHeader('Content-Type', JSON_CONTENT_TYPE);
      res.setHeader('Content-Length', Buffer.byteLength(text));
      res.end(text);
    },
  };
}
