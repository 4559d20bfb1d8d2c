// Jest's order of test files. Jest starts the files that took longest in its last run first, and, with
// no timings yet (a clean clone, as in CI), the largest files first: the group files
// (test/group-*.test.ts) are a few lines long and would start last, leaving one worker busy alone at
// the end. So the files known to be long start first in the order below (measured wall times on 2
// workers, longest first), then the others in jest's own order.
'use strict';
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

const LONGEST_FIRST = [
  'zero-config.test.ts',
  'group-bookings.test.ts',
  'dashboard-browser.test.ts',
  'group-webhooks.test.ts',
  'members-cli-and-query.test.ts',
  'webhooks-processes.test.ts',
  'multi-host.test.ts',
  'retention.test.ts',
  'bookings-attendees-csv.test.ts',
  'group-errors.test.ts',
  'group-operations.test.ts',
  'keys-lifecycle.test.ts',
  'group-events-1.test.ts',
  'group-documents.test.ts',
  'cli-lookups.test.ts',
  'keys-multi-instance.test.ts',
  'faults-database.test.ts',
  'group-dashboard.test.ts',
  'limits-redis.test.ts',
  'group-events-2.test.ts',
  'graceful-shutdown.test.ts',
  'group-graphql.test.ts',
];

class LongestFirstSequencer extends Sequencer {
  async sort(tests) {
    const ordered = await super.sort(tests);
    const rank = (test) => {
      const index = LONGEST_FIRST.indexOf(path.relative(path.join(test.context.config.rootDir, 'test'), test.path));
      return index === -1 ? LONGEST_FIRST.length : index;
    };
    return ordered.map((test, position) => ({ test, position })).sort((a, b) => rank(a.test) - rank(b.test) || a.position - b.position).map(({ test }) => test);
  }
}

module.exports = LongestFirstSequencer;
