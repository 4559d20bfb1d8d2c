import type { SeriesEntity } from './series.entity';
import { presentSeries, type SeriesBody } from './series.presenter';

/** What the admin CLI prints of a series: its REST body (D28). */
export function seriesView(series: SeriesEntity): SeriesBody {
  return presentSeries(series, series.occurrenceCount ?? 0);
}
