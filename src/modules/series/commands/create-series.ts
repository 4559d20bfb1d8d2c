import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, type FieldError } from '../../../foundation/errors/app-error';
import { newId } from '../../../foundation/ids';
import { inputErrors } from '../../../foundation/validation/validate-input';
import { auditCtes } from '../../../platform/audit/audit-log';
import { inUnitOfWork } from '../../../platform/db/unit-of-work';
import type { UnitOfWorkScope } from '../../../platform/db/unit-of-work-scope';
import { outboxCtes } from '../../../platform/outbox/outbox';
import { canonicalTimeZone } from '../../event/event.queries';
import type { SeriesEntity } from '../series.entity';
import { CreateSeriesInput } from '../series.inputs';
import { occurrenceSlugTakenError, seriesSlugTakenError } from '../series.policy';
import { seriesMessage } from '../series.presenter';
import { eventSlugsTaken, insertSeries, isUniqueViolation, seriesSlugTaken } from '../series.repository';
import { firstStartText, managedSeries, occurrencesParams, type NewOccurrence, type SeriesRow } from '../series-rows';
import { checkSchedule } from '../series-schedule';
import { recurrenceLines } from '../series-recurrence';
import { assignSlugs, occurrenceSlugs } from '../series-slugs';
import { templateOf, ticketTypesOf, newTicketTypes } from './series-template';

/**
 * Mutation.createSeries and POST /v1/series (D28): the input against its schema and the schedule's
 * rules (every failing field at once, D4: the rule's limits on `recurrence`), the series slug free,
 * the occurrences' slugs free, then the series, every occurrence (an event in DRAFT with the
 * template's ticket types) and its series.created message (no event.created per occurrence) and
 * audit entry: one statement, all or nothing, the unique indexes deciding a slug taken meanwhile
 * (two identical creates: one series, the other a 400 on `slug`).
 */
export async function createSeries(scope: UnitOfWorkScope, organizationId: string, input: CreateSeriesInput): Promise<SeriesEntity> {
  const organization = { id: organizationId };
  const { em } = scope;
  const now = new Date();
  const errors: FieldError[] = inputErrors(input);
  const failing = new Set(errors.map((error) => error.field.replace(/[.[].*$/, '')));
  const schedule = await checkSchedule(input, now, { mustBeFuture: true, failing });
  errors.push(...schedule.errors);
  const slugFree = failing.has('slug') || !(await seriesSlugTaken(em, organization.id, input.slug));
  if (!slugFree) errors.push(seriesSlugTakenError(input.slug));
  if (errors.length > 0 || !('occurrences' in schedule)) throw AppError.validation(errors);

  // The occurrences' slugs around the organization's other events (their dates' slugs taken, the time is added).
  const candidates = schedule.occurrences.flatMap((occurrence) => occurrenceSlugs(input.slug, occurrence.key));
  const taken = await eventSlugsTaken(em, organization.id, candidates);
  const slugs = assignSlugs(input.slug, schedule.occurrences, taken);
  const clashes = slugs.filter((slug, index) => taken.has(slug) || slugs.indexOf(slug) !== index);
  if (clashes.length > 0) throw AppError.validation([occurrenceSlugTakenError(clashes)]);

  const template = templateOf(input, canonicalTimeZone(input.timezone));
  const occurrences: NewOccurrence[] = schedule.occurrences.map((occurrence, index) => ({ id: newId('evt'), slug: slugs[index], ...occurrence }));
  const ticketTypes = ticketTypesOf(input.ticketTypes);
  const row: SeriesRow = {
    id: newId('ser'),
    organization: organization.id,
    slug: input.slug,
    ...template,
    ticketTypes,
    firstStart: firstStartText(schedule.firstStart),
    durationMinutes: input.durationMinutes,
    recurrence: recurrenceLines(input.recurrence),
    version: 1,
    createdAt: now,
    updatedAt: now,
  };
  return guardingSlugs(em, organization.id, input.slug, () =>
    inUnitOfWork(
      scope,
      async (tx: EntityManager, unit) => {
        const message = seriesMessage({ ...row, organization: { id: organization.id } }, occurrences.length, {
          created: occurrences.map((occurrence) => occurrence.id),
          updated: [],
          moved: [],
          deleted: [],
        });
        const outbox = (gate: string) => {
          const messages = outboxCtes(organization.id, 'series.created', gate, message);
          const audit = auditCtes(unit, { organizationId: organization.id, action: 'series.created', summary: { slug: row.slug, occurrences: occurrences.length, firstStart: row.firstStart, timezone: row.timezone } }, gate);
          return { sql: `${messages.sql},\n     ${audit.sql}`, bindings: [...messages.bindings, ...audit.bindings] };
        };
        await insertSeries(
          tx,
          { ...row, ticketTypes: JSON.stringify(ticketTypes) },
          occurrencesParams(organization.id, template, occurrences, newTicketTypes(ticketTypes, occurrences, now), now),
          outbox,
        );
        const series = managedSeries(tx, row);
        series.occurrenceCount = occurrences.length;
        return series;
      },
      { singleStatement: true },
    ),
  );
}

/** createSeries from plain fields (the admin CLI): the same input class, so the same rules. */
export function createSeriesFrom(scope: UnitOfWorkScope, organizationId: string, fields: Partial<CreateSeriesInput>): Promise<SeriesEntity> {
  return createSeries(scope, organizationId, Object.assign(new CreateSeriesInput(), fields));
}

/**
 * Runs `work`; a slug taken since it was looked up (a concurrent create or split) answers as a
 * sequential duplicate would: 400 on `field` (the series slug) when a series has it now, else on
 * `slug` naming the occurrences' slugs, never a 500.
 */
export async function guardingSlugs<T>(em: EntityManager, organizationId: string, slug: string | undefined, work: () => Promise<T>, field = 'slug'): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    if (slug !== undefined && (await seriesSlugTaken(em, organizationId, slug))) throw AppError.validation([seriesSlugTakenError(slug, field)]);
    throw AppError.validation([occurrenceSlugTakenError([`${slug ?? 'the series'}-…`])]);
  }
}
