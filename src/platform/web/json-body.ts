import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type Request, type RequestHandler } from 'express';
import { AppError } from '../../foundation/errors/app-error';
import { formatInputPath, jsonBoundViolation } from '../../foundation/validation/input-bounds';

export const MAX_BODY_BYTES = 1024 * 1024;

const parseJson = express.json({ limit: MAX_BODY_BYTES, type: ['application/json', 'application/*+json'], strict: false });

/**
 * A JSON body up to 1 MiB, nested at most MAX_JSON_DEPTH deep, read once: the value (undefined for a
 * request without a JSON body). A body past a bound is 400 naming the field, before any code walks it;
 * body-parser's own errors (malformed, too large, another charset) reject as they are, for the error
 * writer to map.
 */
export function readJsonBody(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
  const length = plainJsonLength(req);
  if (length !== undefined) return readPlainJson(req, length);
  return new Promise((resolve, reject) => {
    parseJson(req, res, (error?: unknown) => {
      if (error) {
        // body-parser's own errors, as they are: the error writer maps them (src/http/error-handler.ts).
        reject(error instanceof Error ? error : new Error('the request body could not be read'));
        return;
      }
      const body = (req as Request).body as unknown;
      const violation = jsonBoundViolation(body);
      if (violation) {
        reject(AppError.validation([{ field: formatInputPath(violation.path) || 'body', message: violation.message }]));
        return;
      }
      resolve(body);
    });
  });
}

const PLAIN_JSON = /^application\/json(?:;\s*charset=utf-8)?$/i;

/**
 * The body's length when it is the common case, read without body-parser: `application/json` (UTF-8),
 * a Content-Length within the bound, no Content-Encoding or Transfer-Encoding. body-parser's content
 * negotiation, decoding and stream handling were a visible share of a hot GraphQL query's time
 * (docs/performance.md: the figure, and when this can go); anything
 * else goes through it.
 */
function plainJsonLength(req: IncomingMessage): number | undefined {
  const { headers } = req;
  if (!PLAIN_JSON.test(headers['content-type'] ?? '') || headers['content-encoding'] !== undefined || headers['transfer-encoding'] !== undefined) return undefined;
  const length = Number(headers['content-length']);
  return Number.isSafeInteger(length) && length >= 0 && length <= MAX_BODY_BYTES ? length : undefined;
}

/** An error shaped as body-parser's, for the error writer to map the same way (400 on field body). */
function parseFailure(error: unknown): Error {
  return Object.assign(error instanceof Error ? error : new SyntaxError('invalid JSON'), { type: 'entity.parse.failed', status: 400, expose: true });
}

/** Reads `length` bytes and parses them as body-parser would (BOM dropped, empty means {}, any JSON value). */
function readPlainJson(req: IncomingMessage, length: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      chunks.push(chunk);
    });
    req.once('error', reject);
    req.once('end', () => {
      if (size !== length) {
        reject(Object.assign(new Error('request size did not match content length'), { type: 'request.size.invalid', status: 400, expose: true }));
        return;
      }
      const text = (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size)).toString('utf8');
      const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
      let body: unknown;
      try {
        body = json.length === 0 ? {} : JSON.parse(json);
      } catch (error) {
        reject(parseFailure(error));
        return;
      }
      const violation = jsonBoundViolation(body);
      if (violation) {
        reject(AppError.validation([{ field: formatInputPath(violation.path) || 'body', message: violation.message }]));
        return;
      }
      (req as Request).body = body;
      resolve(body);
    });
  });
}

/** readJsonBody as Express middleware (the dashboard's endpoints): the value on `req.body`. */
export const jsonBody: RequestHandler = (req, res, next) => {
  readJsonBody(req, res).then(() => next(), next);
};
