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
import { MAX_BODY_BYTES, parseReadBody } from '../../platform/web/json-body';
import { documentBoundViolation, jsonBoundViolation, MAX_DOCUMENT_TOKENS } from '../../foundation/validation/input-bounds';
import { checkOperation } from './apollo';
import type { CompiledOperations } from '../../platform/graphql/compiled-operations';
import { NoNulCharactersRule } from '../../platform/graphql/no-nul-characters';
import { isIntrospectionOnly, queryLimitsCheck, type QueryLimits } from './query-limits';
import type { RequestContext } from '../../platform/graphql/request-context';

/** A document the lane runs: parsed, validated (as Apollo validates it) and resolved once. */
interface KnownDocument {
  readonly document: DocumentNode;
  readonly operation: OperationDefinitionNode;
  /** The resolved operation's name, as Apollo hands it to its executor (so both share one compiled function). */
  readonly operationName: string | null;
  /** What the access log names it (as Apollo's operation-name plugin does). */
  readonly label: string;
}

/** Documents kept, by query text and operation name; the least recently used goes first. */
const MAX_KNOWN_DOCUMENTS = 500;
/** The content type of every answer the lane writes itself (Apollo's for a JSON request). */
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
const JSON_REQUEST = /^application\/json(?:;\s*charset=utf-8)?$/i;
/** Accept headers for which Apollo answers application/json. */
const JSON_ACCEPTED = new Set([undefined, '*/*', 'application/json']);

/** The context the lane runs an operation with: it may hand Apollo a result it already has (RequestContext.executed). */
export type LaneContext = RequestContext & { executed: ExecutionResult | undefined };

/** A GraphQL request the lane may answer: read, parsed and looked up, before any guard runs. */
export interface GraphqlLaneRequest {
  /** The operation's name, for the access log. */
  readonly operationName: string;
  /** Runs the operation and writes its answer (the guards have passed). */
  answer(res: ServerResponse, context: LaneContext): Promise<void>;
}

/** The /graphql part of the lane (graphqlLane below). */
export interface GraphqlLane {
  /**
   * Reads the body of a POST /graphql and says whether the lane answers it; when not, the request
   * is handed to Express with its body already read (see json-body.ts).
   */
  accept(req: IncomingMessage): Promise<GraphqlLaneRequest | undefined>;
}

export interface GraphqlLaneDeps {
  readonly schema: GraphQLSchema;
  readonly apollo: ApolloServer<RequestContext>;
  /** The executor Apollo's gateway uses: one compiled function per document. */
  readonly operations: CompiledOperations;
  readonly limits: QueryLimits;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The whole body (Content-Length bytes), or undefined if the request ended otherwise. */
function readBody(req: IncomingMessage, length: number): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      chunks.push(chunk);
    });
    req.once('end', () => resolve(size === length ? (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size)) : undefined));
    req.once('error', () => resolve(undefined));
  });
}

/**
 * POST /graphql in the fast lane (issue 8): a JSON request whose document was seen before runs here,
 * without Apollo's request pipeline. The document is parsed and validated as Apollo does it once, then
 * kept by its text; per request only the checks Apollo's plugins run (`checkOperation`, the query
 * limits) and the compiled operation. A request the lane is unsure of goes to Express and Apollo
 * (session cookies, Idempotency-Key, other content types or Accept headers, persisted queries,
 * mutations, introspection, a document that does not parse or validate, a body past a bound), and
 * so does every answer with errors: a check that refuses it before execution (Apollo refuses it again,
 * nothing ran), or a result with errors, which Apollo reports from the result the lane hands it
 * (RequestContext.executed). Answers are thus Apollo's, byte for byte; the lane writes only `{"data"}`.
 */
