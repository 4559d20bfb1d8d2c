import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../../../foundation/ids';
import { assertValidInput } from '../../../foundation/validation/validate-input';
import { recordAudit } from '../../../platform/audit/audit-log';
import { inUnitOfWork } from '../../../platform/db/unit-of-work';
import type { UnitOfWorkScope } from '../../../platform/db/unit-of-work-scope';
import { enqueueWebhook } from '../../../platform/outbox/outbox';
import type { SeriesEntity } from '../series.entity';
import { SeriesScope, type SeriesChangeArguments } from '../series.inputs';
import { assertVersion } from '../series.policy';
import { occurrenceIdsOf, seriesMessage } from '../series.presenter';
import { planView, type SeriesPlanView } from '../series-plan.view';
import { managedSeries, occurrencesParams, type NewOccurrence, type SeriesRow } from '../series-rows';
import { localOf } from '../series-time';
import { occurrenceCount } from '../series.repository';
import { deleteOccurrences, insertOccurrences, insertSplitSeries, moveOccurrences, reshareCapacity, updateOccurrences, writeSeries } from '../series-changes.repository';
import { argumentErrors, planChange, type PlannedChange } from './series-change';
import { newTicketTypes } from './series-template';
import { guardingSlugs } from './create-series';
import { rescheduledMessages } from './rescheduled-messages';
import { SeriesErrors } from '../../../foundation/errors/series-errors';

/** What updateSeries answers: the series of the path as changed, the plan it applied, and (FOLLOWING) the new series. */
export interface SeriesUpdate {
  series: SeriesEntity;
  plan: SeriesPlanView;
  newSeries: SeriesEntity | null;
}

/**
 * Mutation.updateSeries and PUT /v1/series/{slug} (D28). In one transaction: the occurrences locked
 * (then their slots, then the series: the order a booking takes them in), the version checked against
 * `expectedVersion` (409 SERIES_CHANGED), the plan made again under the locks and compared with the
 * one made just before them as the preview makes it (another: SERIES_CHANGED), then exactly that plan
 * applied, the series (and for FOLLOWING the new series) written, series.updated / series.created
 * and event.rescheduled for every booked date moved, and the audit entries. Nothing of it is applied
 * unless all of it is.
 */
export async function updateSeries(scope: UnitOfWorkScope, organizationId: string, args: SeriesChangeArguments & { expectedVersion: number }): Promise<SeriesUpdate> {
  assertValidInput(argumentErrors(args));
  const at = new Date();
  return guardingSlugs(
    scope.em,
    organizationId,
    args.scope === SeriesScope.FOLLOWING ? (args.newSlug ?? undefined) : undefined,
    () =>
      inUnitOfWork(scope, async (tx, unit) => {
        const previewed = await planChange(tx, organizationId, args, at, false);
        const change = await planChange(tx, organizationId, args, at, true);
        assertVersion(args.expectedVersion, change.series.version);
        if (JSON.stringify(previewed.plan) !== JSON.stringify(change.plan)) throw SeriesErrors.seriesChanged(args.expectedVersion, change.series.version);
        const applied = await applyChange(tx, organizationId, change, at);
        const { plan, next, series } = change;
        const earlier = applied.newSeries ? applied.series : null;
        const target = applied.newSeries ?? applied.series;
        const ids = occurrenceIdsOf(plan, applied.created);
        const countOf = (row: SeriesRow) => occurrenceCount(tx, organizationId, row.id);
        if (earlier) {
          await enqueueWebhook(tx, organizationId, 'series.updated', seriesMessage({ ...earlier, organization: { id: organizationId } }, await countOf(earlier), { created: [], updated: [], moved: [], deleted: [] }));
          await enqueueWebhook(tx, organizationId, 'series.created', seriesMessage({ ...target, organization: { id: organizationId } }, await countOf(target), ids));
        } else {
          await enqueueWebhook(tx, organizationId, 'series.updated', seriesMessage({ ...target, organization: { id: organizationId } }, await countOf(target), ids));
        }
        const owner = { id: target.id, slug: target.slug };
        await rescheduledMessages(tx, organizationId, plan.move.filter((move) => move.booked).map((move) => move.toSlug), owner, at);
        const summary = { slug: series.slug, scope: args.scope, version: applied.series.version, created: ids.created.length, updated: ids.updated.length, moved: ids.moved.length, deleted: ids.deleted.length, skipped: plan.skip.length };
        await recordAudit(tx, unit, { organizationId, action: 'series.updated', targetId: series.id, summary: applied.newSeries ? { ...summary, from: args.from ?? null, newSlug: next.slug } : summary });
        if (applied.newSeries) await recordAudit(tx, unit, { organizationId, action: 'series.created', targetId: applied.newSeries.id, summary: { slug: next.slug, splitFrom: series.slug, occurrences: await countOf(target) } });
        return {
          series: managedSeries(tx, applied.series),
          plan: planView(plan, series.version, (instant) => localOf(instant, next.timezone)),
          newSeries: applied.newSeries ? managedSeries(tx, applied.newSeries) : null,
        };
      }),
    'newSlug',
  );
}

/** The rows the change wrote: the series of the path, the new series (FOLLOWING), the ids of the occurrences made. */
interface Applied {
  series: SeriesRow;
  newSeries: SeriesRow | null;
  created: string[];
}

/** Applies the plan: the series rows, then deletes, moves, updates and new occurrences, each checked against the plan. */
async function applyChange(tx: EntityManager, organizationId: string, change: PlannedChange, at: Date): Promise<Applied> {
  const { series, next, plan, affected } = change;
  const version = series.version + 1;
  let owner: SeriesRow;
  let pathSeries: SeriesRow;
  let newSeries: SeriesRow | null = null;
  if (change.earlierRecurrence) {
    pathSeries = { ...series, recurrence: change.earlierRecurrence, version, updatedAt: at };
    newSeries = { ...next, id: newId('ser'), version: 1, createdAt: at, updatedAt: at };
    await writeSeries(tx, pathSeries);
    await insertSplitSeries(tx, newSeries, affected.map((occurrence) => occurrence.id));
    owner = newSeries;
  } else {
    pathSeries = { ...next, version, updatedAt: at };
    await writeSeries(tx, pathSeries);
    owner = pathSeries;
  }
  const expect = (done: number, planned: number) => {
    // The locks keep the occurrences as planned on: a difference means the plan no longer holds.
    if (done !== planned) throw SeriesErrors.seriesChanged(series.version, series.version);
  };
  expect(await deleteOccurrences(tx, organizationId, owner.id, plan.delete.map((entry) => entry.eventId)), plan.delete.length);
  expect(await moveOccurrences(tx, organizationId, owner.id, plan.move, next, at), plan.move.length);
  expect(await updateOccurrences(tx, organizationId, owner.id, plan.update, next, at), plan.update.length);
  const resized = [...plan.update, ...plan.move].filter((entry) => entry.fields.includes('capacity')).map((entry) => entry.eventId);
  await reshareCapacity(tx, affected.filter((occurrence) => resized.includes(occurrence.id)), next.capacity);
  const made: NewOccurrence[] = plan.create.map((entry) => ({ id: newId('evt'), slug: entry.slug, key: entry.key, start: entry.start, end: entry.end }));
  if (made.length > 0) {
    const params = occurrencesParams(organizationId, next, made, newTicketTypes(next.ticketTypes, made, at), at);
    expect(await insertOccurrences(tx, owner.id, params), made.length);
  }
  return { series: pathSeries, newSeries, created: made.map((occurrence) => occurrence.id) };
}
