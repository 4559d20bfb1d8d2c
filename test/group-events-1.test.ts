/* eslint-disable @typescript-eslint/no-require-imports */
import { caseFile } from './helpers/case-group';

// Case files that share this jest test file's module load (see test/helpers/case-group.ts).
caseFile('events-concurrency', () => require('./events-concurrency.cases'));
caseFile('events-delete', () => require('./events-delete.cases'));
caseFile('events-failures', () => require('./events-failures.cases'));
caseFile('events-hostile-input', () => require('./events-hostile-input.cases'));
caseFile('events-lifecycle', () => require('./events-lifecycle.cases'));
caseFile('events-list-filters', () => require('./events-list-filters.cases'));

// jest.setTimeout in a case file applies to the whole group: the longest any of them asks for.
jest.setTimeout(120_000);
