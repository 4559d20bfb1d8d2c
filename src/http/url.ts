import { parse as parseQueryString } from 'node:querystring';

/*
 * What the pipeline reads of a request's URL. Express's application would parse it on its request
 * prototype (req.path, req.query); the pipeline runs on Express's Router without the application's
 * prototypes (src/app.ts), so it reads the URL itself, the same way.
 */

/** The path of a URL, without its query string. */
export function pathOf(url: string): string {
  const queryAt = url.indexOf('?');
  return queryAt === -1 ? url : url.slice(0, queryAt);
}

/** The query string parsed as Express's "simple" query parser does (node:querystring). */
export function queryOf(url: string): Record<string, unknown> {
  const queryAt = url.indexOf('?');
  return queryAt === -1 ? {} : parseQueryString(url.slice(queryAt + 1));
}
