import { execFile } from 'node:child_process';
import path from 'node:path';
import { upcomingEvents } from '../examples/frontend/upcoming-events';
import { createTenant, eventInput } from './helpers/factories';
import { useTestApp } from './helpers/use-test-app';

// The typed frontend call of docs/events.md (examples/frontend): its types are what the current schema.graphql
// gives (regenerated here and compared), `npm test` type-checks it against them, and it runs.

const ctx = useTestApp();

test('examples/frontend/generated.ts is what `npm run codegen` makes from the current schema.graphql', async () => {
  // In its own process: the code generator's ESM dependencies do not load in jest's CommonJS sandbox.
  const result = await new Promise<{ code: number; stderr: string }>((resolve) =>
    execFile(process.execPath, [path.resolve(__dirname, '../scripts/codegen.js'), '--check'], (error, _stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stderr }),
    ),
  );
  expect(result).toEqual({ code: 0, stderr: '' });
});

test('the typed graphql-request call returns the data, typed', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const input = eventInput({ title: 'Typed call', ticketTypes: [{ name: 'Early', price: 12.5, currency: 'EUR', quantity: 10 }, { name: 'Late', price: 20, currency: 'EUR', quantity: 10 }] });
  expect((await ctx.app.client.rest('POST', '/v1/events', key, input)).status).toBe(201);
  const events = await upcomingEvents(`${ctx.app.url}/graphql`, key, ctx.app.client.fetchFor());
  expect(events).toEqual([{ title: 'Typed call', startsAt: new Date(input.startDate as string), cheapest: 12.5 }]);
});
