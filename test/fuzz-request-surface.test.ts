import { readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import fc from 'fast-check';
import { Client } from 'pg';
import { CREATE_BOOKING, createPublishedEvent } from './helpers/bookings';
import { createTenant, eventInput } from './helpers/factories';
import { contractViolation, sendHttp, sendRaw, surfaceCases, type Answer, type SurfaceCase } from './helpers/request-surface';
import { startTestApp, type TestApp } from './helpers/test-app';

// Property-based check of the whole request surface (D13): whatever arrives, the answer is never
// a 5xx, always carries X-Request-Id and (for an error) the envelope with a known code, and a refused
// request leaves the stored data as it was. `npm test` runs a quick seeded pass; `npm run fuzz`
// runs FUZZ_CASES (10,000 by default there) with a random seed, printed for replay (FUZZ_SEED).
const CASES = Number(process.env.FUZZ_CASES ?? 300);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : process.env.FUZZ_CASES ? Date.now() % 2 ** 31 : 20_261_123;
jest.setTimeout(60_000 + CASES * 250);

let app: TestApp;
let organizationId: string;
let agent: https.Agent;
let ca: string;
let database: Client;
const targets = { key: '', slugs: [] as string[], ticketTypeIds: [] as string[], bookingIds: [] as string[] };

beforeAll(async () => {
  // Budgets out of the way: the fuzzer should reach the handlers, not the rate limiter.
  app = await startTestApp({ RATE_LIMIT_PER_MINUTE: '10000000', AUTH_FAILURES_PER_MINUTE: '10000000', LOG_LEVEL: 'warn' });
  const tenant = await createTenant(app.orm);
  organizationId = tenant.organization.id;
  targets.key = tenant.key;
  const published = await createPublishedEvent(app.client, tenant.key, {
    capacity: 50,
    ticketTypes: [{ name: 'Standard', price: 10, currency: 'EUR', quantity: 40 }],
  });
  const draft = eventInput();
  await app.client.rest('POST', '/v1/events', tenant.key, draft);
  const booking = await app.client.graphql(tenant.key, CREATE_BOOKING, {
    input: { eventSlug: published.slug, ticketTypeId: published.ticketTypes[0].id, quantity: 1, attendeeEmail: 'a@example.com', attendeeName: 'A' },
  });
  targets.slugs.push(published.slug, draft.slug as string);
  targets.ticketTypeIds.push(published.ticketTypes[0].id);
  targets.bookingIds.push(booking.body.data.createBooking.id);
  ca = readFileSync(path.join(app.config.dataDir, 'tls', 'localhost.crt'), 'utf8');
  agent = new https.Agent({ ca, keepAlive: true, maxSockets: 4 });
  database = new Client({ connectionString: app.databaseUrl });
  await database.connect();
});
afterAll(async () => {
  agent?.destroy();
  await database?.end();
  await app?.close();
});

/** A digest of everything the organization has stored: events, ticket types, bookings. */
async function storedState(): Promise<string> {
  const { rows } = await database.query<{ digest: string }>(
    `select md5(coalesce((select string_agg(e::text, '|' order by e.id) from events e where e.organization_id = $1), '') ||
                coalesce((select string_agg(t::text, '|' order by t.id) from ticket_types t join events e on e.id = t.event_id where e.organization_id = $1), '') ||
                coalesce((select string_agg(b::text, '|' order by b.id) from bookings b join events e on e.id = b.event_id where e.organization_id = $1), '')) as digest`,
    [organizationId],
  );
  return rows[0].digest;
}

/** Refused: an error status, or a GraphQL answer with errors and no data. */
function refused(answer: Answer): boolean {
  if (answer.status >= 400) return true;
  try {
    const body = JSON.parse(answer.text) as { data?: unknown; errors?: unknown[] };
    return Array.isArray(body.errors) && body.errors.length > 0 && (body.data === null || body.data === undefined);
  } catch {
    return false;
  }
}

test(`the request surface: ${CASES} generated requests, never a 5xx, always the envelope and X-Request-Id, refusals change nothing`, async () => {
  const statuses = new Map<number, number>();
  const stats = { cases: 0, serverErrors: 0, withoutEnvelope: 0, noAnswer: 0 };
  let state = await storedState();
  const started = Date.now();
  let failure: Error | undefined;
  let current: SurfaceCase | undefined;
  try {
    await fc.assert(
      fc.asyncProperty(surfaceCases(targets), async (surfaceCase: SurfaceCase) => {
        stats.cases += 1;
        current = surfaceCase;
        const answer = surfaceCase.kind === 'http' ? await sendHttp(app.service.port, ca, agent, surfaceCase) : await sendRaw(app.service.port, surfaceCase);
        if (answer === undefined) {
          // Only a raw request that is not HTTP at all may be closed without an answer.
          stats.noAnswer += 1;
          throw new Error('the connection closed without an answer');
        }
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        const violation = contractViolation(answer, surfaceCase.kind === 'http' ? surfaceCase.method === 'HEAD' : surfaceCase.head);
        if (violation) {
          if (answer.status >= 500) stats.serverErrors += 1;
          else stats.withoutEnvelope += 1;
          throw new Error(violation);
        }
        const after = await storedState();
        if (refused(answer) && after !== state) throw new Error(`a refused request (${answer.status}) changed stored data: ${answer.text.slice(0, 200)}`);
        state = after;
      }),
      // No shrinking: the failing request itself is printed below (and the seed replays the run).
      { numRuns: CASES, seed: SEED, endOnFailure: true, interruptAfterTimeLimit: CASES * 250 },
    );
  } catch (error) {
    // fast-check's own report repeats the whole (possibly huge) request: keep its head and the cause.
    const message = error instanceof Error ? error.message : String(error);
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : '';
    failure = new Error(`${message.slice(0, 600)}\n…\n${message.slice(-300)}\ncause: ${cause.slice(0, 600)}`);
    const shown = JSON.stringify(current, (_key, value: unknown) => (typeof value === 'string' && value.length > 300 ? `${value.slice(0, 300)}…(${value.length})` : value));
    process.stdout.write(`request-surface fuzz: failing request ${shown}\n`);
    if (process.env.FUZZ_DUMP) writeFileSync(process.env.FUZZ_DUMP, JSON.stringify(current));
  }
  const summary = {
    seed: SEED,
    cases: stats.cases,
    serverErrors: stats.serverErrors,
    answersWithoutEnvelope: stats.withoutEnvelope,
    closedWithoutAnswer: stats.noAnswer,
    seconds: Math.round((Date.now() - started) / 1000),
    statuses: Object.fromEntries([...statuses].sort(([a], [b]) => a - b)),
  };
  process.stdout.write(`request-surface fuzz: ${JSON.stringify(summary)}\n`);
  if (failure) throw failure;
  expect(stats.cases).toBeGreaterThanOrEqual(CASES);
  expect(app.logs.filter((line) => /"level":(50|60)/.test(line))).toEqual([]);
});
