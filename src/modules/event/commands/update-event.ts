import type { EntityManager } from '@mikro-orm/postgresql';
import { assertValidInput } from '../../../foundation/validation/validate-input';
import { canonicalTimeZone } from '../event.queries';
import type { EventEntity } from '../event.entity';
import type { UpdateEventInput } from '../event.inputs';
import { assertMutableFields, capacityErrors, duplicateSlugError, scheduleErrors, statusChangeErrors } from '../event.policy';
import { findBySlug, guardingSlug, lockBySlug, slugTaken } from '../event.repository';
import { enqueueEventChange } from '../event.webhooks';
import { inUnitOfWork } from '../../../platform/db/unit-of-work';

const SETTABLE_FIELDS = ['title', 'slug', 'description', 'startDate', 'endDate', 'venue', 'venueAddress', 'coverImage', 'capacity'] as const;

/**
 * Mutation.updateEvent and PUT /v1/events/{slug} (D3, D4, D16): the input against its schema, the event
 * locked, the policy (immutable fields while published → 409; status change, schedule, capacity and
 * slug → 400 together), then only the given fields applied; `null` clears an optional field.
 */
export async function updateEvent(em: EntityManager, organizationId: string, slug: string, input: UpdateEventInput): Promise<EventEntity> {
  assertValidInput(input);

  await guardingSlug(input.slug, () =>
    inUnitOfWork(em, async (tx) => {
      const event = await lockBySlug(tx, organizationId, slug);
      assertMutableFields(event, input);
      // A second pass, on the locked row: these rules compare the input with the stored event. The
      // input's own rules answered above, before the event was looked up and its published fields
      // guarded (EVENT_NOT_FOUND, EVENT_ALREADY_PUBLISHED), as they always have.
      const slugClash = input.slug != null && input.slug !== event.slug && (await slugTaken(tx, organizationId, input.slug));
      assertValidInput(
        input.status != null ? statusChangeErrors(event.status, input.status) : [],
        scheduleErrors(input, event, new Date()),
        capacityErrors(input.capacity, event.registrationCount),
        slugClash ? [duplicateSlugError(input.slug!)] : [],
      );

      for (const field of SETTABLE_FIELDS) if (input[field] !== undefined) Object.assign(event, { [field]: input[field] });
      if (input.timezone != null) event.timezone = canonicalTimeZone(input.timezone);
      if (input.status != null) event.storedStatus = input.status;
      await enqueueEventChange(tx, organizationId, event);
    }),
  );
  return findBySlug(em, organizationId, input.slug ?? slug);
}
