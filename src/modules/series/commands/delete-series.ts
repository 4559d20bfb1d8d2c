import { AppError } from '../../../foundation/errors/app-error';
import { auditCtes } from '../../../platform/audit/audit-log';
import { inUnitOfWork } from '../../../platform/db/unit-of-work';
import type { UnitOfWorkScope } from '../../../platform/db/unit-of-work-scope';
import { outboxCtes } from '../../../platform/outbox/outbox';
import { assertSeriesDeletable } from '../series.policy';
import { seriesMessage } from '../series.presenter';
import { deleteSeriesRow, lockSeries, occurrencesOf, seriesBySlug } from '../series.repository';
import { SeriesErrors } from '../../../foundation/errors/series-errors';

/**
 * Mutation.deleteSeries and DELETE /v1/series/{slug} (D28): the occurrences locked (then their slots,
 * then the series), refused while any has confirmed bookings (409 SERIES_HAS_BOOKINGS with how many,
 * nothing deleted), else the occurrences and the series deleted with the series.deleted message (the
 * deleted ids) and the audit entry: one statement under those locks.
 */
export async function deleteSeries(scope: UnitOfWorkScope, organizationId: string, slug: string): Promise<{ id: string; slug: string; deletedOccurrences: string[] }> {
  return inUnitOfWork(scope, async (tx, unit) => {
    const found = await seriesBySlug(tx, organizationId, slug);
    if (!found) throw AppError.seriesNotFound(slug);
    const occurrences = await occurrencesOf(tx, organizationId, found.id, true);
    const series = await lockSeries(tx, organizationId, found.id);
    if (!series) throw AppError.seriesNotFound(slug);
    assertSeriesDeletable(occurrences.filter((occurrence) => occurrence.booked).length);
    const ids = occurrences.map((occurrence) => occurrence.id);
    const message = seriesMessage({ ...series, organization: { id: organizationId } }, 0, { created: [], updated: [], moved: [], deleted: ids });
    const outbox = (gate: string) => {
      const messages = outboxCtes(organizationId, 'series.deleted', gate, message);
      const audit = auditCtes(unit, { organizationId, action: 'series.deleted', summary: { slug, occurrences: ids.length } }, gate);
      return { sql: `${messages.sql},\n     ${audit.sql}`, bindings: [...messages.bindings, ...audit.bindings] };
    };
    if (!(await deleteSeriesRow(tx, organizationId, series.id, outbox))) throw SeriesErrors.seriesHasBookings(1);
    return { id: series.id, slug, deletedOccurrences: ids };
  });
}
