import { randomBytes } from 'node:crypto';
import { keyIdOf, secretFingerprint } from '../src/platform/crypto/secret-box';
import { ServerSecrets } from '../src/platform/crypto/server-secrets';
import { TicketCodes } from '../src/platform/crypto/ticket-codes';
import { runAdminInProcess } from './helpers/admin-cli';
import { bookingInput, createPublishedEvent } from './helpers/bookings';
import { sameSecretAs, startServiceOn } from './helpers/second-instance';
import { codeOf, CREATE_WITH_CODE, scan, transfer } from './helpers/ticket-codes';
import type { HttpsClient } from './helpers/https-client';
import { useTestApp } from './helpers/use-test-app';

/*
 * D29 under D24's rotation: ticket codes are sealed with the server secret and found by a hash keyed by
 * it. While SECRET_KEY_PREVIOUS is set an instance reads and scans codes of either secret; `admin
 * secret rotate` seals every code (current and superseded) again and recomputes its hash under the
 * new one; afterwards an instance with the new secret alone reads and scans every one of them.
 */

const ctx = useTestApp({}, { tenant: true });

async function book(client: HttpsClient, slug: string, email: string): Promise<{ id: string; ticketCode: string }> {
  const response = await client.graphql(ctx.key, CREATE_WITH_CODE, { input: bookingInput(slug, { attendeeEmail: email }) });
  expect(response.body.errors).toBeUndefined();
  return response.body.data.createBooking;
}

test('admin secret rotate seals and hashes every code again; every code reads and scans the same before, during and after', async () => {
  const oldSecret = sameSecretAs(ctx.app).SECRET_KEY;
  const newSecret = randomBytes(32).toString('base64');
  const event = await createPublishedEvent(ctx.app.client, ctx.key, { capacity: 20 });
  const kept = await book(ctx.app.client, event.slug, 'kept@example.com');
  const moved = await book(ctx.app.client, event.slug, 'moved@example.com');
  const movedTo = (await transfer(ctx.app.client, 'rest', ctx.key, moved.id, { attendeeName: 'New Holder', attendeeEmail: 'new@example.com' })).booking!;

  // Every instance restarted with SECRET_KEY = new and SECRET_KEY_PREVIOUS = old: codes of the old secret read and scan.
  const both = await startServiceOn(ctx.app.databaseUrl, { SECRET_KEY: newSecret, SECRET_KEY_PREVIOUS: oldSecret });
  let fresh: { id: string; ticketCode: string } | undefined;
  try {
    expect(await codeOf(both.client, ctx.key, kept.id)).toBe(kept.ticketCode);
    expect((await scan(both.client, 'rest', ctx.key, moved.ticketCode, event.slug)).error?.code).toBe('TICKET_TRANSFERRED');
    fresh = await book(both.client, event.slug, 'fresh@example.com');

    const rotated = await runAdminInProcess(['secret', 'rotate', '--batch', '1'], {
      ...process.env,
      DATABASE_URL: ctx.app.databaseUrl,
      SECRET_KEY: newSecret,
      SECRET_KEY_PREVIOUS: oldSecret,
    });
    expect(rotated.code).toBe(0);
    // The two codes sealed under the old secret (the fresh one is the new secret's already) and the superseded one.
    expect(rotated.json).toMatchObject({ status: 'rotated', resealed: { ticketCodes: 2, supersededTicketCodes: 1 }, unreadable: { ticketCodeBookings: [], ticketCodeCount: 0 } });
    expect(rotated.stderr).toContain('ticket codes: 2 re-sealed');

    // Stored: sealed under the new secret's key, hashed under its look-up key, nothing else.
    const codes = TicketCodes.of(new ServerSecrets(newSecret, undefined));
    const prefix = `v2:${keyIdOf(secretFingerprint(newSecret))}:`;
    const connection = ctx.app.orm.em.fork().getConnection();
    const current = await connection.execute<Array<{ hash: string; sealed: string }>>(
      'select ticket_code_hash as hash, ticket_code_sealed as sealed from bookings where event_id = ? and ticket_code_sealed is not null',
      [event.id],
    );
    const superseded = await connection.execute<Array<{ hash: string; sealed: string }>>('select code_hash as hash, sealed_code as sealed from superseded_ticket_codes where booking_id = ?', [moved.id]);
    expect(current).toHaveLength(3);
    expect(superseded).toHaveLength(1);
    for (const row of [...current, ...superseded]) {
      expect(row.sealed.startsWith(prefix)).toBe(true);
      expect(codes.lookupHashes(codes.open(row.sealed))[0]).toBe(row.hash);
    }
    expect(codes.open(superseded[0].sealed)).toBe(moved.ticketCode);
  } finally {
    await both.close();
  }

  // SECRET_KEY_PREVIOUS gone: every code still reads and scans, the superseded one still says what happened.
  const only = await startServiceOn(ctx.app.databaseUrl, { SECRET_KEY: newSecret });
  try {
    for (const booking of [kept, movedTo, fresh]) expect(await codeOf(only.client, ctx.key, booking.id)).toBe(booking.ticketCode);
    expect((await scan(only.client, 'graphql', ctx.key, moved.ticketCode, event.slug)).error?.code).toBe('TICKET_TRANSFERRED');
    for (const booking of [kept, movedTo, fresh]) expect((await scan(only.client, 'rest', ctx.key, booking.ticketCode, event.slug)).booking?.id).toBe(booking.id);
  } finally {
    await only.close();
  }
});
