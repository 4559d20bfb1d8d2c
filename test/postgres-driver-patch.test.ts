import net from 'node:net';
import path from 'node:path';
import postgres from 'postgres';
import { ADMIN_URL, describeOnPostgres } from './helpers/database';

// patches/postgres+3.4.9.patch (applied by `npm install`'s postinstall, patch-package) carries two fixes.
//
// The queue: postgres.js's internal queue grew by one slot for every query a busy connection took (shift left a hole, push
// appended), and moving a connection between queues scanned the whole array: under constant load the
// read pool slowed down request after request (GET by slug fell from ~8,500 to ~4,400 req/s within a
// minute). The queue now compacts itself and searches only its live part.
//
// The write scheduler: a write shorter than 1 kB waits for a `setImmediate`, armed only while its
// variable is unset, and a connection closing before that immediate ran cancelled it without unsetting
// the variable. Every later write of that connection (the next socket's startup message first) stayed
// in its buffer: the connection hung until its connect timeout, again at every reconnection, and the
// statements behind it hit the driver's bound. The service met it after a PostgreSQL restart: its
// batched statements are issued from an immediate, so their write was still pending when the socket
// closed (test/faults-database.test.ts "stopped", one connection per pool: 17 s before writes came back).

interface Queue<T> {
  readonly length: number;
  push(item: T): T;
  shift(): T | undefined;
  remove(item: T): T | null;
}

/** The queue module the installed postgres.js runs (the CommonJS build next to its entry point). */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Queue = require(path.join(path.dirname(require.resolve('postgres')), 'queue.js')) as <T>() => Queue<T>;

test('the installed postgres.js has the queue fix', () => {
  const source = Queue.toString();
  expect(source).toContain('xs.indexOf(x, index)');
  expect(source).toContain('xs = xs.slice(index)');
});

test('a queue that never empties stays a FIFO queue through compactions', () => {
  const queue = Queue<number>();
  queue.push(-1);
  queue.push(-2);
  let next = 0;
  // Like a busy connection under load: taken from the front, put back at the end, never empty.
  for (let round = 0; round < 10_000; round += 1) {
    const taken = queue.shift() as number;
    expect(taken).toBe(round < 2 ? -1 - round : next++);
    queue.push(round);
    expect(queue.length).toBe(2);
  }
  expect(queue.remove(9_999)).toBe(9_999);
  expect(queue.remove(9_999)).toBeNull();
  expect(queue.remove(12_345)).toBeNull();
  expect(queue.length).toBe(1);
  expect(queue.shift()).toBe(9_998);
  expect(queue.length).toBe(0);
});

describeOnPostgres('a real PostgreSQL session whose socket the test closes')('the write scheduler fix', () => {
  test('a connection whose socket closed with a write pending answers on its next socket', async () => {
    const sockets: net.Socket[] = [];
    const url = new URL(ADMIN_URL);
    const sql = postgres(ADMIN_URL, {
      max: 1,
      connect_timeout: 3,
      fetch_types: false,
      onnotice: () => undefined,
      // The socket is the test's, so that it can close it at the moment that matters (an option
      // postgres.js documents but does not declare in its types).
      ...({
        socket: () => {
          const socket = net.connect(Number(url.port || 5432), url.hostname);
          sockets.push(socket);
          return socket;
        },
      } as object),
    });
    try {
      expect(await sql`select 1 as one`).toEqual([{ one: 1 }]);
      // From inside an immediate, as the service's batched statements are sent: the statement's write
      // waits for the next immediate, and the socket closes (close callbacks run first) before it.
      const inFlight = await new Promise<{ answer: Promise<string> }>((resolve) =>
        setImmediate(async () => {
          const answer = sql`select 2 as two`.execute().then(
            () => 'answered',
            (error: { code?: string }) => String(error.code),
          );
          for (let tick = 0; tick < 4; tick += 1) await Promise.resolve();
          sockets[sockets.length - 1].destroy();
          resolve({ answer });
        }),
      );
      expect(await inFlight.answer).toBe('CONNECTION_CLOSED');
      // Unpatched: CONNECT_TIMEOUT after 3 s (the startup message never left the buffer).
      const next = await sql`select 3 as three`.then(
        (rows) => rows[0].three as number,
        (error: { code?: string }) => String(error.code),
      );
      expect(next).toBe(3);
      expect(sockets.length).toBe(2);
    } finally {
      await sql.end({ timeout: 1 });
    }
  });
});
