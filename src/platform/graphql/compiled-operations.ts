import type { ApolloServerOptionsWithGateway, BaseContext } from '@apollo/server';
import { execute, GraphQLError, printSchema, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { tracing, type TraceScope } from '../observability/tracing';
import { operationOf } from './operation-of';

interface Entry {
  /** Executions seen before compiling: a document sent once is not worth compiling. */
  seen: number;
  compiled?: CompiledQuery | null;
}

/** How many times a document runs through graphql-js before it is compiled. */
const COMPILE_AFTER = 1;

type GatewayInterface = ApolloServerOptionsWithGateway<BaseContext>['gateway'];

/**
 * Executes operations compiled once with graphql-jit (a document turned into a JavaScript function:
 * no per-request walk of the AST, argument coercion planned ahead), with graphql-js semantics:
 * the same data, errors, paths, null propagation and extensions. Entries are keyed by the parsed
 * document object, which Apollo's document LRU (and the REST route table) hands back for every repeat
 * of a query: when a document leaves that cache, its compiled function goes with it.
 */
export class CompiledOperations {
  private readonly entries = new WeakMap<DocumentNode, Map<string | null, Entry>>();

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly compileAfter: number = COMPILE_AFTER,
  ) {}

  /** Compiles now (the REST routes' operations, at start-up); throws when the document cannot be. */
  precompile(document: DocumentNode, operationName: string): void {
    const entry = this.entryOf(document, operationName);
    entry.compiled = this.compile(document, operationName);
    if (!entry.compiled) throw new Error(`Operation ${operationName} could not be compiled`);
  }

  /** Runs an operation of both doors (REST's routes and Apollo's gateway): its span when tracing is on (D27). */
  execute(
    document: DocumentNode,
    operationName: string | null,
    contextValue: unknown,
    variableValues: Record<string, unknown> | undefined,
  ): ExecutionResult | Promise<ExecutionResult> {
    const runtime = tracing.runtime;
    const scope = runtime && (contextValue as { trace?: TraceScope } | null)?.trace;
    if (!runtime || !scope) return this.run(document, operationName, contextValue, variableValues);
    const operation = operationOf(document, operationName);
    return runtime.operation(scope, operation.type, operation.name, () => this.run(document, operationName, contextValue, variableValues));
  }

  private async run(
    document: DocumentNode,
    operationName: string | null,
    contextValue: unknown,
    variableValues: Record<string, unknown> | undefined,
  ): Promise<ExecutionResult> {
    const entry = this.entries.get(document)?.get(operationName) ?? this.entryOf(document, operationName);
    if (entry.compiled === undefined && entry.seen >= this.compileAfter) entry.compiled = this.compile(document, operationName);
    entry.seen += 1;
    if (entry.compiled) {
      const result = await entry.compiled.query(undefined, contextValue, variableValues ?? {});
      // No data at all: the variables could not be coerced (both doors check them before, so this is
      // rare); graphql-js words those errors, so it answers them.
      if ('data' in result) return result.errors?.length ? asGraphQLJsResult(result) : result;
    }
    return execute({ schema: this.schema, document, operationName, contextValue, variableValues });
  }

  /** Apollo Server's way to take another executor: a "gateway" that serves our own schema. */
  gateway(): GatewayInterface {
    const schema = this.schema;
    return {
      onSchemaLoadOrUpdate(callback) {
        callback({ apiSchema: schema, coreSupergraphSdl: printSchema(schema) });
        return () => undefined;
      },
      load: async () => ({
        executor: async (request) =>
          // The name the client sent: Apollo's own `operationName` is the resolved one, null when the
          // name matches no operation, which would run the document's only operation instead of
          // answering "Unknown operation" (400 OPERATION_RESOLUTION_FAILURE).
          this.execute(request.document, request.request.operationName ?? null, request.context, request.request.variables),
      }),
      stop: async () => undefined,
    };
  }

  private entryOf(document: DocumentNode, operationName: string | null): Entry {
    let byName = this.entries.get(document);
    if (!byName) {
      byName = new Map();
      this.entries.set(document, byName);
    }
    let entry = byName.get(operationName);
    if (!entry) {
      entry = { seen: 0 };
      byName.set(operationName, entry);
    }
    return entry;
  }

  /** null: graphql-jit refused it (graphql-js runs it then, every time). */
  private compile(document: DocumentNode, operationName: string | null): CompiledQuery | null {
    try {
      const compiled = compileQuery(this.schema, document, operationName ?? undefined);
      return isCompiledQuery(compiled) ? compiled : null;
    } catch {
      return null;
    }
  }
}

/**
 * graphql-jit's errors are GraphQLError look-alikes (no `extensions` object unless the cause has one,
 * no source nodes): rebuilt as graphql-js builds them, so formatting and logging see the same errors.
 */
function asGraphQLJsResult(result: ExecutionResult): ExecutionResult {
  // A rebuilt error takes the stack of its cause (GraphQLError copies it over its own): capturing its
  // own first, which V8 then formats when it is replaced, was the largest cost of a refusal (SOLD_OUT
  // in a ticket drop, docs/performance.md). No frames are captured while the errors are rebuilt.
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return {
      ...result,
      errors: (result.errors ?? []).map((error) => {
        const rebuilt = new GraphQLError(error.message, {
          path: error.path,
          // graphql-js raises its own execution failures (a null in a non-null field…) as plain Errors.
          originalError: error.originalError ?? new Error(error.message),
          extensions: error.extensions,
        });
        (rebuilt as { locations?: GraphQLError['locations'] }).locations = error.locations;
        return rebuilt;
      }),
    };
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
}
