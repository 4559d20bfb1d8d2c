import type { Browser, Page } from 'playwright-core';
import { addMember } from '../src/modules/member/commands/add-member';
import { OrganizationPlan } from '../src/modules/organization/organization.entity';
import { WEBHOOK_EVENT_TYPES } from '../src/modules/webhook/webhook-types';
import { runCliInProcess, within } from './helpers/admin-cli';
import { createMemberWithPassword } from './helpers/dashboard';
import { capture, goTo, launchChromium, newPage as openPage, signInThroughPage } from './helpers/dashboard-browser';
import { createApiKey, createOrganization, eventInput } from './helpers/factories';
import { startTestApp, type TestApp } from './helpers/test-app';
import { CREATE_ENDPOINT, verify, WEBHOOK_TEST_ENV, WebhookReceiver } from './helpers/webhook-receiver';
import { systemScope } from '../src/platform/db/unit-of-work-scope';

// One browser for the file, one page per person, reused across pages and widths (helpers/dashboard-browser.ts).
const PASSWORD = 'a long enough password';

jest.setTimeout(90_000);

let app: TestApp;
let browser: Browser;
let receiver: WebhookReceiver;
beforeAll(async () => {
  // A real receiver on loopback for the webhooks page (private networks allowed in this test app only).
  receiver = await new WebhookReceiver().listen();
  app = await startTestApp({ USAGE_FLUSH_MS: '3600000', ...WEBHOOK_TEST_ENV });
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await app?.close();
  await receiver?.close();
});

const newPage = () => openPage(browser);
const go = (page: Page, hash: string, heading: string) => goTo(page, app.url, hash, heading);

