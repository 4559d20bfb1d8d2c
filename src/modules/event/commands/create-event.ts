import type { EntityManager } from '@mikro-orm/postgresql';
import { assertValidInput } from '../../../foundation/validation/validate-input';
import type { OrganizationSnapshot } from '../../../platform/auth/auth-context';
import { canonicalTimeZone } from '../event.queries';
import type { EventEntity } from '../event.entity';
import type { CreateEventInput } from '../event.inputs';
import { duplicateSlugError } from '../event.policy';
import { addEvent, guardingSlug, slugTaken } from '../event.repository';
import { enqueueEventChange } from '../event.webhooks';

/**
 * Mutation.createEvent and POST /v1/events (D3, D4, D6, D16): the input against its schema
 * (CreateEventInput: field rules and the schedule rule, every failing field at once), the slug free
 * in the organization, then the event in DRAFT with its ticket types. `status` is not an input field.
 */
export async function createEvent(em: EntityManager, organization: OrganizationSnapshot, input: CreateEventInput): Promise<EventEntity> {
  assertValidInput(input, (await slugTaken(em, organization.id, input.slug)) ? [duplicateSlugError(input.slug)] : []);

  return guardingSlug(input.slug, () =>
    em.transactional(async (tx) => {
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
