import { request } from '../api';
import { field, h } from '../dom';
import { formDialog } from '../form-dialog';
import { UpdateEventQueueDocument, type EventDetailQuery, type EventQueueInput, type UpdateEventQueueMutation, type UpdateEventQueueMutationVariables } from '../generated/operations';
import type { PageContext } from '../page';

type EventDetail = NonNullable<EventDetailQuery['event']>;

const pad = (value: number) => String(value).padStart(2, '0');

/** An instant as a datetime-local field shows it: the browser's own time zone, to the minute. */
function localInput(iso: string | null | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

function numberField(id: string, name: string, label: string, value: number | undefined, min: number, max: number, required: boolean): Node[] {
  return [h('label', { for: id }, label), h('input', { id, name, type: 'number', min, max, step: 1, required, value: value === undefined ? '' : String(value) })];
}

/**
 * The queue's settings as updateEvent takes them (D30). Only what the form changed is sent: a time
 * left as shown keeps its stored value to the second (and an onSaleAt that has passed stays fixed).
 */
function changes(event: EventDetail, data: FormData): EventQueueInput {
  const queue = event.queue;
  // undefined leaves a field out of the request (the stored value stays); null clears a time.
  const time = (name: 'opensAt' | 'onSaleAt') => {
    const value = field(data, name);
    if (value === localInput(queue?.[name])) return undefined;
    return value === '' ? null : new Date(value).toISOString();
  };
  const count = (name: 'admitPerMinute' | 'admissionMinutes' | 'maxSeatsPerAdmission') => {
    const value = field(data, name).trim();
    return value === '' || Number(value) === queue?.[name] ? undefined : Number(value);
  };
  return {
    enabled: data.get('enabled') === 'on',
    opensAt: time('opensAt'),
    onSaleAt: time('onSaleAt'),
    admitPerMinute: count('admitPerMinute'),
    admissionMinutes: count('admissionMinutes'),
    maxSeatsPerAdmission: count('maxSeatsPerAdmission'),
  };
}

async function edit(context: PageContext, event: EventDetail): Promise<void> {
  const queue = event.queue;
  const fields = [
    h('p', { class: 'hint' }, 'Times are in your browser’s time zone; an empty time means “as soon as the queue is enabled”. Everyone who joins before the sale opens gets a random place then.'),
    h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'enabled', checked: queue ? queue.enabled : true }), 'Bookings go through the queue'),
    h('label', { for: 'queue-opens-at' }, 'Opens for joining at'),
    h('input', { id: 'queue-opens-at', name: 'opensAt', type: 'datetime-local', value: localInput(queue?.opensAt) }),
    h('label', { for: 'queue-on-sale-at' }, 'On sale from'),
    h('input', { id: 'queue-on-sale-at', name: 'onSaleAt', type: 'datetime-local', value: localInput(queue?.onSaleAt) }),
    ...numberField('queue-admit-per-minute', 'admitPerMinute', 'Admissions a minute (1 to 100,000)', queue?.admitPerMinute, 1, 100_000, true),
    ...numberField('queue-admission-minutes', 'admissionMinutes', 'An admission lasts, minutes (1 to 60)', queue?.admissionMinutes ?? 10, 1, 60, false),
    ...numberField('queue-max-seats', 'maxSeatsPerAdmission', 'Seats per admission (1 to 20)', queue?.maxSeatsPerAdmission ?? 4, 1, 20, false),
  ];
  const done = await formDialog(`Queue settings of ${event.title}`, fields, 'Save queue settings', async (data) => {
    await request<UpdateEventQueueMutation, UpdateEventQueueMutationVariables>(UpdateEventQueueDocument, { slug: event.slug, queue: changes(event, data) });
  });
  if (!done) return;
  context.announce(`Queue settings of ${event.title} saved`);
  context.reload();
}

/** For events:write (an ADMIN): a button that opens the queue's settings (or sets one up). */
export function queueEditButton(context: PageContext, event: EventDetail): HTMLElement | null {
  if (!context.session.permissions.includes('events:write')) return null;
  return h('div', { class: 'actions' }, h('button', { type: 'button', class: 'secondary', onclick: () => void edit(context, event) }, event.queue ? 'Change queue settings' : 'Set up a queue'));
}
