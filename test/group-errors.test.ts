/* eslint-disable @typescript-eslint/no-require-imports */
import { caseFile } from './helpers/case-group';

// Case files that share this jest test file's module load (see test/helpers/case-group.ts).
caseFile('errors-parity', () => require('./errors-parity.cases'));
caseFile('errors-transport', () => require('./errors-transport.cases'));
caseFile('errors-table', () => require('./errors-table.cases'));
caseFile('errors-unexpected', () => require('./errors-unexpected.cases'));
caseFile('errors-echo', () => require('./errors-echo.cases'));
caseFile('transport-malformed', () => require('./transport-malformed.cases'));
caseFile('hostile-input-regressions', () => require('./hostile-input-regressions.cases'));
caseFile('validation-both-doors', () => require('./validation-both-doors.cases'));
caseFile('validation-one-pass', () => require('./validation-one-pass.cases'));
caseFile('cors-origins', () => require('./cors-origins.cases'));
caseFile('transport-https', () => require('./transport-https.cases'));

// jest.setTimeout in a case file applies to the whole group: the longest any of them asks for.
jest.setTimeout(120_000);
