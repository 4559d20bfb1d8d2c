import type * as CreateModule from '../../modules/webhook/commands/create-webhook-endpoint';
import type * as DeleteModule from '../../modules/webhook/commands/delete-webhook-endpoint';
import type * as OrganizationRepositoryModule from '../../modules/organization/organization.repository';
import type * as RuntimeModule from '../../platform/outbox/webhook-runtime';
import type * as RepositoryModule from '../../modules/webhook/webhook.repository';
import type * as ViewModule from '../../modules/webhook/webhook.view';
import { parseCsv, required } from './arguments';
import { type Command, type CommandContext, parser } from './command';

// Required when a command runs, not when the command list is built (see Command).
const endpoints = () => require('../../modules/webhook/webhook.repository') as typeof RepositoryModule;
const view = () => (require('../../modules/webhook/webhook.view') as typeof ViewModule).webhookEndpointView;

/** The server secret (SECRET_KEY, or the key file in DATA_DIR) and destination rule, from the command's context. */
const runtime = ({ config, secrets }: CommandContext) =>
  (require('../../platform/outbox/webhook-runtime') as typeof RuntimeModule).webhookRuntime(config.webhooks, secrets);

export const WEBHOOK_COMMANDS: Command[] = [
  {
    name: 'webhook create',
    usage: 'webhook create --org ORG_ID --url URL [--events CSV] [--description TEXT]',
    help: `webhook create --org ORG_ID --url URL [--events CSV] [--description TEXT]
  Registers a webhook endpoint (https, public address) for the organization's changes: every type,
  or only those in --events (event.created, event.updated, event.published, event.cancelled,
  event.deleted, ticket_type.created, ticket_type.updated, ticket_type.deleted, booking.created,
  booking.cancelled, booking.held, booking.confirmed, booking.expired, booking.checked_in,
  booking.check_in_undone, booking.transferred, booking.exchanged, waitlist.offered, series.created,
  series.updated, series.deleted,
  event.rescheduled, queue.admitted, queue.sold_out). Prints its id and the signing secret, shown only this
  once. Needs the server's SECRET_KEY (or its DATA_DIR) to encrypt the secret.`,
    parse: parser({ org: { type: 'string' }, url: { type: 'string' }, events: { type: 'string' }, description: { type: 'string' } }),
    async run(scope, options, _positionals, context) {
      const { createWebhookEndpoint } = require('../../modules/webhook/commands/create-webhook-endpoint') as typeof CreateModule;
      const input = {
        url: options.url ?? '',
        description: options.description ?? null,
        eventTypes: options.events === undefined ? [] : parseCsv(options.events),
      };
      const { endpoint, secret } = await createWebhookEndpoint(scope, required(options, 'org'), input, runtime(context));
      return { ...view()(endpoint), secret };
    },
  },
  {
    name: 'webhook list',
    usage: 'webhook list --org ORG_ID',
    help: `webhook list --org ORG_ID
  The organization's webhook endpoints (never a secret). An unknown organization is NOT_FOUND.`,
    parse: parser({ org: { type: 'string' } }),
    async run({ em }, options) {
      const { findOrganization } = require('../../modules/organization/organization.repository') as typeof OrganizationRepositoryModule;
      const organizationId = required(options, 'org');
      // Like `key list` and `member list`: an unknown organization is NOT_FOUND, not an empty list.
      await findOrganization(em, organizationId);
      return { endpoints: (await endpoints().endpointsOfOrganization(em, organizationId)).map(view()) };
    },
  },
  {
    name: 'webhook delete',
    usage: 'webhook delete ENDPOINT_ID',
    help: `webhook delete ENDPOINT_ID
  Deletes the endpoint with its messages; nothing more is sent to it.`,
    parse: parser({}, 1),
    async run(scope, _options, [endpointId]) {
      const { em } = scope;
      // The operator names an endpoint of any organization: its organization first, then the command scoped to it.
      const { deleteWebhookEndpoint } = require('../../modules/webhook/commands/delete-webhook-endpoint') as typeof DeleteModule;
      return deleteWebhookEndpoint(scope, await endpoints().organizationOfEndpoint(em, endpointId), endpointId);
    },
  },
];
