import { messageOf, request } from '../api';
import { confirmDialog, field, formatDate, h, readOnlyNote, scrollingTable, secretPanel } from '../dom';
import {
  ApiKeysDocument,
  CreateApiKeyDocument,
  RevokeApiKeyDocument,
  RotateApiKeyDocument,
  type ApiKeyFieldsFragment,
  type ApiKeysQuery,
  type CreateApiKeyMutation,
  type CreateApiKeyMutationVariables,
  type RevokeApiKeyMutation,
  type RevokeApiKeyMutationVariables,
  type RotateApiKeyMutation,
  type RotateApiKeyMutationVariables,
} from '../generated/operations';
import type { Page, PageContext } from '../page';

const PERMISSION_NAMES = ['events:read', 'events:write', 'bookings:read', 'bookings:write', 'members:read', 'webhooks:read', 'webhooks:write', 'checkin:write', 'organization:write', 'audit:read'];
/** A key just created or rotated, shown once at the top of the re-rendered list. */
let pendingSecret: string | undefined;
const SECRET_WARNING = 'This is the only time the key is shown. Store it in your secret manager; we keep only its hash.';

function createForm(context: PageContext, onCreated: (key: string) => void): HTMLFormElement {
  const grantable = PERMISSION_NAMES.filter((name) => context.session.permissions.includes(name));
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'create-key-title' },
    h('h2', { id: 'create-key-title' }, 'Create an API key'),
    h('label', { for: 'key-name' }, 'Name'),
    h('input', { id: 'key-name', name: 'name', required: true, maxlength: 200, autocomplete: 'off' }),
    h('label', { for: 'key-environment' }, 'Environment'),
    h('select', { id: 'key-environment', name: 'environment' }, h('option', { value: 'live' }, 'live'), h('option', { value: 'test' }, 'test')),
    h(
      'fieldset',
      {},
      h('legend', {}, 'Permissions'),
      ...grantable.map((name) =>
        h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'permissions', value: name, checked: name.endsWith(':read') && name !== 'audit:read' }), name),
      ),
    ),
    h('label', { for: 'key-expires' }, 'Expires (optional, your local time)'),
    h('input', { id: 'key-expires', name: 'expiresAt', type: 'datetime-local' }),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Create key')),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const expires = field(data, 'expiresAt');
    const variables: CreateApiKeyMutationVariables = {
      input: {
        name: field(data, 'name'),
        environment: field(data, 'environment') || 'live',
        permissions: data.getAll('permissions').map(String),
        expiresAt: expires === '' ? null : new Date(expires).toISOString(),
      },
    };
    request<CreateApiKeyMutation, CreateApiKeyMutationVariables>(CreateApiKeyDocument, variables).then(
      (result) => onCreated(result.createApiKey.key),
      (error: unknown) => context.showError(error),
    );
  });
  return form;
}

function keyRow(context: PageContext, key: ApiKeyFieldsFragment, onSecret: (key: string) => void): HTMLTableRowElement {
  const narrowed = key.effectivePermissions.length !== key.permissions.length;
  const creator = key.createdBy ? key.createdBy.name : key.createdInDashboard ? 'removed member' : 'admin CLI';
  const actions = h('td', { class: 'row-actions' });
  if (key.status === 'ACTIVE' && context.isAdmin) {
    actions.append(
      h('button', {
        type: 'button',
        class: 'secondary',
        'aria-label': `Rotate key ${key.name}`,
        onclick: () => void rotate(context, key, onSecret),
      }, 'Rotate'),
      h('button', {
        type: 'button',
        class: 'danger',
        'aria-label': `Revoke key ${key.name}`,
        onclick: () => void revoke(context, key),
      }, 'Revoke'),
    );
  }
  return h(
    'tr',
    {},
    h('td', {}, key.name),
    h('td', {}, h('code', {}, `${key.prefix}…`)),
    h('td', {}, key.environment),
    h('td', {}, key.effectivePermissions.join(', ') || 'none', narrowed ? h('div', { class: 'hint' }, `scopes: ${key.permissions.join(', ')}`) : null),
    h('td', {}, creator),
    h('td', {}, formatDate(key.createdAt)),
    h('td', {}, formatDate(key.lastUsedAt)),
    h('td', {}, formatDate(key.expiresAt)),
    h('td', {}, h('span', { class: `badge ${key.status.toLowerCase()}` }, key.status)),
    context.isAdmin ? actions : null,
  );
}

