'use strict';
// The load of scripts/multi-host.sh (several machines, proven): several organizations
// write and read through HAProxy (a new connection per request, so consecutive requests land on
// different instances), each write followed at once by a read of it; mid-load one instance is
// SIGKILLed and the replica's replay paused for a while. At the end, against the primary: every
// acknowledged event and booking is stored, counts equal the bookings, no event is oversold, and no
// read of an organization's own acknowledged write was stale. Prints a summary; exits 1 on any failure.
//
// Settings (environment, set by scripts/multi-host.sh): LB_URL, CA_FILE, TENANTS (JSON [{id,key}]),
// DATABASE_URL (primary), REPLICA_URL, KILL_PID, INSTANCE_URLS (JSON, for /metrics), DURATION_S,
// WORKERS_PER_TENANT, KILL_AT_S, PAUSE_AT_S, PAUSE_FOR_S.
const https = require('node:https');
const { readFileSync } = require('node:fs');
const { randomBytes } = require('node:crypto');
const { Client } = require('pg');

const env = process.env;
const LB = new URL(env.LB_URL);
const CA = readFileSync(env.CA_FILE, 'utf8');
const TENANTS = JSON.parse(env.TENANTS);
const DURATION_MS = Number(env.DURATION_S ?? 40) * 1000;
const WORKERS = Number(env.WORKERS_PER_TENANT ?? 4);
const KILL_AT_MS = Number(env.KILL_AT_S ?? 10) * 1000;
const PAUSE_AT_MS = Number(env.PAUSE_AT_S ?? 16) * 1000;
const PAUSE_FOR_MS = Number(env.PAUSE_FOR_S ?? 12) * 1000;
const HOT_CAPACITY = 300;
const HOT_TICKETS = 250;

const stats = { requests: 0, byStatus: {}, unanswered: 0, writesAcked: 0, readsChecked: 0, refusedSoldOut: 0, answeredAfterKill: 0 };
const stale = [];
const failures = [];

function call(method, path, key, body, base = LB) {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers = { authorization: `Bearer ${key}`, ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}) };
  return new Promise((resolve) => {
    const req = https.request(
      { host: base.hostname, port: base.port, path, method, headers, ca: CA, servername: 'localhost', agent: false, timeout: 15_000 },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          stats.requests += 1;
          const code = json?.error?.code ?? json?.errors?.[0]?.extensions?.code;
          const label = code ? `${res.statusCode} ${code}` : String(res.statusCode);
          stats.byStatus[label] = (stats.byStatus[label] ?? 0) + 1;
          if (killedAt && Date.now() > killedAt + 2_000 && res.statusCode < 500) stats.answeredAfterKill += 1;
          resolve({ status: res.statusCode, body: json, text });
        });
        res.on('error', () => resolve(unanswered()));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve(unanswered()));
    if (payload) req.write(payload);
    req.end();
  });
}

function unanswered() {
  stats.requests += 1;
  stats.unanswered += 1;
  return { status: 0 };
}

const graphql = (key, query, variables) => call('POST', '/graphql', key, { query, variables });
const answered = (response) => response.status > 0 && response.status < 500;
const coin = () => Math.random() < 0.5;

const EVENT_QUERY = 'query($slug: String!) { event(slug: $slug) { slug title registrationCount ticketTypes { id sold } } }';
const BOOKING_QUERY = 'query($id: ID!) { booking(id: $id) { id status quantity } }';
const CREATE_EVENT = 'mutation($input: CreateEventInput!) { createEvent(input: $input) { slug title } }';
const CREATE_BOOKING = 'mutation($input: CreateBookingInput!) { createBooking(input: $input) { id quantity } }';

function eventInput(title, extra = {}) {
  const start = new Date(Date.now() + 30 * 86_400_000);
  start.setUTCMilliseconds(0);
  return { title, slug: `mh-${randomBytes(6).toString('hex')}`, startDate: start.toISOString(), endDate: new Date(start.getTime() + 3_600_000).toISOString(), ...extra };
}

