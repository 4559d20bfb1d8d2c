import { request } from '../api';
import { field, h } from '../dom';
import {
  UpdateOrganizationSettingsDocument,
  OrganizationSettingsDocument,
  type UpdateOrganizationSettingsMutation,
  type UpdateOrganizationSettingsMutationVariables,
  type OrganizationSettingsQuery,
} from '../generated/operations';
import type { Page } from '../page';

function timeZones(): string[] {
  const supported = (Intl as unknown as { supportedValuesOf?: (key: string) => string[] }).supportedValuesOf?.('timeZone') ?? [];
  return supported.includes('UTC') ? supported : ['UTC', ...supported];
}

/** The longest hold or offer an organization may set (a day), as the server checks it (D20, D21). */
const MAX_MINUTES = 1440;
const MINUTES_INPUT = { type: 'number', min: 1, max: MAX_MINUTES, step: 1, required: true, inputmode: 'numeric' } as const;

/** The longest transfer lock (a week before the start), as the server checks it (D29). */
const MAX_LOCK_MINUTES = 10_080;

function minutes(value: number): string {
  return value === 1 ? '1 minute' : `${value} minutes`;
}

export const settingsPage: Page = {
  path: 'settings',
  title: 'Organization settings',
  async render(context) {
    const { main } = context;
    const { organization } = await request<OrganizationSettingsQuery, Record<string, never>>(OrganizationSettingsDocument);
    const enterprise = organization.plan === 'ENTERPRISE';
    main.append(
      h(
        'dl',
        { class: 'facts' },
        h('dt', {}, 'Organization'),
        h('dd', {}, organization.name),
        h('dt', {}, 'Plan'),
        h('dd', {}, organization.plan),
        h('dt', {}, 'Rate limit'),
        h('dd', {}, organization.rateLimitPerMinute === null ? 'server default' : `${organization.rateLimitPerMinute} requests a minute`),
      ),
    );
    if (!context.isAdmin) {
      main.append(
        h(
          'dl',
          { class: 'facts' },
          h('dt', {}, 'Timezone'),
          h('dd', {}, organization.timezone),
          h('dt', {}, 'IP allowlist'),
          h('dd', {}, organization.allowedIPs.join(', ') || 'none'),
          h('dt', {}, 'Restriction mode'),
          h('dd', {}, organization.restrictionMode),
          h('dt', {}, 'Hold length'),
          h('dd', {}, minutes(organization.holdMinutes)),
          h('dt', {}, 'Waiting-list offer length'),
          h('dd', {}, minutes(organization.waitlistOfferMinutes)),
          h('dt', {}, 'Transfer lock'),
          h('dd', {}, organization.transferLockMinutes === 0 ? 'none: transfers until the start' : `${minutes(organization.transferLockMinutes)} before the start`),
        ),
        h('p', {}, 'Only organization admins can change these settings.'),
      );
      return;
    }
    const zones = timeZones();
    const form = h(
      'form',
      { class: 'card', 'aria-labelledby': 'settings-title' },
      h('h2', { id: 'settings-title' }, 'Settings'),
      h('label', { for: 'settings-timezone' }, 'Default timezone of new events'),
      h('select', { id: 'settings-timezone', name: 'timezone' }, ...zones.map((zone) => h('option', { value: zone, selected: zone === organization.timezone }, zone))),
      h('label', { for: 'settings-hold' }, 'Hold length in minutes'),
      h('input', { ...MINUTES_INPUT, id: 'settings-hold', name: 'holdMinutes', value: organization.holdMinutes, 'aria-describedby': 'settings-hold-hint' }),
      h('p', { id: 'settings-hold-hint', class: 'hint' }, `How long a held booking keeps its seats when the booking does not say (1 to ${MAX_MINUTES}).`),
      h('label', { for: 'settings-offer' }, 'Waiting-list offer length in minutes'),
      h('input', { ...MINUTES_INPUT, id: 'settings-offer', name: 'waitlistOfferMinutes', value: organization.waitlistOfferMinutes, 'aria-describedby': 'settings-offer-hint' }),
      h('p', { id: 'settings-offer-hint', class: 'hint' }, `How long seats offered to the waiting list are held for the person offered them (1 to ${MAX_MINUTES}).`),
      h('label', { for: 'settings-transfer-lock' }, 'Transfer lock in minutes'),
      h('input', {
        ...MINUTES_INPUT,
        min: 0,
        max: MAX_LOCK_MINUTES,
        id: 'settings-transfer-lock',
        name: 'transferLockMinutes',
        value: organization.transferLockMinutes,
        'aria-describedby': 'settings-transfer-lock-hint',
      }),
      h(
        'p',
        { id: 'settings-transfer-lock-hint', class: 'hint' },
        `How long before an event starts its bookings can no longer be transferred or exchanged (0, the default: until the start; at most ${MAX_LOCK_MINUTES}, a week).`,
      ),
      enterprise
        ? h(
            'div',
            {},
            h('label', { for: 'settings-ips' }, 'Allowed IP addresses and CIDR ranges (one a line)'),
            h('textarea', { id: 'settings-ips', name: 'allowedIPs', rows: 4, spellcheck: 'false', 'aria-describedby': 'settings-ips-hint' }, organization.allowedIPs.join('\n')),
            h('p', { id: 'settings-ips-hint', class: 'hint' }, 'With STRICT, requests from elsewhere get 403 IP_NOT_ALLOWED, this dashboard included.'),
            h('label', { for: 'settings-mode' }, 'Restriction mode'),
            h(
              'select',
              { id: 'settings-mode', name: 'restrictionMode' },
              h('option', { value: 'OFF', selected: organization.restrictionMode === 'OFF' }, 'OFF'),
              h('option', { value: 'STRICT', selected: organization.restrictionMode === 'STRICT' }, 'STRICT'),
            ),
          )
        : h('p', { class: 'hint' }, 'An IP allowlist is available on the ENTERPRISE plan.'),
      h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Save settings')),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const data = new FormData(form);
      const variables: UpdateOrganizationSettingsMutationVariables = {
        input: {
          timezone: field(data, 'timezone'),
          allowedIPs: enterprise
            ? field(data, 'allowedIPs')
                .split(/[\s,]+/)
                .filter(Boolean)
            : null,
          restrictionMode: enterprise ? field(data, 'restrictionMode') : null,
          // A value the server refuses (out of range) comes back as a VALIDATION_ERROR naming the field.
          holdMinutes: Number(field(data, 'holdMinutes')),
          waitlistOfferMinutes: Number(field(data, 'waitlistOfferMinutes')),
          transferLockMinutes: Number(field(data, 'transferLockMinutes')),
        },
      };
      request<UpdateOrganizationSettingsMutation, UpdateOrganizationSettingsMutationVariables>(UpdateOrganizationSettingsDocument, variables).then(
        () => {
          context.announce('Settings saved');
          context.reload();
        },
        (error: unknown) => context.showError(error),
      );
    });
    main.append(form);
  },
};
