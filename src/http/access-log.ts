import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { redactUrl } from '../foundation/logger';
import { routeLabelOf } from '../platform/observability/route-label';

/** What the access line says of one answered request. */
export interface AccessRecord {
  readonly method: string;
  /** The raw URL (redacted here). */
  readonly url: string;
  readonly route: string;
  readonly operation: string | undefined;
  readonly status: number;
  /** process.hrtime.bigint() when the request arrived. */
  readonly started: bigint;
  readonly organizationId: string | undefined;
}

/** The one structured access line of a request, on its request-scoped logger. Never a key or header. */
export function writeAccessLine(requestLogger: Logger, record: AccessRecord): void {
  requestLogger.info(
    {
      method: record.method,
      url: redactUrl(record.url),
      route: record.route,
      operation: record.operation,
      status: record.status,
      durationMs: Number(process.hrtime.bigint() - record.started) / 1e6,
      organizationId: record.organizationId,
    },
    'request',
  );
}

/**
 * One structured line per request (request id, organization, route pattern, operation, status,
 * duration), and a request-scoped logger for the handlers.
 */
export function accessLog(logger: Logger): RequestHandler {
  const accessLineEnabled = logger.isLevelEnabled('info');
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    let child: Logger | undefined;
    // Made when first used (a handler that logs, or the access line below).
    const requestLogger = (): Logger => (child ??= logger.child({ requestId: res.locals.requestId }));
    Object.defineProperty(res.locals, 'logger', { get: requestLogger, enumerable: true, configurable: true });
    if (!accessLineEnabled) {
      next();
      return;
    }
    res.on('finish', () => {
      writeAccessLine(requestLogger(), {
        method: req.method,
        url: req.originalUrl,
        route: routeLabelOf(res),
        operation: res.locals.operation?.name,
        status: res.statusCode,
        started,
        organizationId: res.locals.auth?.organization.id,
      });
    });
    next();
  };
}