/** Reads an event by either door: { status, event } (event undefined when not found). */
async function readEvent(key, slug) {
  if (coin()) {
    const response = await call('GET', `/v1/events/${slug}`, key);
    return { status: response.status, event: response.status === 200 ? response.body : undefined };
  }
  const response = await graphql(key, EVENT_QUERY, { slug });
  const event = response.body?.data?.event ?? undefined;
  const notFound = response.body?.errors?.some((error) => error.extensions?.code === 'EVENT_NOT_FOUND');
  return { status: response.status === 200 && !event && !notFound ? 500 : response.status, event };
}

async function readBooking(key, id) {
  if (coin()) {
    const response = await call('GET', `/v1/bookings/${id}`, key);
    return { status: response.status, booking: response.status === 200 ? response.body : undefined };
  }
  const response = await graphql(key, BOOKING_QUERY, { id });
  return { status: response.status, booking: response.body?.data?.booking ?? undefined };
}

function staleRead(tenant, what, detail) {
  stale.push({ organization: tenant.id, what, ...detail });
}

/** One organization's state as its clients saw it acknowledged. */
function tenantState(tenant, hot) {
  return { tenant, hot, events: new Map(), bookings: new Map(), ackedSeats: 0 };
}

async function createEvent(state, own) {
  const { tenant } = state;
  const input = eventInput(`Created ${randomBytes(3).toString('hex')}`);
  const response = coin() ? await call('POST', '/v1/events', tenant.key, input) : await graphql(tenant.key, CREATE_EVENT, { input });
  const made = response.status === 201 ? response.body : response.body?.data?.createEvent;
  if (!made?.slug) return;
  stats.writesAcked += 1;
  state.events.set(made.slug, made.title);
  own.add(made.slug);
  const read = await readEvent(tenant.key, made.slug);
  if (!answered(read)) return;
  stats.readsChecked += 1;
  if (read.event?.title !== made.title) staleRead(tenant, 'event after create', { slug: made.slug, status: read.status });
  const list = await call('GET', '/v1/events?limit=100', tenant.key);
  if (!answered(list)) return;
  stats.readsChecked += 1;
  if (!list.body?.events?.some((event) => event.slug === made.slug)) staleRead(tenant, 'list after create', { slug: made.slug, status: list.status });
}

/** Renames one of the events this worker created (only it changes them, so what it reads must be what it wrote). */
async function updateEvent(state, own) {
  const { tenant } = state;
  const mine = [...own];
  if (mine.length === 0) return createEvent(state, own);
  const slug = mine[Math.floor(Math.random() * mine.length)];
  const title = `Renamed ${randomBytes(3).toString('hex')}`;
  // In flight from here: a lost answer leaves the title unknown (either is right).
  state.events.set(slug, undefined);
  const response = await call('PUT', `/v1/events/${slug}`, tenant.key, { title });
  if (response.status !== 200) return;
  stats.writesAcked += 1;
  state.events.set(slug, title);
  const read = await readEvent(tenant.key, slug);
  if (!answered(read)) return;
  stats.readsChecked += 1;
  if (read.event?.title !== title) staleRead(tenant, 'event after update', { slug, expected: title, got: read.event?.title });
}

async function book(state) {
  const { tenant, hot } = state;
  const quantity = 1 + Math.floor(Math.random() * 3);
  const input = { quantity, attendeeEmail: `a${randomBytes(4).toString('hex')}@example.com`, attendeeName: 'Load', ticketTypeId: hot.ticketTypeId };
  const response = coin()
    ? await call('POST', `/v1/events/${hot.slug}/bookings`, tenant.key, input)
    : await graphql(tenant.key, CREATE_BOOKING, { input: { ...input, eventSlug: hot.slug } });
  const code = response.body?.error?.code ?? response.body?.errors?.[0]?.extensions?.code;
  if (code === 'SOLD_OUT') stats.refusedSoldOut += 1;
  const made = response.status === 201 ? response.body : response.body?.data?.createBooking;
  if (!made?.id) return;
  stats.writesAcked += 1;
  state.bookings.set(made.id, quantity);
  state.ackedSeats += quantity;
  const floor = state.ackedSeats;
  const read = await readBooking(tenant.key, made.id);
  if (answered(read)) {
    stats.readsChecked += 1;
    if (read.booking?.id !== made.id) staleRead(tenant, 'booking after create', { id: made.id, status: read.status });
  }
  const event = await readEvent(tenant.key, hot.slug);
  if (answered(event)) {
    stats.readsChecked += 1;
    // Every booking acknowledged to this organization before the read began is counted.
    if (!(event.event?.registrationCount >= floor)) staleRead(tenant, 'count after booking', { floor, got: event.event?.registrationCount });
  }
}

