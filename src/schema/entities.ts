import { ApiKeyEntity } from '../modules/api-key/api-key.entity';
import { BookingEntity } from '../modules/booking/booking.entity';
import { EventEntity } from '../modules/event/event.entity';
import { MemberEntity } from '../modules/member/member.entity';
import { OrganizationEntity } from '../modules/organization/organization.entity';
import { TicketTypeEntity } from '../modules/ticket-type/ticket-type.entity';
import { WaitlistEntryEntity } from '../modules/waitlist/waitlist-entry.entity';
import { WebhookEndpointEntity } from '../modules/webhook/webhook-endpoint.entity';
import { SeriesEntity } from '../modules/series/series.entity';

/** Every entity, as class references (MikroORM discovery by folder does not work under jest). */
export const ENTITIES = [OrganizationEntity, ApiKeyEntity, EventEntity, TicketTypeEntity, BookingEntity, MemberEntity, WebhookEndpointEntity, WaitlistEntryEntity, SeriesEntity];
