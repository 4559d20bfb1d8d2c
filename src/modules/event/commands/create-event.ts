import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../../foundation/errors/app-error';
import { inputErrors } from '../../../foundation/validation/validate-input';
import type { OrganizationSnapshot } from '../../../platform/auth/auth-context';
import { canonicalTimeZone } from '../event.queries';
import type { EventEntity } from '../event.entity';
import type { CreateEventInput } from '../event.inputs';
import { duplicateSlugError } from '../event.policy';
import { addEvent, guardingSlug, slugTaken } from '../event.repository';
import { enqueueEventChange } from '../event.webhooks';
import { inUnitOfWork } from '../../../platform/db/unit-of-work';

/**
 * Mutation.createEvent and POST /v1/events (D3, D4, D6, D16): the input against its schema
 * (CreateEventInput: field rules and the schedule rule, every failing field at once), the slug free
 * in the organization, then the event in DRAFT with its ticket types. `status` is not an input field.
 */
export async function createEvent(em: EntityManager, organization: OrganizationSnapshot, input: CreateEventInput): Promise<EventEntity> {
  // The slug is looked up here only when the input fails anyway, to report it beside the rest; a
  // valid input's slug is checked inside the unit of work.
  const errors = inputErrors(input);
  if (errors.length > 0) {
    if (await slugTaken(em, organization.id, input.slug)) errors.push(duplicateSlugError(input.slug));
    throw AppError.validation(errors);
  }

  return guardingSlug(input.slug, () =>
    inUnitOfWork(em, async (tx) => {
      // Inside the unit: a retry whose first attempt committed gets its event back, not "slug taken".
      if (await slugTaken(tx, organization.id, input.slug)) throw AppError.validation([duplicateSlugError(input.slug)]);
      const event = addEvent(
        tx,
        organization.id,
        {
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
          ticketTypes: input.ticketTypes ?? [],
        },
        new Date(),
      );
      await tx.flush();
      await enqueueEventChange(tx, organization.id, event, true);
      return event;
    }),
  );
}
