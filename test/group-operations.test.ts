/* eslint-disable @typescript-eslint/no-require-imports */
import { caseFile } from './helpers/case-group';

// Case files that share this jest test file's module load (see test/helpers/case-group.ts).
caseFile('observability-endpoints', () => require('./observability-endpoints.cases'));
caseFile('observability-readiness', () => require('./observability-readiness.cases'));
caseFile('limits-auth-failures', () => require('./limits-auth-failures.cases'));
caseFile('limits-budget', () => require('./limits-budget.cases'));
caseFile('idempotency-keys', () => require('./idempotency-keys.cases'));
caseFile('data-dir-lock', () => require('./data-dir-lock.cases'));
caseFile('docker-compose', () => require('./docker-compose.cases'));
caseFile('graceful-drain-keepalive', () => require('./graceful-drain-keepalive.cases'));

// jest.setTimeout in a case file applies to the whole group: the longest any of them asks for.
jest.setTimeout(120_000);
