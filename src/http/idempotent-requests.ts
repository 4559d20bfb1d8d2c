import { hash } from 'node:crypto';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import stableStringify from 'fast-json-stable-stringify';
import type { Logger } from 'pino';
import { AppError, type ErrorCode } from '../foundation/errors/app-error';
import type { IdempotencyKeyStore, StoredResponse } from '../platform/idempotency/idempotency-key.store';
import type { HeldKey } from '../platform/idempotency/held-key';
import { IN_USE_RETRY_AFTER_SECONDS, retryInBackground } from '../platform/idempotency/idempotency-lease';
import type { TraceScope } from '../platform/observability/tracing';

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
/** 1 to 255 printable ASCII characters (D17). */
const KEY_FORMAT = /^[\x20-\x7E]{1,255}$/;
/** Response headers a replay repeats (X-Request-Id and rate-limit headers are the retry's own). */
const REPLAYED_HEADERS = ['content-type', 'location'];

/**
 * Answers decided before the operation ran, or failures of the server: never stored, so the retry
 * runs for real (D17). GraphQL reports some of them with HTTP 200, so the codes are read too.
 */
const NOT_STORED_CODES = new Set<string>([
  'UNAUTHORIZED',
  'INVALID_API_KEY',
  'API_KEY_EXPIRED',
  'FORBIDDEN',
  'IP_NOT_ALLOWED',
  'HTTPS_REQUIRED',
  'RATE_LIMITED',
  'PAYLOAD_TOO_LARGE',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
  'IDEMPOTENCY_KEY_IN_USE',
  'IDEMPOTENCY_KEY_REUSED',
] satisfies ErrorCode[]);

function isStorable(status: number, body: string): boolean {
  if (!(status >= 200 && status < 300) && status !== 400 && status !== 404 && status !== 409) return false;
  if (!body.includes('"code"')) return true;
  try {
    const parsed = JSON.parse(body) as { error?: { code?: string }; errors?: Array<{ extensions?: { code?: string } }> };
    const codes = [parsed.error?.code, ...(parsed.errors ?? []).map((error) => error.extensions?.code)];
    return !codes.some((code) => code !== undefined && NOT_STORED_CODES.has(code));
  } catch {
    return true;
  }
}

export function fingerprintOf(parts: unknown): string {
  return hash('sha256', stableStringify(parts), 'hex');
}

type EndArguments = Parameters<ServerResponse['end']>;

/**
 * Holds the answer of a request that holds its Idempotency-Key until the key's record is settled
 * (`settle`: its answer stored, or the key released), so a retry never sees the key free while the
 * first answer is on its way; never past the request's deadline (src/http/deadline.ts): a database
 * that stopped answering holds the record, not the client. What is sent is what is stored.
 */
function holdAnswer(res: ServerResponse, settle: (response: StoredResponse | undefined) => Promise<void>, dueAt: number | undefined): void {
  const originalEnd = res.end.bind(res) as (...args: EndArguments) => ServerResponse;
  const originalWrite = res.write.bind(res);
  let streamed = false;
  res.write = ((...args: Parameters<ServerResponse['write']>) => {
    streamed = true;
    return originalWrite(...args);
  }) as ServerResponse['write'];
  res.end = ((...args: EndArguments) => {
    res.end = originalEnd as ServerResponse['end'];
    const chunk: unknown = args[0];
    const body = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : typeof chunk === 'function' || chunk === undefined ? '' : undefined;
    const headers: Record<string, string> = {};
    for (const name of REPLAYED_HEADERS) {
      const value = res.getHeader(name);
      if (value !== undefined) headers[name] = String(value);
    }
    const stored = !streamed && body !== undefined && isStorable(res.statusCode, body) ? { status: res.statusCode, headers, body } : undefined;
    const left = dueAt === undefined ? undefined : Math.max(0, dueAt - performance.now());
    let timer: NodeJS.Timeout | undefined;
    const settled = settle(stored);
    const waited = left === undefined ? settled : Promise.race([settled, new Promise<void>((resolve) => (timer = setTimeout(resolve, left)))]);
    void waited.finally(() => {
      clearTimeout(timer);
      // An overdue request was answered 503 meanwhile (src/http/pipeline.ts).
      if (!res.writableEnded) originalEnd(...args);
    });
    return res;
  }) as ServerResponse['end'];
}

