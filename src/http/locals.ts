import type { Logger } from 'pino';

/*
 * What the request pipeline hands the public endpoints Express routes (src/http/endpoints.ts), and what
 * they stamp for the pipeline's records, on `res.locals`, typed once (Express merges this interface into
 * every `res.locals`).
 */
declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace -- Express's own augmentation point.
  namespace Express {
    interface Locals {
      /** The pipeline's request id. */
      requestId: string;
      /** The request's child logger. */
      logger: Logger;
      /** The route pattern for logs and metrics (never the raw URL). */
      route?: string;
      /** Which door answers: errors are written in its shape (the public endpoints: the REST envelope). */
      door?: 'rest' | 'graphql';
    }
  }
}
