import { request } from '../api';
import { AUDIT_ACTION_NAMES } from '../audit-actions';
import { field, formatDate, h, scrollingTable } from '../dom';
import {
  AuditActorsDocument,
  AuditLogDocument,
  type AuditActorsQuery,
  type AuditEntryFieldsFragment,
  type AuditLogQuery,
  type AuditLogQueryVariables,
} from '../generated/operations';
import type { Page, PageContext } from '../page';

const PAGE_SIZE = 25;

/** The filters and page shown, kept while the dashboard is open (a reload keeps them). */
interface Filters {
  action: string;
  actor: string;
  /** yyyy-mm-dd in the browser's time zone, or '' */
  from: string;
  to: string;
  page: number;
}
let filters: Filters = { action: '', actor: '', from: '', to: '', page: 1 };

/** The start of a local day (yyyy-mm-dd) as an instant; `nextDay` the start of the day after. */
function dayStart(day: string, nextDay = false): string {
  const [year, month, date] = day.split('-').map(Number);
  return new Date(year, month - 1, date + (nextDay ? 1 : 0)).toISOString();
}

const actionName = (action: string): string => AUDIT_ACTION_NAMES.find(([name]) => name === action)?.[1] ?? action;

/** A summary as short lines: `field: from → to` for a change, `field: value` otherwise. */
function summaryText(summary: unknown): string {
  if (summary === null || typeof summary !== 'object') return '';
  const text = (value: unknown): string => {
    if (Array.isArray(value)) return value.map(text).join(', ') || '(none)';
    if (value === null || value === undefined) return '(none)';
    return typeof value === 'string' ? value : JSON.stringify(value);
  };
  const fields = { ...(summary as Record<string, unknown>) };
  const lines: string[] = [];
  // A change of one thing (a role, a status) is `from` and `to` at the top: one line, first.
  if ('from' in fields && 'to' in fields) {
    lines.push(`${text(fields.from)} → ${text(fields.to)}`);
    delete fields.from;
    delete fields.to;
  }
  for (const name of Object.keys(fields).sort()) {
    const value = fields[name];
    if (value && typeof value === 'object' && !Array.isArray(value) && 'from' in value && 'to' in value) lines.push(`${name}: ${text(value.from)} → ${text(value.to)}`);
    else lines.push(`${name}: ${text(value)}`);
  }
  return lines.join('\n');
}

function actorText(entry: AuditEntryFieldsFragment): string {
  switch (entry.actor.kind) {
    case 'MEMBER':
      return entry.actor.label;
    case 'API_KEY':
      return `key ${entry.actor.label}…`;
    case 'CLI':
      return 'admin CLI';
    default:
      return entry.actor.label;
  }
}

function entryRow(entry: AuditEntryFieldsFragment): HTMLTableRowElement {
  return h(
    'tr',
    {},
    h('td', { class: 'when' }, h('time', { datetime: entry.createdAt }, formatDate(entry.createdAt))),
    h('td', {}, actionName(entry.action), h('br'), h('code', {}, entry.action)),
    h('td', {}, actorText(entry)),
    h('td', {}, h('code', {}, entry.targetId)),
    h('td', { class: 'summary' }, summaryText(entry.summary)),
    h('td', {}, entry.clientIp ?? '—'),
    h('td', {}, entry.requestId ? h('code', {}, entry.requestId) : '—'),
  );
}

