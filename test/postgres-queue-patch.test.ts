import path from 'node:path';

// patches/postgres+3.4.9.patch (applied by `npm install`'s postinstall, patch-package): postgres.js's
// internal queue grew by one slot for every query a busy connection took (shift left a hole, push
// appended), and moving a connection between queues scanned the whole array: under constant load the
// read pool slowed down request after request (GET by slug fell from ~8,500 to ~4,400 req/s within a
// minute). The queue now compacts itself and searches only its live part.

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
