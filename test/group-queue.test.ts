/* eslint-disable @typescript-eslint/no-require-imports */
import { caseFile } from './helpers/case-group';

// The on-sale queue's case files (D30), sharing this jest test file's module load (test/helpers/case-group.ts).
caseFile('queue-basics', () => require('./queue-basics.cases'));
caseFile('queue-settings', () => require('./queue-settings.cases'));
caseFile('queue-entries', () => require('./queue-entries.cases'));
caseFile('queue-gate', () => require('./queue-gate.cases'));
caseFile('queue-admission', () => require('./queue-admission.cases'));
caseFile('queue-positions', () => require('./queue-positions.cases'));

// jest.setTimeout in a case file applies to the whole group: the longest any of them asks for.
jest.setTimeout(120_000);
