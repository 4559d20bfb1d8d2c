import { Arg, Ctx, FieldResolver, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { DEFAULT_LIMIT } from '../../foundation/validation/arguments';
import type { RequestContext } from '../../platform/graphql/request-context';
import { RequiresPermission } from '../../platform/graphql/requires-permission';
import { EventEntity } from '../event/event.entity';
import type { EventPage } from '../event/event.read-model';
import type { EventView } from '../event/event.read-repository';
import { EventList } from '../event/event.types';
import { createSeries } from './commands/create-series';
import { deleteSeries } from './commands/delete-series';
import { previewSeriesChange } from './commands/preview-series-change';
import { updateSeries } from './commands/update-series';
import { SeriesEntity } from './series.entity';
import { CreateSeriesInput, SeriesChangesInput, SeriesScope, type SeriesChangeArguments } from './series.inputs';
import { SeriesPlan, type SeriesPlanView } from './series-plan.view';
import { occurrenceCountOf, occurrencesPage, seriesBySlug, seriesPage, seriesRefOf, type SeriesPage } from './series.read-model';
import type { SeriesView } from './series.read-repository';
import { DeletedSeries, EventSeries, SeriesList } from './series.types';

const PAGE = { defaultValue: 1, description: 'Page number, from 1.' };
const LIMIT = { defaultValue: DEFAULT_LIMIT, description: 'Page size, 1 to 100.' };
const AFTER = { nullable: true, description: "A previous page's nextCursor: the page after it, instead of a page number." };

/** A series as a resolver answers it: a read, or the entity a write made (with what updateSeries applied). */
type SeriesResult = (SeriesEntity | SeriesView) & { plan?: SeriesPlanView | null; newSeries?: SeriesEntity | null };

/** The arguments previewSeriesChange and updateSeries share (D28: the same arguments). */
function changeArguments(
  slug: string,
  changes: SeriesChangesInput | null | undefined,
  scope: SeriesScope | null | undefined,
  from: string | null | undefined,
  newSlug: string | null | undefined,
  moveBooked: boolean | null | undefined,
): SeriesChangeArguments {
  return { slug, changes: changes ?? new SeriesChangesInput(), scope: scope ?? SeriesScope.ALL, from, newSlug, moveBooked: moveBooked ?? false };
}

@Resolver(() => SeriesEntity)
export class SeriesResolver {
  @Query(() => SeriesEntity, { nullable: true, description: 'One series by slug; null (with a SERIES_NOT_FOUND error at its path) when there is none.' })
  @RequiresPermission('events:read')
  series(@Ctx() context: RequestContext, @Arg('slug') slug: string): Promise<SeriesView> {
    return seriesBySlug(context, slug);
  }

  @Query(() => SeriesList, { description: "The organization's series, newest first." })
  @RequiresPermission('events:read')
  seriesList(
    @Ctx() context: RequestContext,
    @Arg('page', () => Int, PAGE) page: number,
    @Arg('limit', () => Int, LIMIT) limit: number,
    @Arg('after', () => String, AFTER) after?: string | null,
  ): Promise<SeriesPage> {
    return seriesPage(context, { page, limit, after });
  }

  @Query(() => EventList, { description: "A series' occurrences (events), in order of their start; SERIES_NOT_FOUND when there is no such series." })
  @RequiresPermission('events:read')
  seriesOccurrences(
    @Ctx() context: RequestContext,
    @Arg('slug') slug: string,
    @Arg('page', () => Int, PAGE) page: number,
    @Arg('limit', () => Int, LIMIT) limit: number,
    @Arg('after', () => String, AFTER) after?: string | null,
  ): Promise<EventPage> {
    return occurrencesPage(context, slug, { page, limit, after });
  }

  @Mutation(() => SeriesEntity, { description: 'Creates a series and every occurrence (events in DRAFT), all or nothing (D28).' })
  @RequiresPermission('events:write')
  createSeries(@Ctx() context: RequestContext, @Arg('input') input: CreateSeriesInput): Promise<SeriesEntity> {
    return createSeries(context.scope, context.auth.organization.id, input);
  }

  @Mutation(() => SeriesPlan, { description: 'The plan of a change (D28), changing nothing; also a query of the same name.' })
  @RequiresPermission('events:write')
  previewSeriesChange(
    @Ctx() context: RequestContext,
    @Arg('slug') slug: string,
    @Arg('changes', () => SeriesChangesInput, { nullable: true, description: 'What changes; none: only the split of FOLLOWING.' }) changes?: SeriesChangesInput | null,
    @Arg('scope', () => SeriesScope, { nullable: true, defaultValue: SeriesScope.ALL }) scope?: SeriesScope | null,
    @Arg('from', () => String, { nullable: true, description: 'FOLLOWING: the slug of the occurrence the new series starts at.' }) from?: string | null,
    @Arg('newSlug', () => String, { nullable: true, description: 'FOLLOWING: the slug of the new series.' }) newSlug?: string | null,
    @Arg('expectedVersion', () => Int, { nullable: true, description: 'Accepted as updateSeries takes it; the preview answers the version it planned on.' })
    _expectedVersion?: number | null,
    @Arg('moveBooked', () => Boolean, { nullable: true, defaultValue: false, description: 'Move dates with bookings too (event.rescheduled).' }) moveBooked?: boolean | null,
  ): Promise<SeriesPlanView> {
    return previewSeriesChange(context.em, context.auth.organization.id, changeArguments(slug, changes, scope, from, newSlug, moveBooked));
  }

  @Query(() => SeriesPlan, { name: 'previewSeriesChange', description: 'The plan of a change (D28), changing nothing; also a mutation of the same name.' })
  @RequiresPermission('events:write')
  previewSeriesChangeQuery(
    @Ctx() context: RequestContext,
    @Arg('slug') slug: string,
    @Arg('changes', () => SeriesChangesInput, { nullable: true }) changes?: SeriesChangesInput | null,
    @Arg('scope', () => SeriesScope, { nullable: true, defaultValue: SeriesScope.ALL }) scope?: SeriesScope | null,
    @Arg('from', () => String, { nullable: true }) from?: string | null,
    @Arg('newSlug', () => String, { nullable: true }) newSlug?: string | null,
    @Arg('expectedVersion', () => Int, { nullable: true }) _expectedVersion?: number | null,
    @Arg('moveBooked', () => Boolean, { nullable: true, defaultValue: false }) moveBooked?: boolean | null,
  ): Promise<SeriesPlanView> {
    return previewSeriesChange(context.em, context.auth.organization.id, changeArguments(slug, changes, scope, from, newSlug, moveBooked));
  }

  @Mutation(() => SeriesEntity, {
    description:
      'Applies exactly the plan previewSeriesChange gives while the series is at expectedVersion (else 409 SERIES_CHANGED, nothing changed). Answers the series (its `plan`: what was applied; `newSeries` for FOLLOWING).',
  })
  @RequiresPermission('events:write')
  async updateSeries(
    @Ctx() context: RequestContext,
    @Arg('slug') slug: string,
    @Arg('expectedVersion', () => Int, { description: 'The version previewSeriesChange (or the series) answered.' }) expectedVersion: number,
    @Arg('changes', () => SeriesChangesInput, { nullable: true }) changes?: SeriesChangesInput | null,
    @Arg('scope', () => SeriesScope, { nullable: true, defaultValue: SeriesScope.ALL }) scope?: SeriesScope | null,
    @Arg('from', () => String, { nullable: true }) from?: string | null,
    @Arg('newSlug', () => String, { nullable: true }) newSlug?: string | null,
    @Arg('moveBooked', () => Boolean, { nullable: true, defaultValue: false }) moveBooked?: boolean | null,
  ): Promise<SeriesResult> {
    const args = { ...changeArguments(slug, changes, scope, from, newSlug, moveBooked), expectedVersion };
    const { series, plan, newSeries } = await updateSeries(context.scope, context.auth.organization.id, args);
    return Object.assign(series, { plan, newSeries });
  }

  @Mutation(() => DeletedSeries, { description: 'Deletes a series and its occurrences; 409 SERIES_HAS_BOOKINGS while any has confirmed bookings.' })
  @RequiresPermission('events:write')
  deleteSeries(@Ctx() context: RequestContext, @Arg('slug') slug: string): Promise<DeletedSeries> {
    return deleteSeries(context.scope, context.auth.organization.id, slug);
  }

  @FieldResolver(() => Int, { description: 'How many occurrences (events) the series has.' })
  occurrenceCount(@Ctx() context: RequestContext, @Root() series: SeriesResult): Promise<number> | number {
    return series.occurrenceCount ?? occurrenceCountOf(context, series.id);
  }

  @FieldResolver(() => EventList, { description: 'Its occurrences, in order of their start.' })
  occurrences(
    @Ctx() context: RequestContext,
    @Root() series: SeriesResult,
    @Arg('page', () => Int, PAGE) page: number,
    @Arg('limit', () => Int, LIMIT) limit: number,
    @Arg('after', () => String, AFTER) after?: string | null,
  ): Promise<EventPage> {
    return occurrencesPage(context, series.slug, { page, limit, after });
  }

  @FieldResolver(() => SeriesPlan, { nullable: true, description: "updateSeries's answer only: the plan it applied (null elsewhere)." })
  plan(@Root() series: SeriesResult): SeriesPlanView | null {
    return series.plan ?? null;
  }

  @FieldResolver(() => SeriesEntity, { nullable: true, description: "updateSeries's answer with FOLLOWING only: the new series the later occurrences belong to." })
  newSeries(@Root() series: SeriesResult): SeriesEntity | null {
    return series.newSeries ?? null;
  }
}

@Resolver(() => EventEntity)
export class EventSeriesResolver {
  @FieldResolver(() => EventSeries, { nullable: true, description: 'The series this event is an occurrence of (D28), or null.' })
  series(@Ctx() context: RequestContext, @Root() event: EventEntity | EventView): Promise<EventSeries | null> | null {
    return event.seriesId ? seriesRefOf(context, event.seriesId) : null;
  }
}
