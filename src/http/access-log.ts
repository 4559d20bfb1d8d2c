import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { redactUrl } from '../logger';
import { routeLabelOf } from './route-label';

/**
 * One structured line per request (request id, organization, route pattern, operation, status,
 * duration), and a request-scoped logger for the handlers. Never a key or header.
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
      requestLogger().info(
        {
          method: req.method,
          url: redactUrl(req.originalUrl),
          route: routeLabelOf(res),
          operation: res.locals.operation?.name,
          status: res.statusCode,
          durationMs: Number(process.hrtime.bigint() - started) / 1e6,
          organizationId: res.locals.auth?.organization.id,
        },
        'request',
      );
    });
    next();
  };
}
