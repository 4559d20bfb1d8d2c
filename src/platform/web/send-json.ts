import type { ServerResponse } from 'node:http';

/**
 * A JSON body with its status, written in one piece: the body stays a string, so Node sends the
 * headers and the body in a single write (one TLS record batch), without Express's Buffer copy.
 */
/** The Content-Type of every JSON answer sendJson writes. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', JSON_CONTENT_TYPE);
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}