async function worker(state, until) {
  const own = new Set();
  while (Date.now() < until) {
    const dice = Math.random();
    if (dice < 0.5) await book(state);
    else if (dice < 0.8) await createEvent(state, own);
    else await updateEvent(state, own);
  }
}

let killedAt;

async function withClient(url, work) {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function metricsOf(url) {
  const response = await call('GET', '/metrics', '', undefined, new URL(url));
  const pick = (series) => Number((response.text ?? '').split('\n').find((line) => line.startsWith(`${series} `))?.split(' ')[1] ?? 0);
  return {
    replica: pick('read_replica_reads_total{source="replica"}'),
    primary: pick('read_replica_reads_total{source="primary"}'),
    waitedOut: pick('read_replica_fallbacks_total{reason="waited-out"}'),
  };
}

async function setUp() {
  const states = [];
  for (const tenant of TENANTS) {
    const created = await call('POST', '/v1/events', tenant.key, eventInput('Hot', { capacity: HOT_CAPACITY, ticketTypes: [{ name: 'Seat', price: 10, currency: 'EUR', quantity: HOT_TICKETS }] }));
    if (created.status !== 201) throw new Error(`hot event: ${created.status} ${created.text}`);
    const published = await call('PUT', `/v1/events/${created.body.slug}`, tenant.key, { status: 'PUBLISHED' });
    if (published.status !== 200) throw new Error(`publish: ${published.status} ${published.text}`);
    states.push(tenantState(tenant, { slug: created.body.slug, id: created.body.id, ticketTypeId: created.body.ticketTypes[0].id }));
  }
  return states;
}

async function check(states) {
  await withClient(env.DATABASE_URL, async (db) => {
    for (const state of states) {
      const slugs = [...state.events.keys()];
      const { rows: events } = await db.query('select slug, title from events where organization_id = $1 and slug = any($2)', [state.tenant.id, slugs]);
      const stored = new Map(events.map((row) => [row.slug, row.title]));
      for (const [slug, title] of state.events) {
        if (!stored.has(slug)) failures.push(`acknowledged event ${slug} is not stored`);
        else if (title !== undefined && stored.get(slug) !== title) failures.push(`event ${slug}: acknowledged title "${title}", stored "${stored.get(slug)}"`);
      }
      const ids = [...state.bookings.keys()];
      const { rows: bookings } = await db.query("select id from bookings where id = any($1) and status = 'CONFIRMED'", [ids]);
      if (bookings.length !== ids.length) failures.push(`${ids.length - bookings.length} acknowledged bookings of ${state.tenant.id} are not stored`);
      const { rows: [sums] } = await db.query(
        "select coalesce(sum(quantity), 0)::int as seats, coalesce(sum(quantity) filter (where ticket_type_id = $2), 0)::int as tickets from bookings where event_id = $1 and status = 'CONFIRMED'",
        [state.hot.id, state.hot.ticketTypeId],
      );
      const read = await call('GET', `/v1/events/${state.hot.slug}`, state.tenant.key);
      const event = read.body;
      const sold = event?.ticketTypes?.[0]?.sold;
      state.summary = { seatsBooked: sums.seats, registrationCount: event?.registrationCount, sold, capacity: HOT_CAPACITY, acknowledgedSeats: state.ackedSeats };
      if (event?.registrationCount !== sums.seats) failures.push(`hot event of ${state.tenant.id}: registrationCount ${event?.registrationCount}, bookings hold ${sums.seats}`);
      if (sold !== sums.tickets) failures.push(`hot event of ${state.tenant.id}: sold ${sold}, bookings hold ${sums.tickets}`);
      if (sums.seats > HOT_CAPACITY || sums.tickets > HOT_TICKETS) failures.push(`hot event of ${state.tenant.id} oversold: ${sums.seats}/${HOT_CAPACITY} seats, ${sums.tickets}/${HOT_TICKETS} tickets`);
      if (sums.seats < state.ackedSeats) failures.push(`hot event of ${state.tenant.id}: ${state.ackedSeats} seats acknowledged, ${sums.seats} stored`);
    }
  });
}

async function main() {
  const states = await setUp();
  const instanceUrls = JSON.parse(env.INSTANCE_URLS ?? '[]');
  const started = Date.now();
  const until = started + DURATION_MS;
  const timeline = [];
  const note = (what) => timeline.push(`${((Date.now() - started) / 1000).toFixed(1)} s  ${what}`);
  note('load starts');
  const chaos = (async () => {
    await new Promise((resolve) => setTimeout(resolve, KILL_AT_MS));
    process.kill(Number(env.KILL_PID), 'SIGKILL');
    killedAt = Date.now();
    note(`SIGKILL to instance pid ${env.KILL_PID}`);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, PAUSE_AT_MS - KILL_AT_MS)));
    await withClient(env.REPLICA_URL, (db) => db.query('select pg_wal_replay_pause()'));
    note('replica replay paused (pg_wal_replay_pause)');
    await new Promise((resolve) => setTimeout(resolve, PAUSE_FOR_MS));
    await withClient(env.REPLICA_URL, (db) => db.query('select pg_wal_replay_resume()'));
    note('replica replay resumed');
  })();
  await Promise.all([chaos, ...states.flatMap((state) => Array.from({ length: WORKERS }, () => worker(state, until)))]);
  note('load ends');
  await check(states);
  const survivors = instanceUrls.filter((_, index) => index !== Number(env.KILL_INDEX ?? 1));
  const metrics = await Promise.all(survivors.map((url) => metricsOf(url).catch(() => undefined)));
  const reads = metrics.reduce((sum, m) => ({ replica: sum.replica + (m?.replica ?? 0), primary: sum.primary + (m?.primary ?? 0), waitedOut: sum.waitedOut + (m?.waitedOut ?? 0) }), { replica: 0, primary: 0, waitedOut: 0 });
  if (stats.answeredAfterKill === 0) failures.push('no request was answered after the kill: HAProxy did not route around it');
  if (reads.replica === 0) failures.push('the surviving instances served no read from the replica');
  if (stale.length > 0) failures.push(`${stale.length} stale reads of an organization's own acknowledged writes`);

  const lines = [
    'multi-host: summary',
    ...timeline.map((line) => `  ${line}`),
    `  requests ${stats.requests} (by status ${JSON.stringify(stats.byStatus)}; no answer: ${stats.unanswered}, around the kill)`,
    `  acknowledged writes ${stats.writesAcked}; reads of own writes checked ${stats.readsChecked}; stale ${stale.length}`,
    `  bookings refused SOLD_OUT ${stats.refusedSoldOut}; answered after the kill ${stats.answeredAfterKill}`,
    `  reads on the surviving instances: replica ${reads.replica}, primary ${reads.primary} (waited-out fallbacks ${reads.waitedOut})`,
    ...states.map((state) => `  ${state.tenant.id}: events ${state.events.size}, bookings ${state.bookings.size}, hot event ${JSON.stringify(state.summary)}`),
    ...stale.slice(0, 10).map((entry) => `  STALE ${JSON.stringify(entry)}`),
    ...failures.map((failure) => `  FAIL ${failure}`),
    failures.length === 0 ? 'multi-host: PASS' : 'multi-host: FAIL',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  process.exitCode = failures.length === 0 ? 0 : 1;
}

main().catch((error) => {
  process.stderr.write(`multi-host driver: ${error.stack ?? error}\n`);
  process.exitCode = 2;
});
