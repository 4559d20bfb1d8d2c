import { request } from '../api';
import { formatDate, h, scrollingTable } from '../dom';
import {
  RedeliverWebhookMessageDocument,
  type RedeliverWebhookMessageMutation,
  type RedeliverWebhookMessageMutationVariables,
  type WebhookEndpointFieldsFragment,
  type WebhookMessagesQuery,
} from '../generated/operations';
import type { PageContext } from '../page';

/** An endpoint's messages on the webhooks page: each with its attempts (and their traces, D27) and, for webhooks:write, a redelivery. */
export function messagesTable(context: PageContext, endpoint: WebhookEndpointFieldsFragment, result: WebhookMessagesQuery): HTMLElement {
  if (result.webhookMessages.messages.length === 0) return h('p', {}, 'No messages yet.');
  const rows = result.webhookMessages.messages.map((message) => {
    const attempts =
      message.attempts.length === 0
        ? 'none yet'
        : h(
            'ul',
            { class: 'attempts-list', 'aria-label': `Attempts of message ${message.id}` },
            ...message.attempts.map((attempt) =>
              h(
                'li',
                {},
                `#${attempt.attemptNumber} ${formatDate(attempt.attemptedAt)}: ${attempt.statusCode ?? attempt.error ?? '—'} (${Math.round(attempt.durationMs)} ms)`,
                // D27: the attempt's trace, to look up in the tracing backend.
                attempt.traceId ? h('span', { class: 'hint', title: 'Trace id' }, ` trace ${attempt.traceId}`) : null,
              ),
            ),
          );
    const redeliver = context.session.permissions.includes('webhooks:write')
      ? h('button', {
          type: 'button',
          class: 'secondary',
          'aria-label': `Redeliver message ${message.id}`,
          onclick: () =>
            void request<RedeliverWebhookMessageMutation, RedeliverWebhookMessageMutationVariables>(RedeliverWebhookMessageDocument, {
              endpointId: endpoint.id,
              messageId: message.id,
            }).then(() => {
              context.announce(`Message ${message.id} sent again`);
              context.reload();
            }, (error: unknown) => context.showError(error)),
        }, 'Redeliver')
      : null;
    return h(
      'tr',
      {},
      h('td', {}, h('code', {}, message.id)),
      h('td', {}, message.type),
      h('td', {}, message.status),
      h('td', {}, formatDate(message.createdAt)),
      h('td', { class: 'attempts' }, attempts, message.nextAttemptAt ? h('div', { class: 'hint' }, `next: ${formatDate(message.nextAttemptAt)}`) : null),
      h('td', { class: 'row-actions' }, redeliver),
    );
  });
  return scrollingTable(`Messages to ${endpoint.url}`, ['Message', 'Type', 'Status', 'Created', 'Attempts', 'Actions'], rows);
}
