import type { EntityManager } from '@mikro-orm/postgresql';
import type { SeriesChangeArguments } from '../series.inputs';
import { planView, type SeriesPlanView } from '../series-plan.view';
import { planChange } from './series-change';
import { localOf } from '../series-time';

/**
 * Mutation (and Query) previewSeriesChange and POST /v1/series/{slug}/preview (D28): the plan of the
 * change and the series' version, changing nothing. updateSeries with that version does exactly it.
 */
export async function previewSeriesChange(em: EntityManager, organizationId: string, args: SeriesChangeArguments): Promise<SeriesPlanView> {
  const { series, plan, next } = await planChange(em, organizationId, args, new Date(), false);
  return planView(plan, series.version, (instant) => localOf(instant, next.timezone));
}
