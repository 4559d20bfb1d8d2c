import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../../foundation/errors/app-error';
import { assertValidInput } from '../../../foundation/validation/validate-input';
import { canonicalTimeZone } from '../event.queries';
import type { EventEntity } from '../event.entity';
import type { UpdateEventInput } from '../event.inputs';
import { assertMutableFields, capacityErrors, duplicateSlugError, scheduleErrors, statusChangeErrors } from '../event.policy';
import { EventStatus, effectiveStatus } from '../event-status';
import { guardingSlug, slugTaken } from '../event.repository';
import { readForChange, updateEventIfUnchanged, type EventChange, type StoredEvent } from '../event-update.repository';
import { managedEvent, type EventRow } from '../event-rows';
import { closeForBookings, lockEventPool, openForBookings, reshareRoom } from '../../inventory/inventory.repository';
import { usesSlots } from '../../inventory/inventory.policy';
import { changeTypeOf, eventChangedOutbox } from '../event.webhooks';
import { withUpdateAudit } from '../event.audit';
import { inUnitOfWork, withinTransaction } from '../../../platform/db/unit-of-work';
import type { UnitOfWorkScope } from '../../../platform/db/unit-of-work-scope';
import { offeringFreedSeats } from '../../waitlist/commands/offer-seats';
import { mergedSettings, queueSettingsErrors, type QueueSettings } from '../../queue/queue.policy';
import { queueView } from '../../queue/queue.presenter';

/** Reads of an event that changed before its update could apply (each one another change that did). */
const MAX_ATTEMPTS = 10;

const SETTABLE_FIELDS = ['title', 'slug', 'description', 'startDate', 'endDate', 'venue', 'venueAddress', 'coverImage', 'capacity'] as const;

/**
 * Mutation.updateEvent and PUT /v1/events/{slug} (D3, D4, D16): the input against its schema, the event
 * read, the policy (immutable fields while published → 409; status change, schedule, capacity and
 * slug → 400 together), then only the given fields applied; `null` clears an optional field.
 *
 * No lock is held while the policy decides. The event is read, the policy decides on it, and
 * one statement applies the change with its webhook message only while the event is still as read
 * (its row lock lasts that statement); when it changed meanwhile, the command reads and decides again.
 * The unique index decides a slug taken since (guardingSlug).
 */
export async function updateEvent(scope: UnitOfWorkScope, organizationId: string, slug: string, input: UpdateEventInput): Promise<EventEntity> {
  assertValidInput(input);

  return guardingSlug(input.slug, () =>
    inUnitOfWork(
      scope,
      async (tx, unit) => {
        const decideAndApply = async (locked: EntityManager): Promise<EventEntity> => {
          for (let attempt = 1; ; attempt += 1) {
            const stored = await readForChange(locked, organizationId, slug, new Date());
            if (!stored) throw AppError.eventNotFound(slug);
            const event = { ...stored.event, status: effectiveStatus(stored.event.storedStatus, stored.event.endDate) };
            assertMutableFields(event, input);
            // A second pass, on the stored event: these rules compare the input with it. The input's own
            // rules answered above, before the event was looked up and its published fields guarded
            // (EVENT_NOT_FOUND, EVENT_ALREADY_PUBLISHED), as they always have.
            const storedRules = [
              ...(input.status != null ? statusChangeErrors(event.status, input.status) : []),
              ...scheduleErrors(input, event, new Date()),
              ...capacityErrors(input.capacity, stored.seatsTaken),
              // D30: the queue's settings against the stored ones (a first queue needs admitPerMinute; onSaleAt fixed once passed).
              ...(input.queue != null ? queueSettingsErrors(stored.queue, input.queue, new Date()) : []),
            ];
            if (storedRules.length > 0) {
              // Refused anyway: the slug is looked up only to be reported beside the rest.
              const slugClash = input.slug != null && input.slug !== event.slug && (await slugTaken(locked, organizationId, input.slug));
              assertValidInput(storedRules, slugClash ? [duplicateSlugError(input.slug!)] : []);
            }

            const change = changed(stored.event, stored.queue, input);
            const type = changeTypeOf(change !== undefined, stored.event.storedStatus, change?.storedStatus ?? stored.event.storedStatus);
            // An update that changes nothing writes nothing and sends nothing.
            if (!change || !type) return Object.assign(managedEvent(locked, stored.event, stored.ticketTypes, stored.counts), { queue: queueView(stored.event.id, stored.queue) });
            const outbox = withUpdateAudit(
              eventChangedOutbox(organizationId, type, { ...stored.event, ...change, organization: { id: organizationId }, series: stored.series }),
              unit,
              organizationId,
              type,
              { slug: change.slug, from: stored.event.storedStatus, to: change.storedStatus },
            );
            // D28: an occurrence of a series edited beyond its status (publish, cancel) is detached.
            const detaches = detachingChange(stored.event, stored.queue, change);
            const updated = changesSlots(stored, change)
              ? // The event's inventory slots change with it (src/modules/inventory/): in one transaction.
                await withinTransaction(locked, async (slotsLocked) => {
                  const applied = await updateEventIfUnchanged(slotsLocked, stored, change, outbox, detaches);
                  if (applied) await applyToSlots(slotsLocked, stored, change);
                  return applied;
                })
              : await updateEventIfUnchanged(locked, stored, change, outbox, detaches);
            if (updated) return updated;
            // The event changed since it was read (or a booking took the capacity): read and decide again.
            if (attempt === MAX_ATTEMPTS) throw new Error(`updateEvent: event ${stored.event.id} changed under ${MAX_ATTEMPTS} attempts in a row`);
          }
        };
        const apply = async (locked: EntityManager, offersFollow = false): Promise<EventEntity> => {
          const event = await decideAndApply(locked);
          // Offers to the waiting list (D21) hold seats after the change, in its transaction: the counts
          // the change read are not the event's any more, so the answer reads them after the commit.
          if (offersFollow) forgetCounts(event);
          return event;
        };
        // A raised capacity, or an event published again, may free seats for people waiting (D21):
        // with any waiting, the update and their offers commit together.
        return input.capacity !== undefined || input.status != null ? offeringFreedSeats(tx, organizationId, { slug }, apply) : apply(tx);
      },
      { singleStatement: true },
    ),
  );
}

