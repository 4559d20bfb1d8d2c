import { afterBounds, BODY_VARIABLES, pageBounds, type RestRoute } from './route-table';

/** Event series (D28): the GraphQL series operations, one route each. */
export const SERIES_ROUTES: readonly RestRoute[] = [
  {
    method: 'GET',
    path: '/v1/series',
    operation: 'ListSeries',
    query: ['page', 'limit', 'after'],
    status: 200,
    result: 'seriesList',
    parameterBounds: { ...pageBounds, ...afterBounds },
  },
  {
    method: 'POST',
    path: '/v1/series',
    operation: 'CreateSeries',
    body: 'input',
    status: 201,
    result: 'createSeries',
    location: { path: '/v1/series/', field: 'slug' },
  },
  { method: 'GET', path: '/v1/series/:slug', operation: 'GetSeries', status: 200, result: 'series', errors: ['SERIES_NOT_FOUND'] },
  {
    method: 'PUT',
    path: '/v1/series/:slug',
    operation: 'UpdateSeries',
    body: BODY_VARIABLES,
    status: 200,
    result: 'updateSeries',
    errors: ['SERIES_NOT_FOUND', 'SERIES_CHANGED'],
  },
  { method: 'DELETE', path: '/v1/series/:slug', operation: 'DeleteSeries', status: 204, errors: ['SERIES_NOT_FOUND', 'SERIES_HAS_BOOKINGS'] },
  {
    method: 'POST',
    path: '/v1/series/:slug/preview',
    operation: 'PreviewSeriesChange',
    body: BODY_VARIABLES,
    status: 200,
    result: 'previewSeriesChange',
    errors: ['SERIES_NOT_FOUND'],
  },
  {
    method: 'GET',
    path: '/v1/series/:slug/occurrences',
    operation: 'ListSeriesOccurrences',
    query: ['page', 'limit', 'after'],
    status: 200,
    result: 'seriesOccurrences',
    errors: ['SERIES_NOT_FOUND'],
    parameterBounds: { ...pageBounds, ...afterBounds },
  },
];
