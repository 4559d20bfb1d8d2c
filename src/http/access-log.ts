import type { Logger } from 'pino';
import { redactUrl } from '../foundation/logger';

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
