/* eslint-disable @typescript-eslint/no-require-imports */
import { caseFile } from './helpers/case-group';

// Case files that share this jest test file's module load (see test/helpers/case-group.ts).
caseFile('graphql-frontend-queries', () => require('./graphql-frontend-queries.cases'));
caseFile('graphql-http-get', () => require('./graphql-http-get.cases'));
caseFile('graphql-http-status', () => require('./graphql-http-status.cases'));
caseFile('graphql-limits-queries', () => require('./graphql-limits-queries.cases'));
caseFile('schema-access', () => require('./schema-access.cases'));
caseFile('schema-drift', () => require('./schema-drift.cases'));
caseFile('schema-rest-compile', () => require('./schema-rest-compile.cases'));

// jest.setTimeout in a case file applies to the whole group: the longest any of them asks for.
jest.setTimeout(120_000);
