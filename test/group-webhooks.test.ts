/* eslint-disable @typescript-eslint/no-require-imports */
import { caseFile } from './helpers/case-group';

// Case files that share this jest test file's module load (see test/helpers/case-group.ts).
caseFile('webhooks-delivery', () => require('./webhooks-delivery.cases'));
caseFile('webhooks-payloads', () => require('./webhooks-payloads.cases'));
caseFile('webhooks-destinations', () => require('./webhooks-destinations.cases'));
caseFile('webhooks-retries', () => require('./webhooks-retries.cases'));
caseFile('webhooks-settings', () => require('./webhooks-settings.cases'));
caseFile('webhooks-tenancy', () => require('./webhooks-tenancy.cases'));
caseFile('webhooks-endpoints', () => require('./webhooks-endpoints.cases'));

// jest.setTimeout in a case file applies to the whole group: the longest any of them asks for.
jest.setTimeout(120_000);
