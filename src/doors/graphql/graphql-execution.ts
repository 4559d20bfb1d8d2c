import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApolloServer } from '@apollo/server';
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
import { AppError } from '../../foundation/errors/app-error';
import { mediaTypeOf, writeGraphqlRequestError } from './graphql-http';
import { answerByApollo, isRecord, parametersOf, withoutEmptyOperationName, type GraphqlParameters } from './graphql-request';
import { queryLimitsCheck, type QueryLimits } from './query-limits';
import { graphqlResourceAnswer } from './resource-answer';
import type { ResourceAnswer } from '../../platform/idempotency/pending-key';

/**
 * What one parse of a document told us, kept by its text and operation name. `document` and `operation`
 * are there when it parses and the operation can be chosen (its limits are checked per request, before
 * anything else looks at it); `kind` is decided on the first request that passes the limits (it needs
 * a validation, which an over-limit document never gets).
 */
interface Known {
  readonly document?: DocumentNode;
  readonly operation?: OperationDefinitionNode;
  /** A bound of the text itself crossed (size, tokens, nesting): refused before parsing. */
  readonly violation?: AppError;
  kind?: Kind;
  /** The mutation's answer for the resource it returns, by media type (resourceAnswer), once worked out. */
  answers?: Map<string, ResourceAnswer | undefined>;
}

/**
 * - query, mutation: validates, the compiled path may run it. A mutation's Idempotency-Key (D17) is
 *   the pipeline's step before this one; a mutation's fields run one after the other.
 * - invalid mutation: a mutation that does not validate (Idempotency-Key applies, D17); Apollo answers it.
 * - other: anything else (a subscription, introspection, a document that does not validate): Apollo's.
 */
type Kind = 'query' | 'mutation' | 'invalid mutation' | 'other';

/** Documents kept, by query text and operation name; the least recently used goes first. */
const MAX_KNOWN_DOCUMENTS = 500;
const JSON_REQUEST = /^application\/json(?:;\s*charset=utf-8)?$/i;
/** The context an operation runs with: the compiled path may hand Apollo a result it already has. */
export type ExecutionContext = RequestContext & { executed: ExecutionResult | undefined };

export interface GraphqlExecution {
  /** Is this request's operation a mutation? One parse per distinct document, shared with execution. */
  isMutation(parameters: GraphqlParameters): boolean;
  /**
   * Runs the request and writes its answer: a known query (parsed, validated and compiled once, the
   * checks Apollo's plugins run) on the compiled path, anything else, and every answer with errors,
   * through Apollo, so answers are Apollo's byte for byte. `body` is the parsed JSON body of a POST.
   */
  answer(req: IncomingMessage, res: ServerResponse, body: unknown, context: ExecutionContext): Promise<void>;
  /**
   * For a mutation the compiled path would answer whose one root field is one of `rootFields` (they
   * return a resource as its module presents it; the same set on every call: the answer is kept with the
   * document): its answer for that resource (graphqlResourceAnswer).
   */
  resourceAnswer(req: IncomingMessage, body: unknown, rootFields: ReadonlySet<string>): ResourceAnswer | undefined;
}

export interface GraphqlExecutionDeps {
  readonly schema: GraphQLSchema;
  readonly apollo: ApolloServer<RequestContext>;
  /** The executor Apollo's gateway uses: one compiled function per document. */
  readonly operations: CompiledOperations;
  readonly limits: QueryLimits;
}

/**
 * The GraphQL door's execution: every request's document is parsed
 * once (kept by its text) and its operation checked against the limits before anything else (no
 * validation, no cost library: one walk that stops at the first limit crossed); a refusal is written
 * here. A JSON POST whose query or mutation was seen before runs on the compiled path, without Apollo's
 * request pipeline; everything else, and every answer with errors, through Apollo (a result the
 * compiled path has is not executed again). Either way the request has passed the same pipeline steps
 * first (src/http/pipeline.ts).
 */
