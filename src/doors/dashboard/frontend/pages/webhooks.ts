import { messageOf, request } from '../api';
import { confirmDialog, field, formatDate, h, readOnlyNote, scrollingTable, secretPanel } from '../dom';
import {
  CreateWebhookEndpointDocument,
  DeleteWebhookEndpointDocument,
  DisableWebhookEndpointDocument,
  EnableWebhookEndpointDocument,
  RotateWebhookSecretDocument,
  SendTestWebhookDocument,
  UpdateWebhookEndpointDocument,
  WebhookEndpointsDocument,
  WebhookMessagesDocument,
  type CreateWebhookEndpointMutation,
  type CreateWebhookEndpointMutationVariables,
  type DeleteWebhookEndpointMutation,
  type DeleteWebhookEndpointMutationVariables,
  type DisableWebhookEndpointMutation,
  type DisableWebhookEndpointMutationVariables,
  type EnableWebhookEndpointMutation,
  type EnableWebhookEndpointMutationVariables,
  type RotateWebhookSecretMutation,
  type RotateWebhookSecretMutationVariables,
  type SendTestWebhookMutation,
  type SendTestWebhookMutationVariables,
  type UpdateWebhookEndpointMutation,
  type UpdateWebhookEndpointMutationVariables,
  type WebhookEndpointFieldsFragment,
  type WebhookEndpointsQuery,
  type WebhookMessagesQuery,
  type WebhookMessagesQueryVariables,
} from '../generated/operations';
import type { Page, PageContext } from '../page';
import { messagesTable } from './webhook-messages';
import { checkedTypes, typeCheckboxes } from './webhook-event-types';

const SECRET_WARNING = 'This is the only time the signing secret is shown. Configure your receiver with it now.';

/** How often the open messages are read again while the page shows them (deliveries happen in the background). */
const MESSAGES_POLL_MS = 2_000;

/** A secret just made, the endpoint whose messages are open and the one being edited, kept across re-renders. */
let pendingSecret: string | undefined;
let openEndpointId: string | undefined;
let editingEndpointId: string | undefined;

function createForm(context: PageContext): HTMLFormElement {
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'create-webhook-title' },
    h('h2', { id: 'create-webhook-title' }, 'Add an endpoint'),
    h('label', { for: 'webhook-url' }, 'URL (https)'),
    h('input', { id: 'webhook-url', name: 'url', type: 'url', required: true, autocomplete: 'off' }),
    h('label', { for: 'webhook-description' }, 'Description (optional)'),
    h('input', { id: 'webhook-description', name: 'description', autocomplete: 'off' }),
    h(
      'fieldset',
      {},
      h('legend', {}, 'Message types (none checked: every type)'),
      ...typeCheckboxes([]),
    ),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Add endpoint')),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const description = field(data, 'description');
    const variables: CreateWebhookEndpointMutationVariables = {
      input: { url: field(data, 'url'), description: description === '' ? null : description, eventTypes: checkedTypes(data), enabled: true },
    };
    request<CreateWebhookEndpointMutation, CreateWebhookEndpointMutationVariables>(CreateWebhookEndpointDocument, variables).then(
      (result) => {
        pendingSecret = result.createWebhookEndpoint.secret;
        context.reload();
      },
      (error: unknown) => context.showError(error),
    );
  });
  return form;
}

/** The edit form of an endpoint: its URL, description and message types, saved with updateWebhookEndpoint. */
function editForm(context: PageContext, endpoint: WebhookEndpointFieldsFragment, label: string): HTMLFormElement {
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'edit-webhook-title' },
    h('h2', { id: 'edit-webhook-title' }, `Edit ${label}`),
    h('label', { for: 'edit-webhook-url' }, 'Endpoint URL (https)'),
    h('input', { id: 'edit-webhook-url', name: 'url', type: 'url', required: true, autocomplete: 'off', value: endpoint.url }),
    h('label', { for: 'edit-webhook-description' }, 'Endpoint description (optional)'),
    h('input', { id: 'edit-webhook-description', name: 'description', autocomplete: 'off', value: endpoint.description ?? '' }),
    h('fieldset', {}, h('legend', {}, 'Message types sent to it (none checked: every type)'), ...typeCheckboxes(endpoint.eventTypes)),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit' }, 'Save endpoint'),
      h('button', { type: 'button', class: 'secondary', onclick: () => {
            editingEndpointId = undefined;
            context.reload();
          } }, 'Cancel'),
    ),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const description = field(data, 'description');
    const variables: UpdateWebhookEndpointMutationVariables = {
      id: endpoint.id,
      input: { url: field(data, 'url'), description: description === '' ? null : description, eventTypes: checkedTypes(data), enabled: null },
    };
    request<UpdateWebhookEndpointMutation, UpdateWebhookEndpointMutationVariables>(UpdateWebhookEndpointDocument, variables).then(
      () => {
        editingEndpointId = undefined;
        context.announce('Endpoint saved');
        context.reload();
      },
      (error: unknown) => context.showError(error),
    );
  });
  return form;
}

