import { ADMISSION_MINUTES, MAX_SEATS_PER_ADMISSION, type QueueSettings } from './queue.policy';

/** An event's queue settings as the API shows them (Event.queue; REST and webhook event bodies), dates as ISO 8601. */
export interface QueueSettingsBody {
  enabled: boolean;
  opensAt: string | null;
  onSaleAt: string | null;
  admitPerMinute: number;
  admissionMinutes: number;
  maxSeatsPerAdmission: number;
}

/** Settings as stored (dates) or as read (ISO text). */
export type QueueSettingsLike = Omit<QueueSettings, 'opensAt' | 'onSaleAt'> & { readonly opensAt: Date | string | null; readonly onSaleAt: Date | string | null };

const isoOf = (value: Date | string | null): string | null => (value === null ? null : typeof value === 'string' ? value : value.toISOString());

/** The settings as the event's REST body and its webhooks show them (null: the event has no queue). Pure. */
export function presentQueueSettings(queue: QueueSettingsLike | null): QueueSettingsBody | null {
  if (queue === null) return null;
  return {
    enabled: queue.enabled,
    opensAt: isoOf(queue.opensAt),
    onSaleAt: isoOf(queue.onSaleAt),
    admitPerMinute: queue.admitPerMinute,
    admissionMinutes: queue.admissionMinutes,
    maxSeatsPerAdmission: queue.maxSeatsPerAdmission,
  };
}

/** The settings as GraphQL's EventQueue resolves them (with the event's id, for its figures). */
export function queueView(eventId: string, queue: QueueSettings | null): (QueueSettingsBody & { eventId: string }) | null {
  const body = presentQueueSettings(queue);
  return body === null ? null : { eventId, ...body };
}

/** The settings as the events table stores them (events.queue_*), as named parameters of an event's insert or update. */
export interface QueueColumns {
  queueEnabled: boolean;
  queueOpensAt: Date | null;
  queueOnSaleAt: Date | null;
  queueAdmitPerMinute: number | null;
  queueAdmissionMinutes: number;
  queueMaxSeats: number;
}

/** An event's queue columns for `queue` (null: none, the columns' defaults). */
export function queueColumnsOf(queue: QueueSettings | null): QueueColumns {
  return {
    queueEnabled: queue?.enabled ?? false,
    queueOpensAt: queue?.opensAt ?? null,
    queueOnSaleAt: queue?.onSaleAt ?? null,
    queueAdmitPerMinute: queue?.admitPerMinute ?? null,
    queueAdmissionMinutes: queue?.admissionMinutes ?? ADMISSION_MINUTES.default,
    queueMaxSeats: queue?.maxSeatsPerAdmission ?? MAX_SEATS_PER_ADMISSION.default,
  };
}

/** The settings as an event's row reads them (queueSettingsJson of queue-sql.ts), as stored values. */
export function storedQueueSettings(view: { enabled: boolean; opensAt: string | null; onSaleAt: string | null; admitPerMinute: number; admissionMinutes: number; maxSeatsPerAdmission: number } | null): QueueSettings | null {
  if (view === null) return null;
  return {
    enabled: view.enabled,
    opensAt: view.opensAt === null ? null : new Date(view.opensAt),
    onSaleAt: view.onSaleAt === null ? null : new Date(view.onSaleAt),
    admitPerMinute: view.admitPerMinute,
    admissionMinutes: view.admissionMinutes,
    maxSeatsPerAdmission: view.maxSeatsPerAdmission,
  };
}
