import { randomBytes } from 'node:crypto';
import type { Door, Outcome } from './event-api';
import type { HttpsClient } from './https-client';

/* Event series (D28) through either door, reduced to what both share (as EventApi does for events). */

export const SERIES_FIELDS = `id slug title description venue venueAddress coverImage capacity ticketTypes { name price currency quantity }
  timezone firstStart durationMinutes recurrence version occurrenceCount organizationId createdAt updatedAt`;
export const PLAN_FIELDS = `version create { eventId slug start localStart fields } update { eventId slug start localStart fields }
  delete { eventId slug start localStart fields } move { eventId slug toSlug start from to localStart booked fields } skip { eventId slug start reason }`;
export const OCCURRENCE_FIELDS = 'id slug title startDate endDate timezone status capacity registrationCount series { id slug }';

const CHANGE_VARIABLES = '$slug: String!, $changes: SeriesChangesInput, $scope: SeriesScope, $from: String, $newSlug: String, $moveBooked: Boolean';
const CHANGE_ARGUMENTS = 'slug: $slug, changes: $changes, scope: $scope, from: $from, newSlug: $newSlug, moveBooked: $moveBooked';

export function seriesSlug(prefix = 'series'): string {
  return `${prefix}-${randomBytes(3).toString('hex')}`;
}

/** A valid createSeries input: Tuesdays at 18:00 in Berlin from 2027-03-02, 6 of them, with one ticket type. */
export function seriesInput(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    title: 'Yoga',
    slug: seriesSlug(),
    timezone: 'Europe/Berlin',
    firstStart: '2027-03-02T18:00',
    durationMinutes: 60,
    recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=6'],
    capacity: 20,
    ticketTypes: [{ name: 'Drop-in', price: 12, currency: 'EUR', quantity: 20 }],
    ...overrides,
  };
}

export interface ChangeArguments {
  changes?: Record<string, unknown>;
  scope?: 'ALL' | 'FOLLOWING';
  from?: string;
  newSlug?: string;
  moveBooked?: boolean;
  expectedVersion?: number;
}

export class SeriesApi {
  constructor(
    private readonly client: HttpsClient,
    private readonly key: string | undefined,
    readonly door: Door,
    private readonly headers: Record<string, string> = {},
  ) {}

  /** The same API with an Idempotency-Key on its writes. */
  withIdempotencyKey(key: string): SeriesApi {
    return new SeriesApi(this.client, this.key, this.door, { 'idempotency-key': key });
  }

  create(input: unknown): Promise<Outcome> {
    if (this.door === 'rest') return this.rest('POST', '/v1/series', input);
    return this.graphql('createSeries', `mutation($input: CreateSeriesInput!) { createSeries(input: $input) { ${SERIES_FIELDS} } }`, { input });
  }

  get(slug: string): Promise<Outcome> {
    if (this.door === 'rest') return this.rest('GET', `/v1/series/${encodeURIComponent(slug)}`);
    return this.graphql('series', `query($slug: String!) { series(slug: $slug) { ${SERIES_FIELDS} } }`, { slug });
  }

  list(params: { page?: number; limit?: number; after?: string } = {}): Promise<Outcome> {
    if (this.door === 'rest') return this.rest('GET', `/v1/series${queryOf(params)}`);
    return this.graphql(
      'seriesList',
      `query($page: Int, $limit: Int, $after: String) { seriesList(page: $page, limit: $limit, after: $after) { series { ${SERIES_FIELDS} } total page limit nextCursor } }`,
      params,
    );
  }

  occurrences(slug: string, params: { page?: number; limit?: number; after?: string } = {}): Promise<Outcome> {
    if (this.door === 'rest') return this.rest('GET', `/v1/series/${encodeURIComponent(slug)}/occurrences${queryOf({ limit: 100, ...params })}`);
    return this.graphql(
      'seriesOccurrences',
      `query($slug: String!, $page: Int, $limit: Int, $after: String) {
        seriesOccurrences(slug: $slug, page: $page, limit: $limit, after: $after) { events { ${OCCURRENCE_FIELDS} } total page limit nextCursor }
      }`,
      { slug, limit: 100, ...params },
    );
  }