/** A stored answer, replayed: same status, body and replayed headers, with Idempotent-Replayed (D17). */
function replay(res: ServerResponse, { status, headers, body }: StoredResponse): void {
  res.statusCode = status;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('Idempotent-Replayed', 'true');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

/** A write that carries an Idempotency-Key: whose, which key, and what makes a retry the same request. */
export interface IdempotentRequest {
  readonly organizationId: string;
  readonly key: string;
  /** What makes two requests the same (method, path and body; for GraphQL the document and variables). */
  readonly parts: unknown;
  readonly requestId: string;
  /** Where the request is in its trace, when tracing is on (D27). */
  readonly trace?: TraceScope;
  /** When the request's answer is due (performance.now() time, src/http/deadline.ts); undefined: no deadline. */
  readonly dueAt?: number;
}

/** The key a request holds while it runs: the unit of work records its recovery points on it. */
export interface RequestKey {
  readonly claim: HeldKey;
  /**
   * Releases the key when the answer's end did not settle it (an overdue request, answered 503 while
   * its work went on): a retry then runs at once, or recovers what committed.
   */
  releaseUnsettled(): Promise<void>;
}

/**
 * The pipeline's idempotency step (D17), at the edge: the key is claimed before the operation runs.
 * Another request's key answers here: its stored answer replayed (then undefined: the request is
 * answered), 409 IDEMPOTENCY_KEY_IN_USE while it runs, 422 IDEMPOTENCY_KEY_REUSED for another
 * request under the same key. A claimed key is the request's: its changes record their recovery
 * points on it in their own transactions, and its answer is stored after them, before it is sent.
 */
export type IdempotencyStep = (request: IdempotentRequest, res: ServerResponse) => Promise<RequestKey | undefined>;

/** Idempotency-Key (D17) for both doors, backed by `store`. */
export function idempotentRequests(store: IdempotencyKeyStore, logger: Logger): IdempotencyStep {
  return async ({ organizationId, key, parts, requestId, trace, dueAt }, res) => {
    const result = await store.claim(organizationId, key, fingerprintOf(parts), trace);
    if (result.kind === 'replay') {
      replay(res, result.response);
      return undefined;
    }
    if (result.kind === 'reused') throw AppError.idempotencyKeyReused(key);
    if (result.kind === 'in-use') throw AppError.idempotencyKeyInUse(key, IN_USE_RETRY_AFTER_SECONDS);
    const held = result.claim;
    let settled = false;
    /** Stores the answer, or releases the key; a failure is retried in the background. */
    const settle = async (response: StoredResponse | undefined): Promise<void> => {
      settled = true;
      const write = () => (response ? store.complete(held, response) : store.release(held));
      try {
        await write();
      } catch (error) {
        // The answer still goes out. The record is written again in the background until the
        // database takes it (a retry meanwhile gets 409 IN_USE, never a stale "free" key); should
        // that never happen, the key's lease ends and a retry runs from its recovery points.
        logger.error({ err: error, requestId, stored: Boolean(response) }, 'could not record the Idempotency-Key outcome; trying again in the background');
        retryInBackground(
          () => write().then(() => true),
          () => logger.info({ requestId }, 'Idempotency-Key outcome recorded after a retry'),
          store.stopping,
        );
      }
    };
    holdAnswer(res, settle, dueAt);
    return {
      claim: held,
      releaseUnsettled: async () => {
        if (settled) return;
        settled = true;
        await store.release(held);
      },
    };
  };
}
/** The Idempotency-Key header's value, or undefined when absent; a malformed one is 400 on field Idempotency-Key. */
export function idempotencyKeyOf(headers: IncomingHttpHeaders): string | undefined {
  const value = headers[IDEMPOTENCY_KEY_HEADER];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !KEY_FORMAT.test(value)) {
    throw AppError.validation([{ field: 'Idempotency-Key', message: 'must be 1 to 255 printable ASCII characters' }]);
  }
  return value;
}
