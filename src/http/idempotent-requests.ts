import { createHash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import stableStringify from 'fast-json-stable-stringify';
import { getOperationAST, OperationTypeNode, parse } from 'graphql';
import type { Logger } from 'pino';
import type { AuthContext } from '../platform/auth/auth-context';
import { AppError, type ErrorCode } from '../foundation/errors/app-error';
import { MAX_DOCUMENT_TOKENS } from '../foundation/validation/input-bounds';
import type { IdempotencyKeyStore, StoredResponse } from '../platform/idempotency/idempotency-key.store';

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
  return createHash('sha256').update(stableStringify(parts)).digest('hex');
}

type EndArguments = Parameters<Response['end']>;

/**
 * Holds the response of the request that owns the key until it is stored (or the key released), so a
 * retry never sees the key free while the first answer is on its way.
 */
function captureResponse(res: Response, settle: (response: StoredResponse | undefined) => Promise<void>): void {
  const originalEnd = res.end.bind(res) as (...args: EndArguments) => Response;
  const originalWrite = res.write.bind(res);
  let streamed = false;
  res.write = ((...args: Parameters<Response['write']>) => {
    streamed = true;
    return originalWrite(...args);
  }) as Response['write'];
  res.end = ((...args: EndArguments) => {
    res.end = originalEnd as Response['end'];
    const chunk: unknown = args[0];
    const body = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : typeof chunk === 'function' || chunk === undefined ? '' : undefined;
    const headers: Record<string, string> = {};
    for (const name of REPLAYED_HEADERS) {
      const value = res.getHeader(name);
      if (value !== undefined) headers[name] = String(value);
    }
    const stored = !streamed && body !== undefined && isStorable(res.statusCode, body) ? { status: res.statusCode, headers, body } : undefined;
    void settle(stored).finally(() => originalEnd(...args));
    return res;
  }) as Response['end'];
}

interface Idempotency {
  readonly key: string;
  readonly fingerprint: string;
}

/** The D17 flow for one request whose key and fingerprint are known. */
function runIdempotently(store: IdempotencyKeyStore, logger: Logger): (request: Idempotency, res: Response) => Promise<boolean> {
  return async ({ key, fingerprint }, res) => {
    const organizationId = (res.locals.auth as AuthContext).organization.id;
    const claim = await store.claim(organizationId, key, fingerprint);
    switch (claim.kind) {
      case 'reused':
        throw AppError.idempotencyKeyReused(key);
      case 'in-use':
        throw AppError.idempotencyKeyInUse(key, IN_USE_RETRY_AFTER_SECONDS);
      case 'replay': {
        const { status, headers, body } = claim.response;
        res.status(status);
        for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
        res.setHeader('Idempotent-Replayed', 'true');
        res.end(body);
        return false;
      }
      case 'claimed': {
        const held = claim.claim;
        // The request's units of work record their recovery points on the key (request context → em).
        res.locals.idempotency = held;
        captureResponse(res, async (response) => {
          try {
            if (response) await store.complete(held, response);
            else await store.release(held);
          } catch (error) {
            // The answer still goes out; the key stays RUNNING until its lease ends, then a retry runs.
            logger.error({ err: error, requestId: res.locals.requestId, stored: Boolean(response) }, 'could not record the Idempotency-Key outcome');
          }
        });
        return true;
      }
    }
  };
}

/** The header's value, or undefined when absent; a malformed one is 400 on field Idempotency-Key. */
function keyOf(req: Request): string | undefined {
  const value = req.headers[IDEMPOTENCY_KEY_HEADER];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !KEY_FORMAT.test(value)) {
    throw AppError.validation([{ field: 'Idempotency-Key', message: 'must be 1 to 255 printable ASCII characters' }]);
  }
  return value;
}

/** Is this GraphQL request (body) a mutation? Unparseable documents are left to Apollo. */
function isMutation(body: { query?: unknown; operationName?: unknown }): boolean {
  if (typeof body.query !== 'string') return false;
  try {
    const document = parse(body.query, { maxTokens: MAX_DOCUMENT_TOKENS, noLocation: true });
    const operationName = typeof body.operationName === 'string' ? body.operationName : undefined;
    return getOperationAST(document, operationName)?.operation === OperationTypeNode.MUTATION;
  } catch {
    return false;
  }
}

export interface IdempotencyMiddleware {
  /** REST writes (POST, PUT, DELETE under /v1): after the guards and the body parser. */
  readonly rest: RequestHandler;
  /** GraphQL mutations sent with POST /graphql: after the guards and the body parser. */
  readonly graphql: RequestHandler;
}

/** Idempotency-Key (D17) for both doors, backed by `store`. */
export function idempotentRequests(store: IdempotencyKeyStore, logger: Logger): IdempotencyMiddleware {
  const run = runIdempotently(store, logger);
  return {
    rest: async (req, res, next) => {
      const key = keyOf(req);
      if (key === undefined) return next();
      const fingerprint = fingerprintOf({ method: req.method, path: req.baseUrl + req.path, body: (req.body as unknown) ?? null });
      if (await run({ key, fingerprint }, res)) next();
    },
    graphql: async (req, res, next) => {
      const body = (req.body ?? {}) as { query?: unknown; operationName?: unknown; variables?: unknown };
      if (req.method !== 'POST' || req.headers[IDEMPOTENCY_KEY_HEADER] === undefined || !isMutation(body)) return next();
      const key = keyOf(req) as string;
      const fingerprint = fingerprintOf({
        method: 'POST',
        path: '/graphql',
        query: body.query,
        operationName: body.operationName ?? null,
        variables: body.variables ?? null,
      });
      if (await run({ key, fingerprint }, res)) next();
    },
  };
}