  preview(slug: string, args: ChangeArguments = {}): Promise<Outcome> {
    if (this.door === 'rest') return this.rest('POST', `/v1/series/${encodeURIComponent(slug)}/preview`, args);
    return this.graphql('previewSeriesChange', `mutation(${CHANGE_VARIABLES}, $expectedVersion: Int) { previewSeriesChange(${CHANGE_ARGUMENTS}, expectedVersion: $expectedVersion) { ${PLAN_FIELDS} } }`, {
      slug,
      ...args,
    });
  }

  update(slug: string, args: ChangeArguments): Promise<Outcome> {
    if (this.door === 'rest') return this.rest('PUT', `/v1/series/${encodeURIComponent(slug)}`, args);
    return this.graphql(
      'updateSeries',
      `mutation(${CHANGE_VARIABLES}, $expectedVersion: Int!) {
        updateSeries(${CHANGE_ARGUMENTS}, expectedVersion: $expectedVersion) { ${SERIES_FIELDS} plan { ${PLAN_FIELDS} } newSeries { ${SERIES_FIELDS} } }
      }`,
      { slug, ...args },
    );
  }

  delete(slug: string): Promise<Outcome> {
    if (this.door === 'rest') return this.rest('DELETE', `/v1/series/${encodeURIComponent(slug)}`);
    return this.graphql('deleteSeries', 'mutation($slug: String!) { deleteSeries(slug: $slug) { id slug deletedOccurrences } }', { slug });
  }

  /** Preview, then update with the preview's version: the plan shown and the answer. */
  async change(slug: string, args: ChangeArguments): Promise<{ preview: Outcome; updated: Outcome }> {
    const preview = await this.preview(slug, args);
    if (preview.error) throw new Error(`preview: ${JSON.stringify(preview.error)}`);
    const updated = await this.update(slug, { ...args, expectedVersion: preview.data.version });
    return { preview, updated };
  }

  private async rest(method: string, path: string, json?: unknown): Promise<Outcome> {
    const response = await this.client.request(method, path, { headers: { ...(this.key ? { authorization: `Bearer ${this.key}` } : {}), ...this.headers }, json });
    const error = response.status >= 400 ? response.body?.error : undefined;
    return { status: response.status, headers: response.headers, data: error ? undefined : response.body, error, text: response.text };
  }

  private async graphql(field: string, query: string, variables: Record<string, unknown>): Promise<Outcome> {
    const response = await this.client.request('POST', '/graphql', {
      headers: { ...(this.key ? { authorization: `Bearer ${this.key}` } : {}), ...this.headers },
      json: { query, variables },
    });
    const first = response.body?.errors?.[0];
    const error = first ? { code: first.extensions?.code as string, message: first.message as string, details: first.extensions?.details } : undefined;
    const executed = typeof response.body === 'object' && response.body !== null && 'data' in response.body;
    return { status: response.status, headers: response.headers, data: response.body?.data?.[field] ?? undefined, error, text: response.text, executed };
  }
}

function queryOf(params: Record<string, unknown>): string {
  const entries = Object.entries(params).filter(([, value]) => value !== undefined).map(([name, value]): [string, string] => [name, String(value)]);
  return entries.length > 0 ? `?${new URLSearchParams(entries).toString()}` : '';
}

export function seriesApi(client: HttpsClient, key: string | undefined, door: Door): SeriesApi {
  return new SeriesApi(client, key, door);
}

/** A plan's entries as `kind slug` lines (skips with their reason), sorted: what a test compares. */
export function planLines(plan: any): string[] {
  return [
    ...plan.create.map((entry: any) => `create ${entry.slug}`),
    ...plan.update.map((entry: any) => `update ${entry.slug}`),
    ...plan.delete.map((entry: any) => `delete ${entry.slug}`),
    ...plan.move.map((entry: any) => `move ${entry.slug} -> ${entry.toSlug}`),
    ...plan.skip.map((entry: any) => `skip ${entry.slug} ${entry.reason}`),
  ].sort();
}