export function graphqlLane({ schema, apollo, operations, limits }: GraphqlLaneDeps): GraphqlLane {
  const known = new Map<string, KnownDocument | null>();
  const checkLimits = queryLimitsCheck(limits);
  const rules = [...specifiedRules, NoNulCharactersRule];

  function learn(query: string, operationName: string | null): KnownDocument | null {
    // Introspection may be off (Apollo then refuses it in validation), and is not limited: Apollo's.
    if (documentBoundViolation(query) || query.includes('__schema') || query.includes('__type')) return null;
    let document: DocumentNode;
    try {
      document = parse(query, { maxTokens: MAX_DOCUMENT_TOKENS });
    } catch {
      return null;
    }
    if (validate(schema, document, rules).length > 0) return null;
    const operation = getOperationAST(document, operationName);
    if (!operation || operation.operation !== OperationTypeNode.QUERY || isIntrospectionOnly(operation)) return null;
    return { document, operation, operationName: operation.name?.value ?? null, label: operation.name?.value ?? 'anonymous' };
  }

  function lookup(query: string, operationName: string | null): KnownDocument | null {
    const key = operationName === null ? query : `${operationName}\u0000${query}`;
    let entry = known.get(key);
    if (entry === undefined) {
      entry = learn(query, operationName);
      if (known.size >= MAX_KNOWN_DOCUMENTS) known.delete(known.keys().next().value as string);
    } else {
      known.delete(key);
    }
    known.set(key, entry);
    return entry;
  }

  /** Apollo answers (as its Express integration would write it), from the lane's context. */
  async function byApollo(req: IncomingMessage, res: ServerResponse, body: Record<string, unknown>, context: LaneContext): Promise<void> {
    const headers = new HeaderMap();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    const response = await apollo.executeHTTPGraphQLRequest({
      httpGraphQLRequest: { method: 'POST', headers, search: '', body },
      context: async () => context,
    });
    for (const [name, value] of response.headers) res.setHeader(name, value);
    res.statusCode = response.status ?? 200;
    if (response.body.kind !== 'complete') throw new Error('the fast lane runs queries only: no incremental answers');
    res.setHeader('Content-Length', Buffer.byteLength(response.body.string));
    res.end(response.body.string);
  }

  return {
    async accept(req) {
      const { headers } = req;
      const length = Number(headers['content-length']);
      if (
        !JSON_REQUEST.test(headers['content-type'] ?? '') ||
        headers['content-encoding'] !== undefined ||
        headers['transfer-encoding'] !== undefined ||
        !JSON_ACCEPTED.has(headers.accept) ||
        headers.authorization === undefined ||
        !Number.isSafeInteger(length) ||
        length > MAX_BODY_BYTES
      ) {
        return undefined;
      }
      const raw = await readBody(req, length);
      if (raw === undefined) return undefined;
      // From here on, a request left to Express has its body on req.body (see json-body.ts).
      const parsed = parseReadBody(req, raw.toString('utf8'));
      const body = parsed?.value;
      if (!isRecord(body) || typeof body.query !== 'string' || jsonBoundViolation(body)) return undefined;
      const { query, variables, operationName, extensions } = body;
      if ((extensions !== undefined && extensions !== null) || !(variables === undefined || variables === null || isRecord(variables))) return undefined;
      if (!(operationName === undefined || operationName === null || typeof operationName === 'string')) return undefined;
      const entry = lookup(query, operationName ?? null);
      if (entry === null) return undefined;
      const values = variables ?? undefined;
      const request: GraphqlLaneRequest = {
        operationName: entry.label,
        answer: async (res, context) => {
          try {
            // Apollo's didResolveOperation plugins, in their order: permissions and arguments, limits.
            checkOperation(schema, entry.document, entry.operation, context.auth, values ?? {});
            checkLimits(schema, entry.document, entry.operation, values);
          } catch {
            await byApollo(req, res, body, context);
            return;
          }
          const result = await operations.execute(entry.document, entry.operationName, context, values);
          if ((result.errors && result.errors.length > 0) || !('data' in result) || result.extensions !== undefined) {
            context.executed = result;
            await byApollo(req, res, body, context);
            return;
          }
          const text = `${JSON.stringify({ data: result.data })}\n`;
          res.statusCode = 200;
          res.setHeader('Content-Type', JSON_CONTENT_TYPE);
          res.setHeader('Content-Length', Buffer.byteLength(text));
          res.end(text);
        },
      };
      return request;
    },
  };
}
