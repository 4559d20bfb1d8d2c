/* eslint-disable @typescript-eslint/no-require-imports */
import { caseFile } from './helpers/case-group';

// Case files that share this jest test file's module load (see test/helpers/case-group.ts).
caseFile('dashboard-operations', () => require('./dashboard-operations.cases'));
caseFile('dashboard-settings', () => require('./dashboard-settings.cases'));
caseFile('dashboard-security', () => require('./dashboard-security.cases'));
caseFile('dashboard-instances', () => require('./dashboard-instances.cases'));

// jest.setTimeout in a case file applies to the whole group: the longest any of them asks for.
jest.setTimeout(120_000);