async function setEnabled(context: PageContext, endpoint: WebhookEndpointFieldsFragment, enabled: boolean): Promise<void> {
  try {
    if (enabled) await request<EnableWebhookEndpointMutation, EnableWebhookEndpointMutationVariables>(EnableWebhookEndpointDocument, { id: endpoint.id });
    else await request<DisableWebhookEndpointMutation, DisableWebhookEndpointMutationVariables>(DisableWebhookEndpointDocument, { id: endpoint.id });
    context.announce(enabled ? 'Endpoint enabled' : 'Endpoint disabled');
    context.reload();
  } catch (error) {
    context.showError(error);
  }
}

async function messagesOf(context: PageContext, endpoint: WebhookEndpointFieldsFragment): Promise<HTMLElement> {
  const body = h('div', {});
  const section = h(
    'section',
    { 'aria-labelledby': 'messages-title' },
    h('h2', { id: 'messages-title' }, `Messages to ${endpoint.url}`),
    // Deliveries happen in the background: the list is read again every few seconds while it is shown.
    h('p', { class: 'hint' }, 'New messages and attempts appear here as they happen.'),
    h('div', { class: 'actions' }, h('button', { type: 'button', class: 'secondary', onclick: () => context.reload() }, 'Refresh messages')),
    body,
  );
  const read = () => request<WebhookMessagesQuery, WebhookMessagesQueryVariables>(WebhookMessagesDocument, { endpointId: endpoint.id });
  let shown: string;
  try {
    const result = await read();
    shown = JSON.stringify(result);
    body.replaceChildren(messagesTable(context, endpoint, result));
  } catch (error) {
    section.append(h('p', { class: 'error-text' }, messageOf(error)));
    return section;
  }
  // Polls while the section is on the page; redraws only what changed (a focused control stays put otherwise).
  const poll = () => {
    if (!section.isConnected) return;
    read().then(
      (result) => {
        if (!section.isConnected) return;
        const text = JSON.stringify(result);
        if (text !== shown) {
          shown = text;
          body.replaceChildren(messagesTable(context, endpoint, result));
        }
        setTimeout(poll, MESSAGES_POLL_MS);
      },
      // Signed out or the endpoint deleted meanwhile: the next render says so; stop here.
      () => undefined,
    );
  };
  setTimeout(poll, MESSAGES_POLL_MS);
  return section;
}

async function rotateSecret(context: PageContext, endpoint: WebhookEndpointFieldsFragment): Promise<void> {
  if (!(await confirmDialog('Rotate the signing secret?', 'The old secret keeps signing beside the new one for 24 hours.', 'Rotate secret'))) return;
  try {
    const result = await request<RotateWebhookSecretMutation, RotateWebhookSecretMutationVariables>(RotateWebhookSecretDocument, { id: endpoint.id });
    pendingSecret = result.rotateWebhookSecret.secret;
    context.reload();
  } catch (error) {
    context.showError(error);
  }
}

async function remove(context: PageContext, endpoint: WebhookEndpointFieldsFragment, label: string): Promise<void> {
  if (!(await confirmDialog(`Delete ${label}?`, 'It gets no more messages; this cannot be undone.', 'Delete endpoint'))) return;
  try {
    await request<DeleteWebhookEndpointMutation, DeleteWebhookEndpointMutationVariables>(DeleteWebhookEndpointDocument, { id: endpoint.id });
    if (openEndpointId === endpoint.id) openEndpointId = undefined;
    context.announce('Endpoint deleted');
    context.reload();
  } catch (error) {
    context.showError(error);
  }
}