test('invite link → set password → sign in → create a key → it lists events over REST → revoke → 401 within a second; every page readable and accessible', async () => {
  const organization = await createOrganization(app.orm, { name: 'Acme Events', plan: OrganizationPlan.ENTERPRISE });
  const admin = await addMember(systemScope(app.orm.em.fork()), organization.id, { email: 'ada@example.com', name: 'Ada Admin', role: 'admin' });

  const invited = await runCliInProcess(app.databaseUrl, ['member', 'invite', admin.id]);
  expect(invited.code).toBe(0);
  expect(invited.json.url).toMatch(/^https:\/\/[^/]+\/dashboard\/#\/invite\/[A-Za-z0-9_-]{43}$/);
  const invitePath = new URL(invited.json.url).pathname + new URL(invited.json.url).hash;

  const { page, errors } = await newPage();
  await page.goto(`${app.url}${invitePath}`);
  await page.getByRole('heading', { name: 'Set your dashboard password' }).waitFor();
  await capture(page, 'invite');
  await page.getByLabel('New password').fill(PASSWORD);
  await page.getByLabel('Repeat the password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Set password' }).click();
  await page.getByText('Password set.').waitFor();
  expect(page.url()).not.toContain('invite');

  await capture(page, 'sign-in');
  await page.getByLabel('Email').fill('ada@example.com');
  await page.getByLabel('Password').fill('not the password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').getByText('The email or the password is wrong').waitFor();
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();

  const cookies = await page.context().cookies();
  expect(cookies.find((cookie) => cookie.name === '__Host-dashboard-session')).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Lax', path: '/' });

  // An API error is shown with its message.
  await page.getByRole('button', { name: 'Create API key' }).click();
  await page.getByLabel('Name').fill('Website');
  await page.getByLabel('Expires (optional, your local time)').fill('2001-01-01T10:00');
  await page.getByRole('button', { name: 'Create key' }).click();
  await page.getByRole('alert').getByText('expiresAt must be in the future').waitFor();

  await page.getByLabel('Expires (optional, your local time)').fill('');
  await page.getByLabel('events:write').check();
  await page.getByRole('button', { name: 'Create key' }).click();
  const secret = page.getByRole('textbox', { name: 'API key' });
  await secret.waitFor();
  const key = await secret.inputValue();
  expect(key).toMatch(/^nk_live_[A-Za-z0-9]{32}$/);
  await page.getByText('This is the only time the key is shown').waitFor();
  await page.getByRole('button', { name: 'Copy key' }).waitFor();
  await page.getByRole('cell', { name: 'Ada Admin' }).waitFor();
  await capture(page, 'keys');

  const created = await app.client.rest('POST', '/v1/events', key, eventInput({ title: 'Dashboard launch' }));
  expect(created.status).toBe(201);
  const listed = await app.client.rest('GET', '/v1/events', key);
  expect(listed.status).toBe(200);
  expect(listed.body.events.map((event: { title: string }) => event.title)).toEqual(['Dashboard launch']);

  await page.getByRole('button', { name: 'Revoke key Website' }).click();
  const dialog = page.getByRole('dialog', { name: 'Revoke Website?' });
  await dialog.waitFor();
  await dialog.getByRole('button', { name: 'Revoke key' }).click();
  await page.getByRole('status').getByText('Key Website revoked').waitFor();
  expect(await within(1_000, async () => (await app.client.rest('GET', '/v1/events', key)).status === 401, 10)).toBeDefined();
  expect((await app.client.rest('GET', '/v1/events', key)).body.error.code).toBe('INVALID_API_KEY');
  await page.getByText('REVOKED', { exact: true }).waitFor();

  await go(page, 'members', 'Members');
  await page.getByLabel('Email').fill('grace@example.com');
  await page.getByLabel('Name').fill('Grace Member');
  await page.getByRole('button', { name: 'Invite member' }).click();
  await page.getByRole('textbox', { name: 'Invitation link for Grace Member' }).waitFor();
  await capture(page, 'members');
  await page.getByRole('combobox', { name: 'Role of Grace Member' }).selectOption('ADMIN');
  await page.getByRole('dialog', { name: 'Make Grace Member an admin?' }).getByRole('button', { name: 'Make admin' }).click();
  await page.getByRole('status').getByText('Grace Member is now an admin').waitFor();

  await go(page, 'settings', 'Organization settings');
  await page.getByLabel('Default timezone of new events').selectOption('Europe/Paris');
  await page.getByLabel('Allowed IP addresses and CIDR ranges (one a line)').fill('127.0.0.1\n::1');
  // The booking windows (D20, D21): shown with their defaults, changed, stored, shown again.
  expect(await page.getByLabel('Hold length in minutes').inputValue()).toBe('15');
  expect(await page.getByLabel('Waiting-list offer length in minutes').inputValue()).toBe('60');
  await page.getByLabel('Hold length in minutes').fill('5');
  await page.getByLabel('Waiting-list offer length in minutes').fill('90');
  await page.getByRole('button', { name: 'Save settings' }).click();
  await page.getByRole('status').getByText('Settings saved').waitFor();
  const [windows] = await app.orm.em.fork().getConnection().execute('select hold_minutes, waitlist_offer_minutes from organizations where id = ?', [organization.id]);
  expect(windows).toEqual({ hold_minutes: 5, waitlist_offer_minutes: 90 });
  await page.getByLabel('Hold length in minutes').waitFor();
  expect(await page.getByLabel('Hold length in minutes').inputValue()).toBe('5');
  // Out of range: the browser holds the form back (min 1, max 1440) and nothing is sent.
  await page.getByLabel('Hold length in minutes').fill('1441');
  await page.getByRole('button', { name: 'Save settings' }).click();
  expect(await page.evaluate<boolean>("document.getElementById('settings-hold').validity.rangeOverflow")).toBe(true);
  const [unchanged] = await app.orm.em.fork().getConnection().execute('select hold_minutes from organizations where id = ?', [organization.id]);
  expect(unchanged).toEqual({ hold_minutes: 5 });
  await page.getByLabel('Hold length in minutes').fill('5');
  await capture(page, 'settings');

  // Webhooks: an endpoint on the local receiver, its secret shown once, a test message that arrives and
  // whose attempt the page shows, a redelivery, and a delete behind a confirmation.
  await go(page, 'webhooks', 'Webhooks');
  await page.getByText('No endpoints yet.').waitFor();
  await page.getByLabel('URL (https)').fill(receiver.url);
  await page.getByLabel('Description (optional)').fill('Local receiver');
  await page.getByLabel('event.created').check();
  await page.getByRole('button', { name: 'Add endpoint' }).click();
  const signingSecret = page.getByRole('textbox', { name: 'Signing secret' });
  await signingSecret.waitFor();
  const whsec = await signingSecret.inputValue();
  expect(whsec).toMatch(/^whsec_/);
  await page.getByText('This is the only time the signing secret is shown').waitFor();
  await page.getByRole('button', { name: 'Copy secret' }).waitFor();
  await page.getByRole('row').filter({ hasText: receiver.url }).getByText('Local receiver', { exact: true }).waitFor();
  await page.getByRole('button', { name: 'Send test to Local receiver' }).click();
  await page.getByRole('status').getByText('Test message queued').waitFor();
  const [arrived] = await receiver.waitFor((received) => received.some((message) => message.json.type === 'webhook.test'));
  expect(arrived.json.type).toBe('webhook.test');
  expect(() => verify(whsec, arrived)).not.toThrow();
  const attempts = page.getByRole('list', { name: `Attempts of message ${arrived.id}` });
  const shown = await within(15_000, async () => {
    await page.getByRole('button', { name: 'Refresh messages' }).click();
    await page.getByRole('heading', { level: 2, name: `Messages to ${receiver.url}` }).waitFor();
    // A redraw may replace the list between the two reads: try again then.
    return attempts.innerText({ timeout: 1_000 }).then((text) => /#1 .*: 200/.test(text), () => false);
  }, 200);
  expect(shown).toBeDefined();
  await page.getByRole('cell', { name: 'SUCCEEDED', exact: true }).waitFor();
  await capture(page, 'webhooks');
  await page.getByRole('button', { name: `Redeliver message ${arrived.id}` }).click();
  await page.getByRole('status').getByText(`Message ${arrived.id} sent again`).waitFor();
  await receiver.waitFor((received) => received.filter((message) => message.id === arrived.id).length >= 2);
  await page.getByRole('button', { name: 'Delete Local receiver' }).click();
  const deleteDialog = page.getByRole('dialog', { name: 'Delete Local receiver?' });
  await deleteDialog.getByRole('button', { name: 'Delete endpoint' }).click();
  await page.getByRole('status').getByText('Endpoint deleted').waitFor();
  await page.getByText('No endpoints yet.').waitFor();

  await app.service.usage.flush();
  await go(page, 'usage', 'Usage');
  // Two requests succeeded before the revocation (the polls after it were refused before any key counted).
  const [{ requests }] = await app.orm.em.fork().execute('select sum(requests)::int as requests from api_key_usage_daily');
  expect(requests).toBeGreaterThanOrEqual(2);
  await page.getByRole('img', { name: `Requests a day per key: ${requests} in 14 days, at most ${requests} a day` }).waitFor();
  await page.getByRole('img', { name: /Rate-limited requests a day: 0 in 14 days/ }).waitFor();
  await capture(page, 'usage');

  // Keyboard: the navigation is reachable with Tab from the top of the page.
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  expect(await page.evaluate('document.activeElement?.textContent')).toBe('API keys');

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in to the dashboard' }).waitFor();
  expect(errors).toEqual([]);
});

test('an admin demotes a member in the page; the MEMBER signs in and reads every page (keys and members listed, read only), with a note where they may not act', async () => {
  const organization = await createOrganization(app.orm, { name: 'Read Only Ltd', plan: OrganizationPlan.ENTERPRISE });
  const admin = await createMemberWithPassword(app.orm, organization.id, 'admin', PASSWORD);
  const member = await createMemberWithPassword(app.orm, organization.id, 'admin', PASSWORD);
  const { key: cliKey } = await createApiKey(app.orm, organization.id, { name: 'Box office', permissions: ['events:read', 'webhooks:write'] });
  const endpoint = await app.client.graphql(cliKey, CREATE_ENDPOINT, { input: { url: `${receiver.url}?member`, description: 'Read only hook' } });
  expect(endpoint.body.errors).toBeUndefined();

  // The admin demotes the member through the Members page.
  const adminView = await newPage();
  await signInAs(adminView.page, admin.email);
  await go(adminView.page, 'members', 'Members');
  await adminView.page.getByRole('combobox', { name: `Role of ${member.name}` }).selectOption('MEMBER');
  await adminView.page.getByRole('dialog', { name: `Make ${member.name} a member?` }).getByRole('button', { name: 'Make member' }).click();
  await adminView.page.getByRole('status').getByText(`${member.name} is now a member`).waitFor();
  expect(adminView.errors).toEqual([]);

  const { page, errors } = await newPage();
  const graphqlRequests: string[] = [];
  page.on('request', (request) => {
    if (request.url().endsWith('/graphql')) graphqlRequests.push(String(request.postDataJSON()?.query ?? '').split(/[\s({]/)[1] ?? '');
  });
  await signInAs(page, member.email);
  await page.getByText(`${member.name} · member`).waitFor();

  // API keys: the list (asked for: one ApiKeys request), without the create, rotate or revoke controls.
  await page.getByRole('cell', { name: 'Box office' }).waitFor();
  await page.getByText('only organization admins create, rotate or revoke them').waitFor();
  expect(graphqlRequests).toContain('ApiKeys');
  for (const name of ['Create API key', 'Rotate key Box office', 'Revoke key Box office']) {
    expect({ name, count: await page.getByRole('button', { name }).count() }).toEqual({ name, count: 0 });
  }
  expect(await page.getByRole('columnheader', { name: 'Actions' }).count()).toBe(0);
  await capture(page, 'member-keys');

  // Members: the list with roles as text, no invite, role change or removal.
  await go(page, 'members', 'Members');
  await page.getByRole('cell', { name: member.email }).waitFor();
  await page.getByRole('cell', { name: admin.email }).waitFor();
  await page.getByText('only organization admins invite members, change roles or remove members').waitFor();
  expect(await page.getByRole('button', { name: 'Invite member' }).count()).toBe(0);
  expect(await page.getByRole('combobox').count()).toBe(0);
  expect(await page.getByRole('button', { name: `Remove ${admin.name}` }).count()).toBe(0);
  await capture(page, 'member-members');

  // Webhooks read-only: the endpoint and its messages, no add, send, edit, disable, rotate or delete.
  await go(page, 'webhooks', 'Webhooks');
  await page.getByText('only organization admins add, change, test or delete endpoints').waitFor();
  await page.getByRole('button', { name: 'Messages of Read only hook' }).click();
  await page.getByText('No messages yet.').waitFor();
  for (const name of ['Add endpoint', 'Send test to Read only hook', 'Edit Read only hook', 'Disable Read only hook', 'Rotate secret of Read only hook', 'Delete Read only hook']) {
    expect({ name, count: await page.getByRole('button', { name }).count() }).toEqual({ name, count: 0 });
  }
  await capture(page, 'member-webhooks');

  await go(page, 'settings', 'Organization settings');
  await page.getByText('Only organization admins can change these settings.').waitFor();
  await page.getByText('15 minutes', { exact: true }).waitFor();
  await page.getByText('60 minutes', { exact: true }).waitFor();
  expect(await page.getByRole('button', { name: 'Save settings' }).count()).toBe(0);
  await capture(page, 'member-settings');

  await go(page, 'usage', 'Usage');
  await page.getByRole('img', { name: /Requests a day per key/ }).waitFor();
  await capture(page, 'member-usage');

  // The audit log (D26): admins only; the member is told so, and the page asks the server nothing.
  await go(page, 'audit', 'Audit log');
  await page.getByText('only admins can see the audit log').waitFor();
  expect(graphqlRequests.filter((name) => name.startsWith('Audit'))).toEqual([]);
  expect(await page.getByRole('table').count()).toBe(0);
  await capture(page, 'member-audit');

  // The page's own session, sent the page's way: the mutation is refused all the same.
  const answer = await page.evaluate(async () => {
    const session = (await (await fetch('/dashboard/api/session')).json()) as { csrfToken: string };
    const response = await fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrfToken },
      body: JSON.stringify({ query: 'mutation { createApiKey(input: {name: "sneaky", permissions: ["events:read"]}) { key } }' }),
    });
    return (await response.json()) as { data: unknown; errors: Array<{ extensions: unknown }> };
  });
  expect(answer.errors[0].extensions).toMatchObject({ code: 'FORBIDDEN', details: { requiredSession: 'ADMIN' } });
  expect(answer.data).toBeNull();
  expect(errors).toEqual([]);
});