function filterForm(context: PageContext, actors: AuditActorsQuery): HTMLFormElement {
  const option = (value: string, label: string, selected: string) => h('option', { value, selected: value === selected }, label);
  const form = h(
    'form',
    { class: 'card filters', 'aria-labelledby': 'audit-filters-title', role: 'search' },
    h('h2', { id: 'audit-filters-title' }, 'Filter the log'),
    h('label', { for: 'audit-action' }, 'Action'),
    h('select', { id: 'audit-action', name: 'action' }, option('', 'Any action', filters.action), ...AUDIT_ACTION_NAMES.map(([value, label]) => option(value, label, filters.action))),
    h('label', { for: 'audit-actor' }, 'Member or key'),
    h(
      'select',
      { id: 'audit-actor', name: 'actor' },
      option('', 'Anyone', filters.actor),
      h('optgroup', { label: 'Members' }, ...actors.members.members.map((member) => option(member.id, `${member.name} (${member.email})`, filters.actor))),
      h('optgroup', { label: 'API keys' }, ...actors.apiKeys.map((key) => option(key.id, `${key.name} (${key.prefix}…)`, filters.actor))),
      h('optgroup', { label: 'Other' }, option('cli', 'Admin CLI', filters.actor)),
    ),
    h('label', { for: 'audit-from' }, 'From (day, your local time)'),
    h('input', { id: 'audit-from', name: 'from', type: 'date', value: filters.from }),
    h('label', { for: 'audit-to' }, 'To (day, included)'),
    h('input', { id: 'audit-to', name: 'to', type: 'date', value: filters.to }),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit' }, 'Apply filters'),
      h('button', { type: 'reset', class: 'secondary' }, 'Clear filters'),
    ),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(form);
    filters = { action: field(data, 'action'), actor: field(data, 'actor'), from: field(data, 'from'), to: field(data, 'to'), page: 1 };
    context.reload();
  });
  form.addEventListener('reset', (event) => {
    event.preventDefault();
    filters = { action: '', actor: '', from: '', to: '', page: 1 };
    context.reload();
  });
  return form;
}

function pager(context: PageContext, log: AuditLogQuery['auditLog']): HTMLElement {
  const pages = Math.max(1, Math.ceil(log.total / log.limit));
  const go = (page: number) => () => {
    filters = { ...filters, page };
    context.reload();
  };
  return h(
    'nav',
    { class: 'actions pager', 'aria-label': 'Audit log pages' },
    h('button', { type: 'button', class: 'secondary', disabled: log.page <= 1, onclick: go(log.page - 1) }, 'Previous page'),
    h('span', { class: 'hint', 'aria-live': 'polite' }, `Page ${log.page} of ${pages} · ${log.total} ${log.total === 1 ? 'entry' : 'entries'}`),
    h('button', { type: 'button', class: 'secondary', disabled: log.page >= pages, onclick: go(log.page + 1) }, 'Next page'),
  );
}

export const auditPage: Page = {
  path: 'audit',
  title: 'Audit log',
  async render(context) {
    const { main } = context;
    // Only admins hold audit:read (D26): a member is told so, and nothing is asked of the server.
    if (!context.session.permissions.includes('audit:read')) {
      main.append(h('p', { class: 'note' }, h('strong', {}, 'Admins only: '), 'only admins can see the audit log. Ask an admin of your organization if you need to know who changed something.'));
      return;
    }
    main.append(h('p', { class: 'hint' }, 'Who changed keys, members, settings, webhook endpoints and events, newest first. Entries are kept 400 days and never edited.'));
    const variables: AuditLogQueryVariables = {
      page: filters.page,
      limit: PAGE_SIZE,
      action: filters.action || null,
      actor: filters.actor || null,
      since: filters.from ? dayStart(filters.from) : null,
      until: filters.to ? dayStart(filters.to, true) : null,
    };
    const [actors, { auditLog }] = await Promise.all([
      request<AuditActorsQuery, Record<string, never>>(AuditActorsDocument),
      request<AuditLogQuery, AuditLogQueryVariables>(AuditLogDocument, variables),
    ]);
    main.append(filterForm(context, actors));
    const rows = auditLog.entries.map(entryRow);
    main.append(
      auditLog.entries.length === 0
        ? h('p', {}, 'No entries match these filters.')
        : scrollingTable('Audit log entries', ['Time', 'Action', 'By', 'Target', 'What changed', 'Client IP', 'Request id'], rows),
      pager(context, auditLog),
    );
  },
};
