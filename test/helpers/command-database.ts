import type { MikroORM } from '@mikro-orm/postgresql';
import { openDatabase } from '../../src/schema/database';
import type { OrganizationSnapshot } from '../../src/platform/auth/auth-context';
import { createOrganization } from './factories';
import { createTestDatabase, type TestDatabase } from './database';
import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ServerSecrets } from '../../src/platform/crypto/server-secrets';
import { TicketCodes } from '../../src/platform/crypto/ticket-codes';
import { systemScope, type UnitOfWorkScope } from '../../src/platform/db/unit-of-work-scope';

/**
 * A migrated database of its own for a test file that calls commands directly, without HTTP
 * (Immich's "medium" tests): real PostgreSQL, real transactions and locks, no server.
 */
export interface CommandDatabase {
  readonly orm: MikroORM;
  close(): Promise<void>;
}

export async function openCommandDatabase(): Promise<CommandDatabase> {
  const database: TestDatabase = await createTestDatabase();
  const orm = await openDatabase({ clientUrl: database.url, pool: database.pool });
  return {
    orm,
    async close() {
      await orm.close(true);
      await database.drop();
    },
  };
}

/** An organization made as the CLI makes one, as the snapshot a request carries. */
export async function organizationSnapshot(orm: MikroORM, timezone = 'Europe/Paris'): Promise<OrganizationSnapshot> {
  const organization = await createOrganization(orm, { timezone });
  return {
    id: organization.id,
    timezone: organization.timezone,
    plan: organization.plan,
    allowedIps: organization.allowedIps,
    restrictionMode: organization.restrictionMode,
    rateLimitPerMinute: organization.rateLimitPerMinute ?? null,
    holdMinutes: organization.holdMinutes ?? 15,
    waitlistOfferMinutes: organization.waitlistOfferMinutes ?? 60,
  };
}

/** An input object as type-graphql hands it to a resolver: an instance of its input class. */
export function inputOf<T extends object>(InputClass: new () => T, fields: Record<string, unknown>): T {
  return Object.assign(new InputClass(), fields);
}

/**
 * The command database of a test file: opened before its tests, closed after them (also when a test
 * failed). Read `orm` inside tests and hooks.
 */
export function useCommandDatabase(): { readonly orm: MikroORM } {
  let database: CommandDatabase | undefined;
  beforeAll(async () => {
    database = await openCommandDatabase();
  });
  afterAll(async () => {
    await database?.close();
  });
  return {
    get orm(): MikroORM {
      if (!database) throw new Error('the command database is opened in beforeAll: read it inside a test or hook');
      return database.orm;
    },
  };
}

/** Ticket code keys (D29) under a secret of the test run's own: no server opens these codes. */
export const TEST_TICKET_CODES = TicketCodes.of(new ServerSecrets(randomBytes(32).toString('base64'), undefined));

/** The scope of a command that confirms a booking (createBooking, confirmBooking): the system, with ticket code keys. */
export function bookingScope(em: EntityManager): UnitOfWorkScope {
  return systemScope(em, 'test', { ticketCodes: TEST_TICKET_CODES });
}
