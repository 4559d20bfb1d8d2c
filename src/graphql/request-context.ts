import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { AuthContext } from '../auth/auth-context';
import type { WebhookRuntime } from '../modules/webhook/webhook-runtime';

/** The per-request context, identical for /graphql and for REST routes executed in-process. */
export interface RequestContext {
  readonly requestId: string;
  readonly auth: AuthContext;
  /** A fork of the entity manager for this request only. */
  readonly em: EntityManager;
  readonly logger: Logger;
  /** The secret key and destination rule of webhook commands (D18); absent where none run. */
  readonly webhooks?: WebhookRuntime;
  /** What ran, for the access log: the REST route's operation, or the GraphQL operation's name. */
  readonly operation?: { name?: string };
}
