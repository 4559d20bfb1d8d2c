import type { EntityManager } from '@mikro-orm/postgresql';
import { execute, parse, type GraphQLSchema } from 'graphql';
import pino from 'pino';
import type { RequestContext } from '../../platform/graphql/request-context';
import type { WebhookData } from '../../platform/outbox/outbox';
import type { EventPayloadRenderer } from '../../modules/webhook/webhook-outbox';
import { REST_OPERATIONS } from './operations';

const silent = pino({ enabled: false });

/**
 * The webhook payload of an event: the REST route's own GetEvent operation, run in the changing
 * transaction with a read-only context of the organization, so `data` is what GET /v1/events/{slug} returns.
 */
export function eventPayloadRenderer(schema: GraphQLSchema): EventPayloadRenderer {
  const document = parse(REST_OPERATIONS);
  return async (em: EntityManager, organizationId: string, slug: string) => {
    const context: RequestContext = {
      requestId: 'webhook-outbox',
      auth: {
        apiKeyId: 'webhook-outbox',
        organization: { id: organizationId, timezone: 'UTC', plan: 'STANDARD', allowedIps: [], restrictionMode: 'OFF', rateLimitPerMinute: null },
        permissions: ['events:read'],
      },
      em,
      logger: silent,
    };
    const result = await execute({ schema, document, operationName: 'GetEvent', variableValues: { slug }, contextValue: context });
    if (result.errors?.length) throw result.errors[0];
    return result.data?.event as WebhookData;
  };
}
