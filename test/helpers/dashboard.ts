import type { MikroORM } from '@mikro-orm/postgresql';
import { randomBytes } from 'node:crypto';
import { acceptInvitation } from '../../src/modules/member/commands/accept-invitation';
import { addMember } from '../../src/modules/member/commands/add-member';
import { issueInvitation } from '../../src/modules/member/commands/issue-invitation';
import type { HttpResponse, HttpsClient } from './https-client';
import { systemScope } from '../../src/platform/db/unit-of-work-scope';

export const PASSWORD = 'correct horse battery staple';

/** A member with a password set through a one-time invitation, as `member invite` makes it. */
export async function createMemberWithPassword(orm: MikroORM, organizationId: string, role: 'admin' | 'member', password = PASSWORD) {
  const email = `${role}-${randomBytes(4).toString('hex')}@example.com`;
  const member = await addMember(systemScope(orm.em.fork()), organizationId, { email, name: `${role} ${email.slice(0, 12)}`, role });
  const invitation = await issueInvitation(systemScope(orm.em.fork()), organizationId, member.id, 'https://localhost');
  await acceptInvitation(systemScope(orm.em.fork()), invitation.path.split('/').pop(), password);
  return { id: member.id, email, name: member.name, password };
}

export interface SignedIn {
  readonly cookie: string;
  readonly csrfToken: string;
  readonly setCookie: string;
}

export async function signIn(client: HttpsClient, email: string, password = PASSWORD): Promise<SignedIn> {
  const response = await client.request('POST', '/dashboard/api/sign-in', { headers: { 'x-csrf-token': 'sign-in' }, json: { email, password } });
  if (response.status !== 200) throw new Error(`sign-in answered ${response.status}: ${response.text}`);
  const setCookie = String(response.headers['set-cookie']);
  return { cookie: setCookie.split(';')[0], csrfToken: response.body.csrfToken, setCookie };
}

/** GraphQL with a dashboard session, as the page sends it (same origin, anti-forgery header). */
export function sessionGraphql<T = any>(client: HttpsClient, session: SignedIn, query: string, variables?: Record<string, unknown>): Promise<HttpResponse<T>> {
  return client.request<T>('POST', '/graphql', {
    headers: { cookie: session.cookie, 'x-csrf-token': session.csrfToken, origin: client.baseUrl },
    json: { query, variables },
  });
}
