import type * as ConfigModule from '../config';
import type * as EndpointEntityModule from '../modules/webhook/webhook-endpoint.entity';
import type * as RuntimeModule from '../modules/webhook/webhook-runtime';
import type * as WebhookModule from '../modules/webhook/webhook.service';
import { parseCsv, required } from './arguments';
import { type Command, parser } from './command';

// Required when a command runs, not when the command list is built (see Command).
const webhooks = () => require('../modules/webhook/webhook.service') as typeof WebhookModule;

const service = (em: Parameters<Command['run']>[0]) => {
  const config = (require('../config') as typeof ConfigModule).loadConfig();
  const { webhookRuntime } = require('../modules/webhook/webhook-runtime') as typeof RuntimeModule;
  return new (webhooks().WebhookService)(em, webhookRuntime(config.webhooks, config.dataDir));
};

export const WEBHOOK_COMMANDS: Command[] = [
  {
    name: 'webhook create',
    usage: 'webhook create --org ORG_ID --url URL [--events CSV] [--description TEXT]',
    help: `webhook create --org ORG_ID --url URL [--events CSV] [--description TEXT]
  Registers a webhook endpoint (https, public address) for the organization's changes: every type,
  or only those in --events (event.created, event.updated, event.published, event.cancelled,
  event.deleted, booking.created, booking.cancelled). Prints its id and the signing secret, shown
  only this once. Needs the server's WEBHOOK_SECRET_KEY (or its DATA_DIR) to encrypt the secret.`,
    parse: parser({ org: { type: 'string' }, url: { type: 'string' }, events: { type: 'string' }, description: { type: 'string' } }),
    async run(em, options) {
      const { endpoint, secret } = await service(em).create(required(options, 'org'), {
        url: options.url ?? '',
        description: options.description ?? null,
        eventTypes: options.events === undefined ? [] : parseCsv(options.events),
      });
      return { ...webhooks().webhookEndpointView(endpoint), secret };
    },
  },
  {
    name: 'webhook list',
    usage: 'webhook list --org ORG_ID',
    help: `webhook list --org ORG_ID
  The organization's webhook endpoints (never a secret).`,
    parse: parser({ org: { type: 'string' } }),
    async run(em, options) {
      const endpoints = await service(em).list(required(options, 'org'));
      return { endpoints: endpoints.map(webhooks().webhookEndpointView) };
    },
  },
  {
    name: 'webhook delete',
    usage: 'webhook delete ENDPOINT_ID',
    help: `webhook delete ENDPOINT_ID
  Deletes the endpoint with its messages; nothing more is sent to it.`,
    parse: parser({}, 1),
    async run(em, _options, [id]) {
      // The operator names an endpoint of any organization.
      const { WebhookEndpointEntity } = require('../modules/webhook/webhook-endpoint.entity') as typeof EndpointEntityModule;
      const endpoint = await em.findOne(WebhookEndpointEntity, { id });
      return service(em).delete(endpoint?.organization.id ?? '', id);
    },
  },
];
