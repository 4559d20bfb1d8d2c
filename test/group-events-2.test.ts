/* eslint-disable @typescript-eslint/no-require-imports */
import { caseFile } from './helpers/case-group';

// Case files that share this jest test file's module load (see test/helpers/case-group.ts).
caseFile('events-counts', () => require('./events-counts.cases'));
caseFile('events-resolvers', () => require('./events-resolvers.cases'));
caseFile('events-responses', () => require('./events-responses.cases'));
caseFile('events-statements', () => require('./events-statements.cases'));
caseFile('events-tenancy', () => require('./events-tenancy.cases'));
caseFile('events-ticket-types', () => require('./events-ticket-types.cases'));
caseFile('events-validation', () => require('./events-validation.cases'));
caseFile('events-venue-cover', () => require('./events-venue-cover.cases'));
caseFile('lists-scale', () => require('./lists-scale.cases'));
caseFile('lists-cursors', () => require('./lists-cursors.cases'));

// jest.setTimeout in a case file applies to the whole group: the longest any of them asks for.
jest.setTimeout(120_000);