function endpointRow(context: PageContext, endpoint: WebhookEndpointFieldsFragment): HTMLTableRowElement {
  const canWrite = context.session.permissions.includes('webhooks:write');
  const label = endpoint.description ?? endpoint.url;
  const actions = h(
    'td',
    { class: 'row-actions' },
    h('button', { type: 'button', class: 'secondary', 'aria-label': `Messages of ${label}`, onclick: () => {
          openEndpointId = endpoint.id;
          context.reload();
        } }, 'Messages'),
  );
  if (canWrite) {
    actions.append(
      h('button', {
        type: 'button',
        class: 'secondary',
        'aria-label': `Send test to ${label}`,
        onclick: () =>
          void request<SendTestWebhookMutation, SendTestWebhookMutationVariables>(SendTestWebhookDocument, { endpointId: endpoint.id }).then(() => {
            openEndpointId = endpoint.id;
            context.announce('Test message queued');
            context.reload();
          }, (error: unknown) => context.showError(error)),
      }, 'Send test'),
      h('button', {
        type: 'button',
        class: 'secondary',
        'aria-label': `Edit ${label}`,
        'aria-expanded': String(editingEndpointId === endpoint.id),
        'aria-controls': 'edit-webhook-slot',
        onclick: () => {
          editingEndpointId = endpoint.id;
          context.reload();
        },
      }, 'Edit'),
      endpoint.enabled
        ? h('button', { type: 'button', class: 'secondary', 'aria-label': `Disable ${label}`, onclick: () => void setEnabled(context, endpoint, false) }, 'Disable')
        : h('button', { type: 'button', class: 'secondary', 'aria-label': `Enable ${label}`, onclick: () => void setEnabled(context, endpoint, true) }, 'Enable'),
      h('button', { type: 'button', class: 'secondary', 'aria-label': `Rotate secret of ${label}`, onclick: () => void rotateSecret(context, endpoint) }, 'Rotate secret'),
      h('button', { type: 'button', class: 'danger', 'aria-label': `Delete ${label}`, onclick: () => void remove(context, endpoint, label) }, 'Delete'),
    );
  }
  return h(
    'tr',
    {},
    h('td', {}, endpoint.url, endpoint.description ? h('div', { class: 'hint' }, endpoint.description) : null),
    h('td', {}, endpoint.eventTypes.join(', ') || 'every type'),
    h('td', {}, endpoint.enabled ? 'enabled' : `disabled${endpoint.disabledReason ? `: ${endpoint.disabledReason}` : ''}`),
    h('td', {}, formatDate(endpoint.createdAt)),
    actions,
  );
}

export const webhooksPage: Page = {
  path: 'webhooks',
  title: 'Webhooks',
  async render(context) {
    const { main } = context;
    if (pendingSecret !== undefined) {
      main.append(secretPanel('Signing secret', pendingSecret, SECRET_WARNING, 'Copy secret'));
      pendingSecret = undefined;
    }
    if (context.session.permissions.includes('webhooks:write')) main.append(createForm(context));
    else main.append(readOnlyNote('you see the endpoints and their messages; only organization admins add, change, test or delete endpoints.'));
    const { webhookEndpoints } = await request<WebhookEndpointsQuery, Record<string, never>>(WebhookEndpointsDocument);
    if (webhookEndpoints.length === 0) {
      main.append(h('p', {}, 'No endpoints yet.'));
      return;
    }
    main.append(scrollingTable('Webhook endpoints', ['URL', 'Types', 'State', 'Created', 'Actions'], webhookEndpoints.map((endpoint) => endpointRow(context, endpoint))));
    const editing = webhookEndpoints.find((endpoint) => endpoint.id === editingEndpointId);
    const editSlot = h('div', { id: 'edit-webhook-slot' });
    main.append(editSlot);
    if (editing && context.session.permissions.includes('webhooks:write')) {
      const form = editForm(context, editing, editing.description ?? editing.url);
      editSlot.append(form);
      form.querySelector('input')?.focus();
    }
    const open = webhookEndpoints.find((endpoint) => endpoint.id === openEndpointId);
    if (open) main.append(await messagesOf(context, open));
  },
};
