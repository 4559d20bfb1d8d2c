import { Arg, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import { cursorsOf } from '../../platform/graphql/list-cursors';
import type { RequestContext } from '../../platform/graphql/request-context';
import { RequiresPermission } from '../../platform/graphql/requires-permission';
import { DEFAULT_LIMIT } from '../../foundation/validation/arguments';
import { WebhookEndpointEntity } from './webhook-endpoint.entity';
import { NO_WEBHOOK_RUNTIME } from '../../platform/outbox/webhook-runtime';
import { createWebhookEndpoint } from './commands/create-webhook-endpoint';
import { deleteWebhookEndpoint } from './commands/delete-webhook-endpoint';
import { redeliverWebhookMessage } from './commands/redeliver-webhook-message';
import { rotateWebhookSecret } from './commands/rotate-webhook-secret';
import { sendTestWebhook } from './commands/send-test-webhook';
import { updateWebhookEndpoint } from './commands/update-webhook-endpoint';
import { listWebhookMessages } from './webhook.read-model';
import { endpointsOfOrganization } from './webhook.repository';
import {
  CreateWebhookEndpointInput,
  DeletedWebhookEndpoint,
  UpdateWebhookEndpointInput,
  WebhookEndpointWithSecret,
  WebhookMessage,
  WebhookMessageList,
  WebhookMessageStatus,
} from './webhook.types';

/** The secret key, destination rule and worker nudge the commands need (D18). */
const runtime = (context: RequestContext) => context.webhooks ?? NO_WEBHOOK_RUNTIME;

@Resolver(() => WebhookEndpointEntity)
export class WebhookResolver {
  @Query(() => [WebhookEndpointEntity], { description: "The organization's webhook endpoints, oldest first." })
  @RequiresPermission('webhooks:read')
  webhookEndpoints(@Ctx() context: RequestContext): Promise<WebhookEndpointEntity[]> {
    return endpointsOfOrganization(context.em, context.auth.organization.id);
  }

  @Query(() => WebhookMessageList, { description: "An endpoint's messages with every attempt, newest first." })
  @RequiresPermission('webhooks:read')
  webhookMessages(
    @Ctx() context: RequestContext,
    @Arg('endpointId', () => ID) endpointId: string,
    @Arg('page', () => Int, { defaultValue: 1 }) page: number,
    @Arg('limit', () => Int, { defaultValue: DEFAULT_LIMIT, description: '1 to 100.' }) limit: number,
    @Arg('status', () => WebhookMessageStatus, { nullable: true }) status?: WebhookMessageStatus | null,
    @Arg('after', () => String, {
      nullable: true,
      description: "A previous page's nextCursor (of this endpoint and status): the page after it, instead of a page number.",
    })
    after?: string | null,
  ): Promise<WebhookMessageList> {
    return listWebhookMessages(context.em, context.auth.organization.id, endpointId, { page, limit, status, after }, cursorsOf(context));
  }

  @Mutation(() => WebhookEndpointWithSecret, { description: 'Registers an endpoint; the signing secret is in this answer only.' })
  @RequiresPermission('webhooks:write')
  createWebhookEndpoint(@Ctx() context: RequestContext, @Arg('input') input: CreateWebhookEndpointInput): Promise<WebhookEndpointWithSecret> {
    return createWebhookEndpoint(context.scope, context.auth.organization.id, input, runtime(context));
  }

  @Mutation(() => WebhookEndpointEntity, { description: 'Changes the given fields.' })
  @RequiresPermission('webhooks:write')
  updateWebhookEndpoint(
    @Ctx() context: RequestContext,
    @Arg('id', () => ID) id: string,
    @Arg('input') input: UpdateWebhookEndpointInput,
  ): Promise<WebhookEndpointEntity> {
    return updateWebhookEndpoint(context.scope, context.auth.organization.id, id, input, runtime(context));
  }

  @Mutation(() => WebhookEndpointEntity, { description: 'Stops sending to the endpoint: no new message is queued for it until it is enabled again.' })
  @RequiresPermission('webhooks:write')
  disableWebhookEndpoint(@Ctx() context: RequestContext, @Arg('id', () => ID) id: string): Promise<WebhookEndpointEntity> {
    return updateWebhookEndpoint(context.scope, context.auth.organization.id, id, { enabled: false }, runtime(context));
  }

  @Mutation(() => WebhookEndpointEntity, {
    description: 'Sends to the endpoint again (as updateWebhookEndpoint with enabled: true): an endpoint the service disabled starts afresh.',
  })
  @RequiresPermission('webhooks:write')
  enableWebhookEndpoint(@Ctx() context: RequestContext, @Arg('id', () => ID) id: string): Promise<WebhookEndpointEntity> {
    return updateWebhookEndpoint(context.scope, context.auth.organization.id, id, { enabled: true }, runtime(context));
  }

  @Mutation(() => DeletedWebhookEndpoint, { description: 'Deletes an endpoint with its messages; nothing more is sent to it.' })
  @RequiresPermission('webhooks:write')
  deleteWebhookEndpoint(@Ctx() context: RequestContext, @Arg('id', () => ID) id: string): Promise<DeletedWebhookEndpoint> {
    return deleteWebhookEndpoint(context.scope, context.auth.organization.id, id);
  }

  @Mutation(() => WebhookEndpointWithSecret, {
    description: 'A new signing secret (shown once); the previous one keeps signing beside it for 24 hours.',
  })
  @RequiresPermission('webhooks:write')
  rotateWebhookSecret(@Ctx() context: RequestContext, @Arg('id', () => ID) id: string): Promise<WebhookEndpointWithSecret> {
    return rotateWebhookSecret(context.scope, context.auth.organization.id, id, runtime(context));
  }

  @Mutation(() => WebhookMessage, { description: 'Sends a message again now, with the same webhook-id.' })
  @RequiresPermission('webhooks:write')
  redeliverWebhookMessage(
    @Ctx() context: RequestContext,
    @Arg('endpointId', () => ID) endpointId: string,
    @Arg('messageId', () => ID) messageId: string,
  ): Promise<WebhookMessage> {
    return redeliverWebhookMessage(context.scope, context.auth.organization.id, endpointId, messageId, runtime(context));
  }

  @Mutation(() => WebhookMessage, { description: 'Sends a webhook.test message to the endpoint.' })
  @RequiresPermission('webhooks:write')
  sendTestWebhook(@Ctx() context: RequestContext, @Arg('endpointId', () => ID) endpointId: string): Promise<WebhookMessage> {
    return sendTestWebhook(context.scope, context.auth.organization.id, endpointId, runtime(context));
  }
}
