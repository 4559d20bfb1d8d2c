import type { EntityManager } from '@mikro-orm/postgresql';
import DataLoader from 'dataloader';
import { TicketTypeEntity } from '../ticket-type/ticket-type.entity';
import { EventEntity } from './event.entity';

/** A row mapped to property names by MikroORM's query builder (`organization` is the foreign key). */
export type EventRow = Omit<EventEntity, 'organization' | 'ticketTypes' | 'status' | 'organizationId'> & { organization: string };

/**
 * An event as read for a list page, without entity hydration or the identity map (most of a page's
 * cost with 100 events): an object on EventEntity's prototype, so the GraphQL type and its derived
 * fields (`status`, `organizationId`) resolve exactly as for an entity, and `ticketTypes` is batched.
 */
export function eventView(row: EventRow): EventEntity {
  viewPrototype ??= shadowSetters(EventEntity.prototype);
  return Object.assign(Object.create(viewPrototype) as EventEntity, row, { organization: { id: row.organization } });
}

/**
 * A prototype on top of `prototype` in which MikroORM's property setters are shadowed by plain
 * writable slots, so that filling a view is plain assignment (the setters track entity state a
 * read-only view does not need). Made on first use: MikroORM defines the setters at discovery.
 */
function shadowSetters(prototype: object): object {
  const slots = Object.entries(Object.getOwnPropertyDescriptors(prototype))
    .filter(([, descriptor]) => descriptor.set !== undefined)
    .map(([name]): [string, PropertyDescriptor] => [name, { value: undefined, writable: true, enumerable: false, configurable: true }]);
  return Object.create(prototype, Object.fromEntries(slots)) as object;
}

let viewPrototype: object | undefined;

const loaders = new WeakMap<EntityManager, DataLoader<string, TicketTypeEntity[]>>();

/** Ticket types of the events of one request, fetched in one statement for all of them. */
export function ticketTypesOf(em: EntityManager, eventId: string): Promise<TicketTypeEntity[]> {
  let loader = loaders.get(em);
  if (!loader) {
    loader = new DataLoader(async (eventIds: readonly string[]) => {
      const rows = await em.find(TicketTypeEntity, { event: { $in: [...eventIds] } }, { orderBy: { createdAt: 'asc', id: 'asc' } });
      const byEvent = new Map<string, TicketTypeEntity[]>(eventIds.map((id) => [id, []]));
      for (const row of rows) byEvent.get(row.event.id)?.push(row);
      return eventIds.map((id) => byEvent.get(id) ?? []);
    });
    loaders.set(em, loader);
  }
  return loader.load(eventId);
}