/** Leaves an event's counts to be read by the doors (Event.heldCount, checkedInCount, TicketType.held). */
function forgetCounts(event: EventEntity): void {
  event.heldCount = undefined;
  event.checkedInCount = undefined;
  for (const type of event.ticketTypes.getItems()) type.held = undefined;
}

/**
 * Whether an update reaches the event's inventory slots: a slotted event's capacity or status, or the
 * publication of an event whose capacity calls for slots (they are made then).
 */
function changesSlots(stored: StoredEvent, change: EventChange): boolean {
  const publishing = change.storedStatus === EventStatus.PUBLISHED && stored.event.storedStatus !== EventStatus.PUBLISHED;
  if (stored.slots === 0) return publishing && usesSlots(change.capacity);
  return change.capacity !== stored.event.capacity || change.storedStatus !== stored.event.storedStatus;
}

/**
 * The event's slots after its update (the event's row locked by it, in the same transaction): a new
 * capacity is checked against the registrations counted under the locks of every slot (bookings of a
 * slotted event take no lock on its row) and what is left split again; a publication opens the slots
 * (makes them, the first time), any other status closes them.
 */
async function applyToSlots(tx: EntityManager, stored: StoredEvent, change: EventChange): Promise<void> {
  const { id } = stored.event;
  if (stored.slots > 0 && change.capacity !== stored.event.capacity) {
    const pool = await lockEventPool(tx, id);
    assertValidInput(capacityErrors(change.capacity, pool.registrationCount));
    await reshareRoom(tx, { event: id }, pool.slots, change.capacity === null ? null : change.capacity - pool.registrationCount);
  }
  if (change.storedStatus === EventStatus.PUBLISHED) await openForBookings(tx, id);
  else if (stored.slots > 0) await closeForBookings(tx, id);
}

/** The event's settable fields after `input` (the given fields; `null` clears), or undefined when none differs. */
function changed(stored: EventRow, storedQueue: QueueSettings | null, input: UpdateEventInput): EventChange | undefined {
  const next: EventChange = {
    slug: stored.slug,
    title: stored.title,
    description: stored.description,
    startDate: stored.startDate,
    endDate: stored.endDate,
    timezone: stored.timezone,
    venue: stored.venue,
    venueAddress: stored.venueAddress,
    coverImage: stored.coverImage,
    storedStatus: stored.storedStatus,
    capacity: stored.capacity,
    queue: input.queue != null ? mergedSettings(storedQueue, input.queue) : storedQueue,
    updatedAt: new Date(),
  };
  for (const field of SETTABLE_FIELDS) if (input[field] !== undefined) Object.assign(next, { [field]: input[field] });
  if (input.timezone != null) next.timezone = canonicalTimeZone(input.timezone);
  if (input.status != null) next.storedStatus = input.status;
  const differs = (Object.keys(next) as Array<keyof EventChange>).some(
    (field) => field !== 'updatedAt' && field !== 'queue' && !same(next[field], stored[field as keyof EventRow]),
  );
  return differs || !sameQueue(next.queue, storedQueue) ? next : undefined;
}

/** Whether a change sets more than the status (D28: such an update detaches an occurrence from its series). */
function detachingChange(stored: EventRow, storedQueue: QueueSettings | null, change: EventChange): boolean {
  return (Object.keys(change) as Array<keyof EventChange>).some((field) =>
    field === 'queue' ? !sameQueue(change.queue, storedQueue) : field !== 'updatedAt' && field !== 'storedStatus' && !same(change[field], stored[field as keyof EventRow]),
  );
}

const same = (a: unknown, b: unknown): boolean => (a instanceof Date && b instanceof Date ? a.getTime() === b.getTime() : a === b);

/** Whether two queue settings are the same (D30): every field, times by their instant. */
const sameQueue = (a: QueueSettings | null, b: QueueSettings | null): boolean =>
  a === null || b === null ? a === b : (Object.keys(a) as Array<keyof QueueSettings>).every((field) => same(a[field], b[field]));