async function revoke(context: PageContext, key: ApiKeyFieldsFragment): Promise<void> {
  const confirmed = await confirmDialog(
    `Revoke ${key.name}?`,
    `Requests with ${key.prefix}… stop working within a second, on every server. This cannot be undone.`,
    'Revoke key',
  );
  if (!confirmed) return;
  try {
    await request<RevokeApiKeyMutation, RevokeApiKeyMutationVariables>(RevokeApiKeyDocument, { id: key.id });
    context.announce(`Key ${key.name} revoked`);
    context.reload();
  } catch (error) {
    context.showError(error);
  }
}

async function rotate(context: PageContext, key: ApiKeyFieldsFragment, onSecret: (key: string) => void): Promise<void> {
  const grace = h('input', { id: 'rotate-grace', type: 'number', min: 0, max: 720, value: 24, required: true });
  const extra = h('p', {}, h('label', { for: 'rotate-grace' }, 'Hours the old key keeps working'), grace);
  const confirmed = await confirmDialog(`Rotate ${key.name}?`, 'A new key with the same permissions is issued and shown once.', 'Rotate key', extra);
  if (!confirmed) return;
  try {
    const result = await request<RotateApiKeyMutation, RotateApiKeyMutationVariables>(RotateApiKeyDocument, { id: key.id, graceHours: Number(grace.value) });
    onSecret(result.rotateApiKey.key);
  } catch (error) {
    context.showError(error);
  }
}

export const keysPage: Page = {
  path: 'keys',
  title: 'API keys',
  async render(context) {
    const { main } = context;
    const showSecret = (secret: string) => {
      pendingSecret = secret;
      context.reload();
    };
    const secretSlot = h('div', {});
    if (pendingSecret !== undefined) {
      secretSlot.append(secretPanel('API key', pendingSecret, SECRET_WARNING, 'Copy key'));
      pendingSecret = undefined;
    }
    const formSlot = h('div', {});
    const toggle = h('button', {
      type: 'button',
      'aria-expanded': 'false',
      'aria-controls': 'create-key-form-slot',
      onclick: () => {
        const open = toggle.getAttribute('aria-expanded') === 'true';
        toggle.setAttribute('aria-expanded', String(!open));
        formSlot.replaceChildren(...(open ? [] : [createForm(context, showSecret)]));
        if (!open) formSlot.querySelector('input')?.focus();
      },
    }, 'Create API key');
    formSlot.id = 'create-key-form-slot';
    if (context.isAdmin) {
      main.append(h('div', { class: 'toolbar' }, toggle), secretSlot, formSlot);
      secretSlot.querySelector('input')?.focus();
    } else {
      main.append(readOnlyNote('you see the organization’s keys; only organization admins create, rotate or revoke them. Ask an admin if you need one.'));
    }
    let keys: ApiKeyFieldsFragment[];
    try {
      keys = (await request<ApiKeysQuery, Record<string, never>>(ApiKeysDocument)).apiKeys;
    } catch (error) {
      main.append(h('p', { class: 'error-text' }, messageOf(error)));
      return;
    }
    if (keys.length === 0) {
      main.append(h('p', {}, 'No keys yet.'));
      return;
    }
    main.append(
      scrollingTable(
        'API keys',
        ['Name', 'Prefix', 'Environment', 'Permissions', 'Created by', 'Created', 'Last used', 'Expires', 'Status', ...(context.isAdmin ? ['Actions'] : [])],
        keys.map((key) => keyRow(context, key, showSecret)),
      ),
    );
  },
};
