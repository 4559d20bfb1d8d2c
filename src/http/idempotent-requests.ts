import { hash } from 'node:crypto';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import stableStringify from 'fast-json-stable-stringify';
import type { Logger } from 'pino';
import { AppError, type ErrorCode } from '../foundation/errors/app-error';
import type { IdempotencyClaim } from '../platform/db/unit-of-work-scope';
import type { IdempotencyKeyStore, StoredResponse } from '../platform/idempotency/idempotency-key.store';
import { retryInBackground } from '../platform/idempotency/idempotency-lease';
import { timeLeftMs } from './deadline';
import type { TraceScope } from '../platform/observability/tracing';

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
/** 1 to 255 printable ASCII characters (D17). */
const KEY_FORMAT = /^[\x20-\x7E]{1,255}$/;
/** Response headers a replay repeats (X-Request-Id and rate-limit headers are the retry's own). */
const REPLAYED_HEADERS = ['content-type', 'location'];
/** Retry-After of 409 IDEMPOTENCY_KEY_IN_USE: the first request usually finishes within a second. */
const IN_USE_RETRY_AFTER_SECONDS = 1;

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
 * Holds the response of the request that owns the key until it is stored (or the key released), so a
 * retry never sees the key free while the first answer is on its way.
 */
function captureResponse(res: ServerResponse, settle: (response: StoredResponse | undefined) => Promise<void>): void {
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
    // The answer waits for its record, but never past the request's deadline (src/http/deadline.ts): a
    // database that stopped answering holds the record, not the client. Until it is written the key
    // reads as in use (409), then the record (or its recovery point) answers the retry.
    const settled = settle(stored);
    const left = timeLeftMs(res);
    let timer: NodeJS.Timeout | undefined;
    const waited = left === undefined ? settled : Promise.race([settled, new Promise<void>((resolve) => (timer = setTimeout(resolve, left)))]);
    void waited.finally(() => {
      clearTimeout(timer);
      // An overdue request was answered 503 meanwhile (src/http/pipeline.ts).
      if (!res.writableEnded) originalEnd(...args);
    });
    return res;
  }) as ServerResponse['end'];
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
}

/**
 * The pipeline's idempotency step (D17): claims the key for this request, or answers for it (the stored
 * answer of an earlier one, 409 while that one runs, 422 for another request under the same key).
 * Resolves the claim the request holds when it is to run (its units of work record on it, and its
 * answer is recorded when written), undefined when it was answered here.
 */
export type IdempotencyStep = (request: IdempotentRequest, res: ServerResponse) => Promise<IdempotencyClaim | undefined>;

/** Idempotency-Key (D17) for both doors, backed by `store`. */
export function idempotentRequests(store: IdempotencyKeyStore, logger: Logger): IdempotencyStep {
  return async ({ organizationId, key, parts, requestId, trace }, res) => {
    const fingerprint = fingerprintOf(parts);
    const claim = await store.claim(organizationId, key, fingerprint, trace);
    switch (claim.kind) {
      case 'reused':
        throw AppError.idempotencyKeyReused(key);
      case 'in-use':
        throw AppError.idempotencyKeyInUse(key, IN_USE_RETRY_AFTER_SECONDS);
      case 'replay': {
        const { status, headers, body } = claim.response;
        res.statusCode = status;
        for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
        res.setHeader('Idempotent-Replayed', 'true');
        res.end(body);
        return undefined;
      }
      case 'claimed': {
        const held = claim.claim;
        captureResponse(res, async (response) => {
          const settle = () => (response ? store.complete(held, response) : store.release(held));
          try {
            await settle();
          } catch (error) {
            // The answer still goes out. The record is written again in the background until the
            // database takes it (a retry meanwhile gets 409 IN_USE, never a stale "free" key); should
            // that never happen, the key's lease ends and a retry runs from its recovery points.
            logger.error({ err: error, requestId, stored: Boolean(response) }, 'could not record the Idempotency-Key outcome; trying again in the background');
            retryInBackground(
              () => settle().then(() => true),
              () => logger.info({ requestId }, 'Idempotency-Key outcome recorded after a retry'),
            );
          }
        });
        // The request's units of work record their recovery points on the key (request context → em).
        return held;
      }
    }
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
