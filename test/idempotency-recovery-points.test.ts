import { randomUUID } from 'node:crypto';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { openDatabase } from '../src/schema/database';
import type { Actor } from '../src/platform/auth/actor';
import { IdempotencyKeyStore, type ClaimResult, type HeldKey } from '../src/platform/idempotency/idempotency-key.store';
import type { UnitOfWorkScope } from '../src/platform/db/unit-of-work-scope';
import { ServerSecrets } from '../src/platform/crypto/server-secrets';
import type { WebhookRuntime } from '../src/platform/outbox/webhook-runtime';
import { createWebhookEndpoint } from '../src/modules/webhook/commands/create-webhook-endpoint';
import { redeliverWebhookMessage } from '../src/modules/webhook/commands/redeliver-webhook-message';
import { sendTestWebhook } from '../src/modules/webhook/commands/send-test-webhook';
import { WebhookMessageStatus } from '../src/modules/webhook/webhook.types';
import { inviteMember } from '../src/modules/member/commands/invite-member';
import { issueInvitation } from '../src/modules/member/commands/issue-invitation';
import { hashSecretToken } from '../src/modules/member/secret-token';
import { createTestDatabase, describeOnPostgres, type TestDatabase } from './helpers/database';
import { createOrganization } from './helpers/factories';
import { systemScope } from '../src/platform/db/unit-of-work-scope';

