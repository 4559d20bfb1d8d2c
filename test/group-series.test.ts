/* eslint-disable @typescript-eslint/no-require-imports */
import { caseFile } from './helpers/case-group';

// Case files that share this jest test file's module load (see test/helpers/case-group.ts).
caseFile('series-create', () => require('./series-create.cases'));
caseFile('series-changes', () => require('./series-changes.cases'));
caseFile('series-messages', () => require('./series-messages.cases'));

// jest.setTimeout in a case file applies to the whole group: the longest any of them asks for.
jest.setTimeout(120_000);
