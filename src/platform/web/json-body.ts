import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import express, { type Request, type RequestHandler } from 'express';
import { AppError } from '../../foundation/errors/app-error';
import { formatInputPath, jsonBoundViolation } from '../../foundation/validation/input-bounds';

export const MAX_BODY_BYTES = 1024 * 1024;

const parseJsonBody = promisify<IncomingMessage, ServerResponse>(express.json({ limit: MAX_BODY_BYTES, type: ['application/json', 'application/*+json'], strict: false }));

const PLAIN_JSON = /^application\/json(?:;\s*charset=utf-8)?$/i;

/**
 * A JSON body up to 1 MiB, nested at most MAX_JSON_DEPTH deep, read once: the value (undefined for a
 * request without a JSON body). A body past a bound is 400 naming the field, before any code walks it.
 *
 * The common case (`application/json` in UTF-8, a Content-Length within the bound, no Content-Encoding
 * or Transfer-Encoding) is read here, as body-parser would read it (BOM dropped, empty means {}, any
 * JSON value); anything else goes through body-parser, whose own errors reject as they are for the
 * error writer to map. body-parser on every body cost a booking a tenth to a sixth of its CPU
 * (docs/performance.md: the figure, and when this can go).
 */
export async function readJsonBody(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
  const { headers } = req;
  const length = Number(headers['content-length']);
  const plain =
    PLAIN_JSON.test(headers['content-type'] ?? '') && headers['content-encoding'] === undefined && headers['transfer-encoding'] === undefined &&
    Number.isSafeInteger(length) && length >= 0 && length <= MAX_BODY_BYTES;
  let body: unknown;
  if (plain) {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      chunks.push(chunk);
    }
    if (size !== length) throw Object.assign(new Error('request size did not match content length'), { type: 'request.size.invalid', status: 400, expose: true });
    const text = (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size)).toString('utf8');
    const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
    try {
      body = json.length === 0 ? {} : JSON.parse(json);
    } catch (error) {
      // Shaped as body-parser's, for the error writer to map the same way (400 on field body).
      throw Object.assign(error instanceof Error ? error : new SyntaxError('invalid JSON'), { type: 'entity.parse.failed', status: 400, expose: true });
    }
    (req as Request).body = body;
  } else {
    await parseJsonBody(req, res);
    body = (req as Request).body as unknown;
  }
  const violation = jsonBoundViolation(body);
  if (violation) throw AppError.validation([{ field: formatInputPath(violation.path) || 'body', message: violation.message }]);
  return body;
}

/** readJsonBody as Express middleware (the dashboard's endpoints): the value on `req.body`. */
export const jsonBody: RequestHandler = (req, res, next) => {
  readJsonBody(req, res).then(() => next(), next);
};