// The key store's side of recovery points (D17): what a takeover keeps, what a release keeps, and
// the fence that stops a request which outlived its lease; then commands run with a claim the way a
// request runs them, and a retry recovered after its lease ended answers what the first attempt
// committed without running the change again. The whole path, crash included, is in
// test/idempotency-crash.test.ts.
describeOnPostgres('the key store needs a PostgreSQL server')('Idempotency-Key recovery points in the store', () => {
  let database: TestDatabase;
  let orm: MikroORM;
  let store: IdempotencyKeyStore;
  let organizationId: string;
  const actor: Actor = { kind: 'api-key', apiKeyId: 'key_recovery', prefix: 'nk_test_abcd' };
  const sealer = { seal: (plain: string) => `sealed:${plain}`, open: (sealed: string) => sealed.slice('sealed:'.length) };

  beforeAll(async () => {
    database = await createTestDatabase();
    orm = await openDatabase({ clientUrl: database.url });
    store = new IdempotencyKeyStore(orm, 24, sealer);
    organizationId = (await createOrganization(orm)).id;
  });
  afterAll(async () => {
    await orm?.close(true);
    await database?.drop();
  });

  const held = (result: ClaimResult): HeldKey => {
    if (result.kind !== 'claimed') throw new Error(`expected the key to be claimed, got ${result.kind}`);
    return result.claim;
  };
  const record = (claim: HeldKey, result: { id: string }) =>
    orm.em.fork().transactional((tx: EntityManager) => claim.record(tx, claim.nextStep(), result, actor));
  const endLease = (key: string) => orm.em.fork().getConnection().execute(`update idempotency_keys set locked_until = now() - interval '1 second' where key = ?`, [key]);

  test('a takeover after the lease keeps what committed, for the same request only', async () => {
    const key = randomUUID();
    const first = held(await store.claim(organizationId, key, 'a'.repeat(64)));
    expect(first.recorded(0)).toBeUndefined();
    expect(await record(first, { id: 'bk_1' })).toBe(true);
    expect(await store.claim(organizationId, key, 'a'.repeat(64))).toEqual({ kind: 'in-use' });
    await endLease(key);
    expect(await store.claim(organizationId, key, 'b'.repeat(64))).toEqual({ kind: 'reused' });
    const retry = held(await store.claim(organizationId, key, 'a'.repeat(64)));
    expect([retry.recorded(0), retry.recorded(1)]).toEqual([{ id: 'bk_1' }, undefined]);
    const [row] = await orm.em.fork().getConnection().execute<Array<{ actor: unknown }>>('select actor from idempotency_keys where key = ?', [key]);
    expect(row.actor).toEqual(actor);
  });

  test('the request that lost its key to a takeover cannot record: its transaction must roll back', async () => {
    const key = randomUUID();
    const slow = held(await store.claim(organizationId, key, 'a'.repeat(64)));
    await endLease(key);
    const taker = held(await store.claim(organizationId, key, 'a'.repeat(64)));
    expect(await record(slow, { id: 'bk_slow' })).toBe(false);
    expect(await record(taker, { id: 'bk_taker' })).toBe(true);
  });

  test('a release after a committed unit keeps the record: the retry takes it over at once and recovers', async () => {
    const key = randomUUID();
    const first = held(await store.claim(organizationId, key, 'a'.repeat(64)));
    await record(first, { id: 'bk_2' });
    await store.release(first); // e.g. a later step of the same request failed with a 5xx
    const retry = held(await store.claim(organizationId, key, 'a'.repeat(64)));
    expect(retry.recorded(0)).toEqual({ id: 'bk_2' });

    const other = randomUUID();
    await store.release(held(await store.claim(organizationId, other, 'a'.repeat(64))));
    const fresh = held(await store.claim(organizationId, other, 'b'.repeat(64))); // nothing committed: gone
    expect(fresh.recorded(0)).toBeUndefined();
  });
  // ---- Commands on a recovered retry ------------------------------------------------------------

  /** The scope a request with this claim hands its commands (what the request context does). */
  const scoped = (claim: HeldKey): UnitOfWorkScope => ({ em: orm.em.fork(), actor, idempotency: claim });
  /** A first attempt that committed its unit and died before its answer was stored; the retry after its lease. */
  async function recoveredRetry<T>(run: (scope: UnitOfWorkScope) => Promise<T>, between: () => Promise<unknown> = async () => undefined) {
    const key = randomUUID();
    const first = await run(scoped(held(await store.claim(organizationId, key, 'c'.repeat(64)))));
    await between();
    await endLease(key);
    const claim = held(await store.claim(organizationId, key, 'c'.repeat(64)));
    expect(claim.recorded(0)).toBeDefined();
    const again = await run(scoped(claim));
    return { first, again };
  }
  const runtime: WebhookRuntime = {
    secrets: new ServerSecrets('recovery-points-test-key', undefined).box('webhook-signing-secret'),
    allowPrivateNetworks: false,
    resolve: async () => [{ address: '93.184.215.14', family: 4 }],
    wake: () => undefined,
  };
  const deliveryStatus = async (messageId: string) =>
    (await orm.em.fork().getConnection().execute<Array<{ status: string }>>('select status from webhook_deliveries where message_id = ?', [messageId]))[0]
      .status;

  test('redeliverWebhookMessage: the retry answers the message as the requeue left it (PENDING) and does not requeue it again', async () => {
    const { endpoint } = await createWebhookEndpoint(systemScope(orm.em.fork()), organizationId, { url: 'https://hooks.example.com/in' }, runtime);
    const { id: messageId } = await sendTestWebhook(systemScope(orm.em.fork()), organizationId, endpoint.id, runtime);
    const setStatus = (status: WebhookMessageStatus) =>
      orm.em.fork().getConnection().execute('update webhook_deliveries set status = ?, locked_until = null where message_id = ?', [status, messageId]);
    await setStatus(WebhookMessageStatus.FAILED);

    const { first, again } = await recoveredRetry(
      (em) => redeliverWebhookMessage(em, organizationId, endpoint.id, messageId, runtime),
      // The worker delivers it between the crash and the retry.
      () => setStatus(WebhookMessageStatus.SUCCEEDED),
    );
    expect(first).toMatchObject({ id: messageId, status: WebhookMessageStatus.PENDING });
    expect(again).toEqual(first);
    expect(await deliveryStatus(messageId)).toBe(WebhookMessageStatus.SUCCEEDED);
  });

  const invitationHashes = async (memberId: string) =>
    (await orm.em.fork().getConnection().execute<Array<{ token_hash: string }>>('select token_hash from member_invitations where member_id = ?', [memberId])).map(
      (row) => row.token_hash,
    );
  const tokenOf = (path: string) => path.slice('/dashboard/#/invite/'.length);

  test('inviteMember: the retry shows the member and the link that committed; no second member, no new link', async () => {
    const email = `recovered-${randomUUID()}@example.com`;
    const { first, again } = await recoveredRetry((em) => inviteMember(em, organizationId, { email, name: 'Recovered' }, 'https://dash.example'));
    expect(again.path).toBe(first.path);
    expect(again.url).toBe(first.url);
    expect(again.expiresAt).toEqual(first.expiresAt);
    expect(again.member.id).toBe(first.member.id);
    expect(again.member.email).toBe(email);
    const [{ count }] = await orm.em.fork().getConnection().execute<Array<{ count: string }>>('select count(*) from members where email = ?', [email]);
    expect(Number(count)).toBe(1);
    expect(await invitationHashes(first.member.id)).toEqual([hashSecretToken(tokenOf(first.path))]);
  });

  test('issueInvitation (reinviteMember): the retry shows the link that committed, which is still the one that works', async () => {
    const email = `reinvited-${randomUUID()}@example.com`;
    const member = (await inviteMember(systemScope(orm.em.fork()), organizationId, { email, name: 'Reinvited' }, 'https://dash.example')).member;
    const { first, again } = await recoveredRetry((em) => issueInvitation(em, organizationId, member.id, 'https://dash.example'));
    expect(again.path).toBe(first.path);
    expect(again.member.id).toBe(member.id);
    expect(await invitationHashes(member.id)).toEqual([hashSecretToken(tokenOf(first.path))]);
  });
});
