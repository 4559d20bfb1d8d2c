import { hash } from 'node:crypto';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import stableStringify from 'fast-json-stable-stringify';
import type { Logger } from 'pino';
import { AppError, type ErrorCode } from '../foundation/errors/app-error';
import type { IdempotencyKeyStore, StoredResponse } from '../platform/idempotency/idempotency-key.store';
import { errorOfOutcome, PendingKey, type KeyOutcome, type ResourceAnswer } from '../platform/idempotency/pending-key';
import type { HeldKey } from '../platform/idempotency/held-key';
import { writeError, type Door } from './error-handler';
import { retryInBackground } from '../platform/idempotency/idempotency-lease';
import { timeLeftMs } from './deadline';
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

/** What the request answers instead of what its door made: the key's stored answer, or the key's error (in use, reused). */
type Replacement = { readonly replay: StoredResponse } | { readonly error: AppError };

/**
 * Holds the answer of a request with an Idempotency-Key until the key's record is settled (its answer
 * stored, or the key released), so a retry never sees the key free while the first answer is on its
 * way; `settle` may replace the answer (the key turned out to be another request's). When `settle` has
 * nothing to wait for (the change's statement stored the answer) it answers at once, not a promise,
 * and the answer goes out at once. Headers set before the operation ran (request id, rate budget,
 * CORS) stay on a replacement; the rest go.
 */
function captureResponse(
  res: ServerResponse,
  door: Door | undefined,
  settle: (response: StoredResponse | undefined) => Replacement | undefined | Promise<Replacement | undefined>,
): void {
  const originalEnd = res.end.bind(res) as (...args: EndArguments) => ServerResponse;
  const originalWrite = res.write.bind(res);
  const headersBefore = res.getHeaderNames();
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
    const answer = (replacement: Replacement | undefined) => {
      // An overdue request was answered 503 meanwhile (src/http/pipeline.ts).
      if (res.writableEnded) return;
      if (replacement === undefined || streamed || res.headersSent) {
        originalEnd(...args);
        return;
      }
      for (const name of res.getHeaderNames()) if (!headersBefore.includes(name)) res.removeHeader(name);
      if ('error' in replacement) {
        writeError(res, door, replacement.error);
        return;
      }
      const { status, headers: replayed, body: text } = replacement.replay;
      res.statusCode = status;
      for (const [name, value] of Object.entries(replayed)) res.setHeader(name, value);
      res.setHeader('Idempotent-Replayed', 'true');
      res.setHeader('Content-Length', Buffer.byteLength(text));
      res.end(text);
    };
    const settling = settle(stored);
    if (!(settling instanceof Promise)) {
      answer(settling);
      return res;
    }
    // The answer waits for its record, but never past the request's deadline (src/http/deadline.ts): a
    // database that stopped answering holds the record, not the client. Until it is written the key
    // reads as in use (409), then the record (or its recovery point) answers the retry.
    let replacement: Replacement | undefined;
    const settled = settling.then((value) => void (replacement = value));
    const left = timeLeftMs(res);
    let timer: NodeJS.Timeout | undefined;
    const waited = left === undefined ? settled : Promise.race([settled, new Promise<void>((resolve) => (timer = setTimeout(resolve, left)))]);
    void waited.finally(() => {
      clearTimeout(timer);
      answer(replacement);
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
  /** Which door answers (the shape of an error that replaces its answer). */
  readonly door: Door | undefined;
  /** When the answer is the REST shape of the resource the request's change returns: its status and headers (a REST create). */
  readonly resourceAnswer?: ResourceAnswer;
  /** Where the request is in its trace, when tracing is on (D27). */
  readonly trace?: TraceScope;
}

/**
 * The pipeline's idempotency step (D17): the request's key, which its first change claims (or its
 * answer, when it changed nothing), see PendingKey. Its answer is held until the key's record is
 * settled: stored (or left as its change's statement stored it), or the key released; when a claim
 * found the key another request's, the answer is replaced by the key's outcome (the stored answer of
 * an earlier request, 409 while that one runs, 422 for another request under the same key).
 */
export type IdempotencyStep = (request: IdempotentRequest, res: ServerResponse) => PendingKey;

/** Idempotency-Key (D17) for both doors, backed by `store`. */
export function idempotentRequests(store: IdempotencyKeyStore, logger: Logger): IdempotencyStep {
  return ({ organizationId, key, parts, requestId, door, resourceAnswer, trace }, res) => {
    const pending = new PendingKey(store, organizationId, key, fingerprintOf(parts), trace, resourceAnswer);
    /** Stores the answer of a request that holds the key, or releases it; a failure is retried in the background. */
    const record = async (held: HeldKey, response: StoredResponse | undefined, overwrite: boolean): Promise<undefined> => {
      const settle = () => (overwrite ? store.overwrite(held, response!) : response ? store.complete(held, response) : store.release(held));
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
      return undefined;
    };
    /** A request that changed nothing claims the key to store its answer (or finds it another request's). */
    const claimToStore = async (response: StoredResponse): Promise<Replacement | undefined> => {
      try {
        await pending.acquire();
      } catch (error) {
        if (pending.outcome) return replacementOf(key, pending.outcome);
        logger.error({ err: error, requestId }, 'could not claim the Idempotency-Key to store the answer; a retry runs the request again');
        return undefined;
      }
      pending.settled = true;
      return record(pending.holding!, response, false);
    };
    captureResponse(res, door, (response) => {
      if (pending.outcome) return replacementOf(key, pending.outcome);
      const held = pending.holding;
      // Nothing changed: only an answer to store claims the key, now.
      if (!held) return response ? claimToStore(response) : undefined;
      pending.settled = true;
      const inStatement = pending.answerStored;
      // The change's statement stored the answer: written again only if the one sent differs.
      if (inStatement && (!response || sameResponse(inStatement, response))) return undefined;
      return record(held, response, inStatement !== undefined);
    });
    return pending;
  };
}

function replacementOf(key: string, outcome: KeyOutcome): Replacement {
  return outcome.kind === 'replay' ? { replay: outcome.response } : { error: errorOfOutcome(key, outcome) };
}

function sameResponse(a: StoredResponse, b: StoredResponse): boolean {
  if (a.status !== b.status || a.body !== b.body) return false;
  const names = new Set([...Object.keys(a.headers), ...Object.keys(b.headers)]);
  return [...names].every((name) => a.headers[name] === b.headers[name]);
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