const signInAs = (page: Page, email: string) => signInThroughPage(page, app.url, email, PASSWORD);

test('webhooks page: edit an endpoint (URL, description, types), see its messages arrive without reloading, disable and enable it', async () => {
  const organization = await createOrganization(app.orm, { name: 'Hooks Inc' });
  const admin = await createMemberWithPassword(app.orm, organization.id, 'admin', PASSWORD);
  const { key } = await createApiKey(app.orm, organization.id, { permissions: ['events:read', 'events:write', 'webhooks:write'] });
  const created = await app.client.graphql(key, CREATE_ENDPOINT, { input: { url: `${receiver.url}?before-edit`, description: 'Edit me', eventTypes: ['event.deleted'] } });
  expect(created.body.errors).toBeUndefined();
  const endpointId: string = created.body.data.createWebhookEndpoint.endpoint.id;
  const stored = async () =>
    (await app.orm.em.fork().execute(`select url, description, event_types, enabled from webhook_endpoints where id = ?`, [endpointId]))[0] as {
      url: string; description: string | null; event_types: string[]; enabled: boolean;
    };

  const { page, errors } = await newPage();
  await signInAs(page, admin.email);
  await go(page, 'webhooks', 'Webhooks');
  // Every message type the API knows is offered, the ticket types' among them.
  expect(WEBHOOK_EVENT_TYPES).toEqual(expect.arrayContaining(['ticket_type.created', 'ticket_type.updated', 'ticket_type.deleted']));
  for (const type of WEBHOOK_EVENT_TYPES) {
    await page.getByRole('form', { name: 'Add an endpoint' }).getByLabel(type, { exact: true }).waitFor();
  }

  // Edit: the form starts from the endpoint's values; a refused value shows the API's message and changes nothing.
  await page.getByRole('button', { name: 'Edit Edit me' }).click();
  const form = page.getByRole('form', { name: 'Edit Edit me' });
  await form.waitFor();
  expect(await form.getByLabel('Endpoint URL (https)').inputValue()).toBe(`${receiver.url}?before-edit`);
  expect(await form.getByLabel('event.deleted', { exact: true }).isChecked()).toBe(true);
  await capture(page, 'webhooks-edit');
  await form.getByLabel('Endpoint description (optional)').fill('x'.repeat(501));
  await form.getByRole('button', { name: 'Save endpoint' }).click();
  await page.getByRole('alert').getByText('description must be at most 500 characters').waitFor();
  expect((await stored()).description).toBe('Edit me');

  await form.getByLabel('Endpoint URL (https)').fill(`${receiver.url}?edited`);
  await form.getByLabel('Endpoint description (optional)').fill('Edited hook');
  await form.getByLabel('event.deleted', { exact: true }).uncheck();
  await form.getByLabel('event.created', { exact: true }).check();
  await form.getByLabel('ticket_type.created', { exact: true }).check();
  await form.getByRole('button', { name: 'Save endpoint' }).click();
  await page.getByRole('status').getByText('Endpoint saved').waitFor();
  const row = page.getByRole('row').filter({ hasText: `${receiver.url}?edited` });
  await row.getByText('Edited hook', { exact: true }).waitFor();
  await row.getByText('event.created, ticket_type.created').waitFor();
  expect(await page.getByRole('form', { name: /^Edit / }).count()).toBe(0);
  expect(await stored()).toEqual({ url: `${receiver.url}?edited`, description: 'Edited hook', event_types: ['event.created', 'ticket_type.created'], enabled: true });

  // Live messages: the list open, a change made elsewhere shows up with its attempt, the page not reloaded.
  await page.getByRole('button', { name: 'Messages of Edited hook' }).click();
  await page.getByText('No messages yet.').waitFor();
  await page.evaluate('window.notReloaded = true');
  const event = await app.client.rest('POST', '/v1/events', key, eventInput({ title: 'Live one' }));
  expect(event.status).toBe(201);
  await receiver.waitFor((received) => received.some((message) => message.path.endsWith('?edited') && message.json.data.slug === event.body.slug));
  await page.getByRole('cell', { name: 'event.created', exact: true }).waitFor({ timeout: 15_000 });
  await page.getByRole('list', { name: /^Attempts of message msg_/ }).getByText(/#1 .*: 200/).waitFor({ timeout: 15_000 });
  await page.getByRole('cell', { name: 'SUCCEEDED', exact: true }).waitFor({ timeout: 15_000 });
  expect(await page.evaluate('window.notReloaded')).toBe(true);

  // Disable: the state says so, nothing is queued for it; enable: sent again.
  await page.getByRole('button', { name: 'Disable Edited hook' }).click();
  await page.getByRole('status').getByText('Endpoint disabled').waitFor();
  await row.getByText('disabled', { exact: true }).waitFor();
  expect((await stored()).enabled).toBe(false);
  const countDeliveries = async () => (await app.orm.em.fork().execute(`select count(*)::int as n from webhook_deliveries where endpoint_id = ?`, [endpointId]))[0].n as number;
  const before = await countDeliveries();
  expect((await app.client.rest('POST', '/v1/events', key, eventInput({ title: 'While disabled' }))).status).toBe(201);
  expect(await countDeliveries()).toBe(before);
  await capture(page, 'webhooks-disabled');
  await page.getByRole('button', { name: 'Enable Edited hook' }).click();
  await page.getByRole('status').getByText('Endpoint enabled').waitFor();
  await row.getByText('enabled', { exact: true }).waitFor();
  expect((await stored()).enabled).toBe(true);
  const after = await app.client.rest('POST', '/v1/events', key, eventInput({ title: 'Enabled again' }));
  await receiver.waitFor((received) => received.some((message) => message.path.endsWith('?edited') && message.json.data.slug === after.body.slug));
  expect(errors).toEqual([]);
});

test('audit log page: an admin sees who changed what, filters by action, member or key and date, and pages through', async () => {
  const organization = await createOrganization(app.orm, { name: 'Audited Ltd' });
  const admin = await createMemberWithPassword(app.orm, organization.id, 'admin', PASSWORD);
  const { key } = await createApiKey(app.orm, organization.id, { name: 'Box office', permissions: ['events:read', 'events:write'] });
  const event = (await app.client.rest('POST', '/v1/events', key, eventInput())).body;
  expect((await app.client.rest('PUT', `/v1/events/${event.slug}`, key, { status: 'PUBLISHED' })).status).toBe(200);
  // Older entries, written as the log's writer would, to fill a second page.
  for (let index = 0; index < 30; index += 1) {
    await app.orm.em.fork().getConnection().execute(
      `insert into audit_log (id, organization_id, action, actor_kind, actor_id, actor_label, target_id, summary, created_at)
       values (?, ?, 'member.removed', 'CLI', null, 'cli', 'mem_old', '{"email":"old@example.com"}', now() - interval '3 days' - ?::int * interval '1 minute')`,
      [`aud_browser${String(index).padStart(9, '0')}`, organization.id, index],
    );
  }

  const { page, errors } = await newPage();
  await signInAs(page, admin.email);
  await go(page, 'audit', 'Audit log');
  const table = page.getByRole('region', { name: 'Audit log entries' });
  // The publication, by the key, with what changed.
  await table.getByRole('cell', { name: /DRAFT → PUBLISHED/ }).waitFor();
  await page.getByText(/Page 1 of 2 · 3\d entries/).waitFor();
  await capture(page, 'admin-audit');

  // Every control has its accessible name.
  for (const label of ['Action', 'Member or key', 'From (day, your local time)', 'To (day, included)']) await page.getByLabel(label, { exact: true }).waitFor();

  // By action.
  await page.getByLabel('Action', { exact: true }).selectOption('event.published');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await page.getByText('Page 1 of 1 · 1 entry').waitFor();
  await table.getByText('key nk_test_').waitFor();
  await table.getByText('Event published').waitFor();

  // By key: the key's entries only (its event's publication; it made nothing else).
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await page.getByText(/Page 1 of 2/).waitFor();
  await page.getByLabel('Member or key').selectOption({ label: await page.getByRole('option', { name: /^Box office/ }).innerText() });
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await page.getByText('Page 1 of 1 · 1 entry').waitFor();

  // By date: nothing from tomorrow on; the old entries three days ago.
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await page.getByText(/Page 1 of 2/).waitFor();
  const day = (offset: number) => {
    const date = new Date(Date.now() + offset * 86_400_000);
    return `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`;
  };
  await page.getByLabel('From (day, your local time)').fill(day(1));
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await page.getByText('No entries match these filters.').waitFor();
  await page.getByLabel('From (day, your local time)').fill(day(-5));
  await page.getByLabel('To (day, included)').fill(day(-2));
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await page.getByText('Page 1 of 2 · 30 entries').waitFor();
  await page.getByRole('button', { name: 'Next page' }).click();
  await page.getByText('Page 2 of 2 · 30 entries').waitFor();
  expect(await table.getByRole('row').count()).toBe(1 + 5);
  expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
  await capture(page, 'admin-audit-page-2');
  expect(errors).toEqual([]);
});

