/* eslint-disable @typescript-eslint/no-require-imports */
import { caseFile } from './helpers/case-group';

// Case files that share this jest test file's module load (see test/helpers/case-group.ts).
caseFile('openapi-document', () => require('./openapi-document.cases'));
caseFile('openapi-lint', () => require('./openapi-lint.cases'));
caseFile('openapi-conformance', () => require('./openapi-conformance.cases'));
caseFile('docs-page', () => require('./docs-page.cases'));
caseFile('frontend-example', () => require('./frontend-example.cases'));
caseFile('smoke', () => require('./smoke.cases'));
caseFile('graphql-explorer', () => require('./graphql-explorer.cases'));

// jest.setTimeout in a case file applies to the whole group: the longest any of them asks for.
jest.setTimeout(120_000);
