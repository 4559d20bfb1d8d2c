/* eslint-disable @typescript-eslint/no-require-imports */
import { caseFile } from './helpers/case-group';

// Case files that share this jest test file's module load (see test/helpers/case-group.ts).
caseFile('bookings-batching', () => require('./bookings-batching.cases'));
caseFile('bookings-check-in', () => require('./bookings-check-in.cases'));
caseFile('bookings-check-in-by-code', () => require('./bookings-check-in-by-code.cases'));
caseFile('bookings-exchange', () => require('./bookings-exchange.cases'));
caseFile('bookings-exchange-seats', () => require('./bookings-exchange-seats.cases'));
caseFile('bookings-concurrency', () => require('./bookings-concurrency.cases'));
caseFile('bookings-holds', () => require('./bookings-holds.cases'));
caseFile('bookings-lifecycle', () => require('./bookings-lifecycle.cases'));
caseFile('bookings-outbox', () => require('./bookings-outbox.cases'));
caseFile('bookings-permissions', () => require('./bookings-permissions.cases'));
caseFile('bookings-rest', () => require('./bookings-rest.cases'));
caseFile('bookings-slots', () => require('./bookings-slots.cases'));
caseFile('inventory-modes', () => require('./inventory-modes.cases'));
caseFile('bookings-ticket-codes', () => require('./bookings-ticket-codes.cases'));
caseFile('bookings-ticket-rotation', () => require('./bookings-ticket-rotation.cases'));
caseFile('bookings-transfer', () => require('./bookings-transfer.cases'));
caseFile('bookings-validation', () => require('./bookings-validation.cases'));
caseFile('idempotency-edge', () => require('./idempotency-edge.cases'));
caseFile('waitlist-rest', () => require('./waitlist-rest.cases'));
caseFile('bookings-waitlist', () => require('./bookings-waitlist.cases'));
caseFile('ticket-types-mutations', () => require('./ticket-types-mutations.cases'));

// jest.setTimeout in a case file applies to the whole group: the longest any of them asks for.
jest.setTimeout(120_000);