export function graphqlExecution({ schema, apollo, operations, limits }: GraphqlExecutionDeps): GraphqlExecution {
  const known = new Map<string, Known>();
  const checkLimits = queryLimitsCheck(limits);
  const rules = [...specifiedRules, NoNulCharactersRule];

  function learn(query: string, operationName: string | null): Known {
    let document: DocumentNode;
    try {
      document = parse(query, { maxTokens: MAX_DOCUMENT_TOKENS });
    } catch {
      return { kind: 'other' };
    }
    const operation = getOperationAST(document, operationName) ?? undefined;
    return operation ? { document, operation } : { document, kind: 'other' };
  }

  /** What the compiled path may do with a document that passed its limits (validated once). */
  function kindOf(entry: Known, query: string): Kind {
    if (entry.kind !== undefined) return entry.kind;
    const { document, operation } = entry as Required<Pick<Known, 'document' | 'operation'>>;
    if (operation.operation === OperationTypeNode.MUTATION) {
      entry.kind = validate(schema, document, rules).length > 0 ? 'invalid mutation' : 'mutation';
    } else if (
      // Introspection may be off (Apollo then refuses it in validation): Apollo's.
      operation.operation !== OperationTypeNode.QUERY ||
      query.includes('__schema') ||
      query.includes('__type') ||
      validate(schema, document, rules).length > 0
    ) {
      entry.kind = 'other';
    } else {
      entry.kind = 'query';
    }
    return entry.kind;
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
      if (violation) return { violation: AppError.queryTooComplex(violation.message, { limit: violation.limit, maximum: violation.maximum }), kind: 'other' };
      entry = learn(query, operationName ?? null);
      if (known.size >= MAX_KNOWN_DOCUMENTS) known.delete(known.keys().next().value as string);
    } else {
      known.delete(key);
    }
    known.set(key, entry);
    return entry;
  }

  /**
   * The refusal of a document over its bounds or limits, before it is validated or run; else undefined.
   * A document refused by the limits is not kept: its parsed form is large (that is why it is refused),
   * and clients sending distinct ones would fill the cache with them and the heap with work for the
   * collector (most of the CPU of such a refusal went to garbage collection). A client that sends it
   * again pays the parse again.
   */
  function refusalOf(parameters: GraphqlParameters, entry: Known, variables: unknown): AppError | undefined {
    if (entry.violation) return entry.violation;
    if (!entry.document || !entry.operation) return undefined;
    const refusal = checkLimits(schema, entry.document, entry.operation, isRecord(variables) ? variables : undefined);
    if (refusal) known.delete(keyOf(parameters));
    return refusal;
  }

  function keyOf(parameters: GraphqlParameters): string {
    const operationName = parameters.operationName === '' ? null : parameters.operationName;
    return operationName ? `${operationName as string}\u0000${parameters.query as string}` : (parameters.query as string);
  }

  /**
   * The compiled path's conditions: a JSON POST whose answer Apollo would write as one JSON document;
   * the media type it is written in (undefined: Apollo's).
   */
  function compilable(req: IncomingMessage, body: unknown): string | undefined {
    const { headers } = req;
    if (req.method !== 'POST' || !JSON_REQUEST.test(headers['content-type'] ?? '') || !isRecord(body)) return undefined;
    const { variables, extensions } = body;
    if (!((extensions === undefined || extensions === null) && (variables === undefined || variables === null || isRecord(variables)))) return undefined;
    return mediaTypeOf(headers.accept);
  }

  return {
    isMutation: (parameters) => {
      const entry = lookup(parameters);
      return entry?.operation?.operation === OperationTypeNode.MUTATION;
    },
    resourceAnswer(req, body, rootFields) {
      const mediaType = compilable(req, body);
      const entry = mediaType ? lookup(body as GraphqlParameters) : undefined;
      if (!entry?.operation || kindOf(entry, (body as GraphqlParameters).query as string) !== 'mutation') return undefined;
      const type = mediaType as string;
      const answers = (entry.answers ??= new Map<string, ResourceAnswer | undefined>());
      if (!answers.has(type)) answers.set(type, graphqlResourceAnswer(entry.operation, type, rootFields));
      return answers.get(type);
    },
    async answer(req, res, body, context) {
      const parameters = parametersOf(req, body);
      const entry = parameters ? lookup(parameters) : undefined;
      const refusal = entry && parameters ? refusalOf(parameters, entry, parameters.variables) : undefined;
      if (refusal) {
        if (context.operation) context.operation.name = entry?.operation?.name?.value ?? 'anonymous';
        return writeGraphqlRequestError(req, res, refusal);
      }
      const toApollo = () => {
        const normalized = withoutEmptyOperationName(req, body);
        return answerByApollo(apollo, req, res, normalized.body, async () => context, normalized.url);
      };
      const mediaType = entry?.operation ? compilable(req, body) : undefined;
      const kind = mediaType ? kindOf(entry!, (body as GraphqlParameters).query as string) : undefined;
      if (kind !== 'query' && kind !== 'mutation') return toApollo();
      const document = entry!.document!;
      const operation = entry!.operation!;
      const label = operation.name?.value ?? 'anonymous';
      // The access log names it as Apollo's operation-name plugin would.
      if (context.operation) context.operation.name = label;
      const values = ((body as GraphqlParameters).variables ?? undefined) as Record<string, unknown> | undefined;
      try {
        // Apollo's didResolveOperation plugins, in their order: permissions and arguments (the limits were checked first).
        checkOperation(schema, document, operation, context.auth, values ?? {});
      } catch {
        return toApollo();
      }
      const result = await operations.execute(document, operation.name?.value ?? null, context, values);
      if ((result.errors && result.errors.length > 0) || !('data' in result) || result.extensions !== undefined) {
        context.executed = result;
        return toApollo();
      }
      const text = `${JSON.stringify({ data: result.data })}\n`;
      res.statusCode = 200;
      res.setHeader('Content-Type', mediaType as string);
      res.setHeader('Content-Length', Buffer.byteLength(text));
      res.end(text);
    },
  };
}
