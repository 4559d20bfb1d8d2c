import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createQueuedEvent, join, poll } from './helpers/queue';
import { useTestApp } from './helpers/use-test-app';

// D30: a poll costs the same whatever the queue's length. Positions come from each entry's rank, the
// queue's head and a Fenwick tree of LEFT ranks (src/modules/queue/queue-sql.ts): the poll's plan
// reads a bounded number of rows at 100,000 waiting as at 10, and its positions are exact (equal to
// counting the WAITING entries ahead) after leaves from the middle. Rows read, not timings, are compared.
jest.setTimeout(120_000);

const ctx = useTestApp({ QUEUE_INTERVAL_MS: '0' }, { tenant: true });
const sql = (text: string, values: unknown[] = []) => ctx.app.orm.em.fork().getConnection().execute<any[]>(text, values);

/** The poll's statement as PostgreSQL runs it (its committed snapshot). */
const POLL = (() => {
  const text = readFileSync(path.resolve(__dirname, '../sql/queue.read-repository.sql'), 'utf8');
  const start = text.indexOf('-- name: queueEntryById');
  const body = text.slice(start).split('\n').slice(2).join('\n');
  return body.slice(0, body.indexOf(';'));
})();

/**
 * A queue of `size` entries that joined after onSaleAt (ranks 1..size), made as joins make them, in
 * one statement (a test's shortcut for `size` joins: the same rows, counters included).
 */
async function queueOf(size: number): Promise<{ slug: string; eventId: string }> {
  const event = await createQueuedEvent(ctx.app.client, ctx.key, { onSaleAt: new Date(Date.now() - 60_000).toISOString(), admitPerMinute: 1_000 }, { capacity: null });
  await sql(`insert into event_queues (organization_id, event_id, joined, waiting, early, drawn_at) values (?, ?, ?, ?, 0, now())`, [ctx.organizationId, event.id, size, size]);
  await sql(
    `insert into queue_entries (organization_id, id, event_id, attendee_email, status, seq, rank, joined_at)
     select ?, 'qe_' || lpad(n::text, 20, '0') || substr(?, 5, 8), ?, 'p' || n || '@example.com', 'WAITING', n, n, now() from generate_series(1, ?) n`,
    [ctx.organizationId, event.id, event.id, size],
  );
  await sql('analyze queue_entries');
  return { slug: event.slug, eventId: event.id };
}

const entryId = (eventId: string, rank: number) => `qe_${String(rank).padStart(20, '0')}${eventId.slice(4, 12)}`;

/** The poll's plan, executed: every node's rows (actual rows × loops) summed, and its shape. */
async function pollPlan(id: string): Promise<{ rows: number; shape: string }> {
  const [row] = await sql(`explain (analyze, format json) ${POLL.replace('$1', '?').replace('$2', '?')}`, [ctx.organizationId, id]);
  const plan = (row['QUERY PLAN'] ?? Object.values(row)[0])[0].Plan;
  let rows = 0;
  const shape: string[] = [];
  const walk = (node: { 'Node Type': string; 'Actual Rows': number; 'Actual Loops': number; Plans?: unknown[] }) => {
    rows += node['Actual Rows'] * node['Actual Loops'];
    shape.push(node['Node Type']);
    for (const child of node.Plans ?? []) walk(child as typeof node);
  };
  walk(plan);
  return { rows, shape: shape.join(' > ') };
}

test('a poll at 100,000 waiting reads as many rows as at 10 (the same plan), after leaves from the middle too', async () => {
  const small = await queueOf(10);
  const large = await queueOf(100_000);
  // Leaves spread over the large queue: each adds to at most 24 nodes of its tree.
  for (const rank of [2, 17, 500, 4_096, 50_001, 99_999]) expect((await ctx.app.client.rest('DELETE', `/v1/queue/${entryId(large.eventId, rank)}`, ctx.key)).status).toBe(200);
  await ctx.app.client.rest('DELETE', `/v1/queue/${entryId(small.eventId, 4)}`, ctx.key);

  const atTen = await pollPlan(entryId(small.eventId, 10));
  const atBack = await pollPlan(entryId(large.eventId, 100_000));
  const atMiddle = await pollPlan(entryId(large.eventId, 65_537));
  expect(atBack.shape).toBe(atTen.shape);
  expect(atMiddle.shape).toBe(atTen.shape);
  // Bounded by the tree's depth (at most 24 nodes per prefix, two prefixes, and a few rows of the
  // entry, its event and its queue), never by the queue's length (measured: 12 rows at 10, 21 at 100,000).
  for (const plan of [atTen, atBack, atMiddle]) expect(plan.rows).toBeLessThanOrEqual(64);
  expect(atBack.rows).toBeLessThanOrEqual(atTen.rows + 48);

  expect((await poll(ctx.app.client, ctx.key, entryId(large.eventId, 100_000))).body.position).toBe(100_000 - 6);
  expect((await poll(ctx.app.client, ctx.key, entryId(large.eventId, 65_537))).body.position).toBe(65_537 - 5);
  expect((await poll(ctx.app.client, ctx.key, entryId(small.eventId, 10))).body.position).toBe(9);
  expect((await ctx.app.client.rest('GET', `/v1/events/${large.slug}/queue`, ctx.key)).body.waiting).toBe(100_000 - 6);
});

test('positions stay exact as entries leave anywhere and are admitted from the front: equal to counting the WAITING ahead', async () => {
  const event = await createQueuedEvent(ctx.app.client, ctx.key, { onSaleAt: new Date(Date.now() - 60_000).toISOString() });
  const ids: string[] = [];
  for (let index = 0; index < 40; index += 1) ids.push((await join(ctx.app.client, ctx.key, event.slug, `x${index}`)).body.id);
  const check = async () => {
    const truth = await sql(
      `select id, (select count(*) from queue_entries y where y.event_id = x.event_id and y.status = 'WAITING' and y.rank <= x.rank)::int as position
         from queue_entries x where x.event_id = ? and x.status = 'WAITING'`,
      [event.id],
    );
    for (const { id, position } of truth) expect([id, (await poll(ctx.app.client, ctx.key, id)).body.position]).toEqual([id, position]);
    return truth.length;
  };
  for (const index of [0, 7, 8, 20, 39, 13]) await ctx.app.client.rest('DELETE', `/v1/queue/${ids[index]}`, ctx.key);
  expect(await check()).toBe(34);
  // The admission passes the first ranks (the head moves over the LEFT ones between): as its statement does.
  await sql(`update queue_entries set status = 'ADMITTED', admitted_at = now(), admitted_until = now() + interval '10 minutes' where id = any(?::text[])`, [`{${ids.slice(1, 7).join(',')}}`]);
  await sql(`update event_queues set head = 7, waiting = waiting - 6 where event_id = ?`, [event.id]);
  expect(await check()).toBe(28);
  for (const index of [9, 30, 31]) await ctx.app.client.rest('DELETE', `/v1/queue/${ids[index]}`, ctx.key);
  expect(await check()).toBe(25);
});
