import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../errors/app-error';
import { paginationErrors } from '../../validation/arguments';
import { statusFilter } from './event.queries';
import { EventEntity } from './event.entity';
import { eventView, type EventRow } from './event.read-model';
import { findBySlug } from './event.repository';
import type { EventStatus } from './event-status';

export interface EventPage {
  events: EventEntity[];
  total: number;
  page: number;
  limit: number;
}

/** Event reads (the changes are commands, in commands/). Every method takes the caller's organization first. */
export class EventService {
  constructor(private readonly em: EntityManager) {}

  async list(organizationId: string, query: { page: number; limit: number; status?: EventStatus | null }): Promise<EventPage> {
    const errors = paginationErrors(query.page, query.limit);
    if (errors.length > 0) throw AppError.validation(errors);

    const now = new Date();
    const where = { $and: [{ organization: organizationId }, statusFilter(query.status ?? undefined, now)] };
    const rows = await this.em
      .createQueryBuilder(EventEntity)
      .select('*')
      .where(where)
      .orderBy({ createdAt: 'desc', id: 'desc' })
      .limit(query.limit)
      .offset((query.page - 1) * query.limit)
      .execute<EventRow[]>('all', true);
    const total = await this.em.count(EventEntity, where);
    return { events: rows.map(eventView), total, page: query.page, limit: query.limit };
  }

  /** The event with its ticket types (two statements), or EVENT_NOT_FOUND. */
  get(organizationId: string, slug: string): Promise<EventEntity> {
    return findBySlug(this.em, organizationId, slug);
  }
}
