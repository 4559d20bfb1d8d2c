import { messageOf, request } from '../api';
import { append, h, readOnlyNote } from '../dom';
import { formatInZone } from '../event-format';
import {
  EventQueueStatsDocument,
  type EventDetailQuery,
  type EventQueueStatsQuery,
  type EventQueueStatsQueryVariables,
  type QueueStatsFieldsFragment,
} from '../generated/operations';
import type { PageContext } from '../page';
import { queueEditButton } from './event-queue-edit';

type EventDetail = NonNullable<EventDetailQuery['event']>;
type Queue = NonNullable<EventDetail['queue']>;

/** How often the live figures are read while the panel is on the page. */
export const QUEUE_POLL_MS = 2_000;

const FIGURES: ReadonlyArray<readonly [keyof Omit<QueueStatsFieldsFragment, '__typename'>, string]> = [
  ['waiting', 'Waiting'],
  ['admitted', 'Admitted, may book now'],
  ['used', 'Used (booked)'],
  ['admittedLastMinute', 'Admitted in the last minute'],
];

function list(pairs: ReadonlyArray<readonly [string, string | Node]>, label: string): HTMLElement {
  return h('dl', { class: 'facts', 'aria-label': label }, ...pairs.flatMap(([name, value]) => [h('dt', {}, name), h('dd', {}, value)]));
}

/** The queue's settings as D30 names them; an instant in the event's time zone, or what its absence means. */
function settings(event: EventDetail, queue: Queue): HTMLElement {
  const at = (iso: string | null | undefined) => (iso ? formatInZone(iso, event.timezone) : 'as soon as enabled');
  return list(
    [
      ['Queue', queue.enabled ? 'enabled: bookings go through the queue' : 'disabled: bookings go straight through'],
      ['Opens (joining from)', at(queue.opensAt)],
      ['On sale from', at(queue.onSaleAt)],
      ['Admissions a minute', String(queue.admitPerMinute)],
      ['An admission lasts', `${queue.admissionMinutes} min`],
      ['Seats per admission', String(queue.maxSeatsPerAdmission)],
    ],
    'Queue settings',
  );
}

/**
 * The live figures (D30 stats), read again every few seconds while the panel is on the page: leaving the
 * page (or a re-render) takes the panel out of the document, and the next turn stops there.
 */
async function figures(slug: string): Promise<HTMLElement> {
  const read = () => request<EventQueueStatsQuery, EventQueueStatsQueryVariables>(EventQueueStatsDocument, { eventSlug: slug });
  const values = new Map(FIGURES.map(([name]) => [name, h('dd', {}, '…')]));
  const readAt = h('p', { class: 'hint' });
  const panel = h(
    'div',
    { class: 'queue-figures' },
    h('dl', { class: 'facts', 'aria-label': 'Queue now' }, ...FIGURES.flatMap(([name, label]) => [h('dt', {}, label), values.get(name) as HTMLElement])),
    readAt,
  );
  const show = (stats: QueueStatsFieldsFragment) => {
    for (const [name] of FIGURES) {
      const text = String(stats[name]);
      const value = values.get(name) as HTMLElement;
      if (value.textContent !== text) value.textContent = text;
    }
    readAt.textContent = `Read at ${new Date().toLocaleTimeString()}; read again every ${QUEUE_POLL_MS / 1000} seconds while this page is open.`;
  };
  try {
    show((await read()).queueStats);
  } catch (error) {
    panel.replaceChildren(h('p', { class: 'error-text' }, messageOf(error)));
    return panel;
  }
  const poll = () => {
    if (!panel.isConnected) return;
    read().then(
      ({ queueStats }) => {
        if (!panel.isConnected) return;
        show(queueStats);
        setTimeout(poll, QUEUE_POLL_MS);
      },
      // Signed out or the event deleted meanwhile: said once, and no more reads.
      (error: unknown) => {
        if (panel.isConnected) readAt.textContent = `The figures stopped updating: ${messageOf(error)}`;
      },
    );
  };
  setTimeout(poll, QUEUE_POLL_MS);
  return panel;
}

/** The event's on-sale queue (D30): its settings and, for bookings:read, the live figures. */
export async function queueSection(context: PageContext, event: EventDetail): Promise<HTMLElement> {
  const section = h('section', { 'aria-labelledby': 'queue-title' }, h('h2', { id: 'queue-title' }, 'On-sale queue'));
  const { queue } = event;
  const edit = queueEditButton(context, event);
  if (!edit) section.append(readOnlyNote('only organization admins change the queue’s settings.'));
  if (!queue) {
    append(section, h('p', {}, 'This event has no on-sale queue: bookings go straight through.'), edit);
    return section;
  }
  append(section, settings(event, queue), edit);
  if (!context.session.permissions.includes('bookings:read')) section.append(h('p', { class: 'note' }, 'The live figures need the bookings:read permission.'));
  else section.append(h('h3', {}, 'Now'), await figures(event.slug));
  return section;
}
