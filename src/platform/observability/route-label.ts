import type { Response } from 'express';

/**
 * The route a response answered, as its pattern (e.g. /v1/events/:slug, /graphql) stamped by the
 * handler, never the raw URL: logs stay groupable and metric labels stay few whatever clients send.
 */
export function routeLabelOf(res: Response): string {
  return typeof res.locals.route === 'string' ? res.locals.route : 'unmatched';
}
