import { AppError } from '../../../foundation/errors/app-error';
import { newId } from '../../../foundation/ids';
import { inputErrors } from '../../../foundation/validation/validate-input';
import type { OrganizationSnapshot } from '../../../platform/auth/auth-context';
import { canonicalTimeZone } from '../event.queries';
import type { EventEntity } from '../event.entity';
import type { CreateEventInput } from '../event.inputs';
import { duplicateSlugError } from '../event.policy';
import { EventStatus } from '../event-status';
import { guardingSlug, insertEvent, slugTaken, type NewEvent } from '../event.repository';
import { eventCreatedOutbox } from '../event.webhooks';
import { inUnitOfWork } from '../../../platform/db/unit-of-work';
import type { UnitOfWorkScope } from '../../../platform/db/unit-of-work-scope';
import { mergedSettings } from '../../queue/queue.policy';

/**
 * Mutation.createEvent and POST /v1/events (D3, D4, D6, D16): the input against its schema
 * (CreateEventInput: field rules and the schedule rule, every failing field at once), the slug free
 * in the organization, then the event in DRAFT with its ticket types and its event.created message:
 * one statement, whose unique index decides the slug. `status` is not an input field.
 */
export async function createEvent(scope: UnitOfWorkScope, organization: OrganizationSnapshot, input: CreateEventInput): Promise<EventEntity> {
  const { em } = scope;
  // The slug is looked up here only when the input fails anyway, to report it beside the rest; a
  // valid input's slug is decided by the unique index, in the statement.
  const errors = inputErrors(input);
  if (errors.length > 0) {
    if (await slugTaken(em, organization.id, input.slug)) errors.push(duplicateSlugError(input.slug));
    throw AppError.validation(errors);
  }

  return guardingSlug(input.slug, () =>
    // With an Idempotency-Key, a retry whose first attempt committed gets its event back (its recovery
    // point), never "slug taken".
    inUnitOfWork(
      scope,
      (tx) => {
        const event = newEvent(organization, input, new Date());
        const outbox = eventCreatedOutbox(
          organization.id,
          { ...event, organization, storedStatus: EventStatus.DRAFT, registrationCount: 0, updatedAt: event.createdAt },
          event.ticketTypes.map((type) => ({ ...type, sold: 0, held: 0 })),
        );
        return insertEvent(tx, organization.id, event, outbox);
      },
      { singleStatement: true },
    ),
  );
}

/** The new event's row and its ticket types' (in the order given), every value made here. */
function newEvent(organization: OrganizationSnapshot, input: CreateEventInput, now: Date): NewEvent {
  return {
    id: newId('evt'),
    slug: input.slug,
    title: input.title,
    description: input.description ?? null,
    startDate: input.startDate,
    endDate: input.endDate,
    timezone: canonicalTimeZone(input.timezone ?? organization.timezone),
    venue: input.venue ?? null,
    venueAddress: input.venueAddress ?? null,
    coverImage: input.coverImage ?? null,
    capacity: input.capacity ?? null,
    queue: input.queue != null ? mergedSettings(null, input.queue) : null,
    createdAt: now,
    ticketTypes: (input.ticketTypes ?? []).map(({ name, price, currency, quantity }, index) => ({
      id: newId('tt'),
      name,
      price,
      currency,
      quantity,
      // Distinct creation times keep the ticket types in the order they were given.
      createdAt: new Date(now.getTime() + index),
    })),
  };
}
