import { existsSync } from 'node:fs';
import path from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import express, { Router, type Request, type RequestHandler } from 'express';
import { AppError } from '../../foundation/errors/app-error';
import { jsonBody } from '../../platform/web/json-body';
import { acceptInvitation } from '../../modules/member/commands/accept-invitation';
import { systemScope } from '../../platform/db/unit-of-work-scope';
import { signIn } from '../../modules/member/commands/sign-in';
import { signOut } from '../../modules/member/commands/sign-out';
import { findMember } from '../../modules/member/member.repository';
import { IpAllowlist } from '../../modules/organization/ip-allowlist';
import { findOrganization } from '../../modules/organization/organization.repository';
import { assertSameOrigin, clearedSessionCookie, sessionCookie, sessionCookieOf } from './cross-site';
import type { DashboardSettings } from '../../foundation/dashboard-settings';
import { findSession } from './dashboard-session';

/** Where `npm run build` puts the bundled pages (the same place from src/ under jest and from dist/). */
export const DASHBOARD_ASSETS = path.resolve(__dirname, '../../../dist/doors/dashboard/public');

// The pages load nothing from elsewhere and are never framed.
const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

const securityHeaders: RequestHandler = (_req, res, next) => {
  res.set(SECURITY_HEADERS);
  next();
};

const clientIpOf = (req: Request) => IpAllowlist.clientAddress(req.ip) ?? 'unknown';

/** The dashboard's pages and its few JSON endpoints (sign-in, sign-out, invitations); data goes through /graphql. */
export function createDashboardRouter(orm: MikroORM, settings: DashboardSettings): Router {
  const router = Router();
  router.use('/dashboard', (_req, res, next) => {
    res.locals.route = '/dashboard';
    next();
  });

  router.get('/dashboard', securityHeaders, (req, res, next) => {
    if (req.path !== '/dashboard') return next();
    res.redirect(301, '/dashboard/');
  });
  router.get('/dashboard/', securityHeaders, (_req, res) => {
    const index = path.join(DASHBOARD_ASSETS, 'index.html');
    if (!existsSync(index)) throw new AppError('NOT_FOUND', 'The dashboard is not built: run npm run build');
    res.sendFile(index);
  });
  router.use('/dashboard/assets', securityHeaders, express.static(path.join(DASHBOARD_ASSETS, 'assets'), { fallthrough: true, index: false }));

  const api = Router();
  api.use(securityHeaders);
  api.get('/session', async (req, res) => {
    const session = await findSession(orm.em.fork(), settings, sessionCookieOf(req));
    if (!session) throw new AppError('UNAUTHORIZED', 'Not signed in');
    const em = orm.em.fork();
    const member = await findMember(em, session.auth.organization.id, session.memberId);
    const organization = await findOrganization(em, session.auth.organization.id);
    res.json({
      member: { id: member.id, email: member.email, name: member.name, role: member.role },
      organization: { id: organization.id, name: organization.name, plan: organization.plan },
      permissions: session.auth.permissions,
      csrfToken: session.csrfToken,
    });
  });
  api.post('/sign-in', jsonBody, async (req, res) => {
    assertSameOrigin(req);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const { sessionId, csrfToken } = await signIn(orm.em.fork(), settings, { email: body.email, password: body.password, clientIp: clientIpOf(req) });
    res.setHeader('Set-Cookie', sessionCookie(sessionId, settings.absoluteLifetimeMs));
    res.json({ csrfToken });
  });
  api.post('/sign-out', async (req, res) => {
    const cookie = sessionCookieOf(req);
    const session = await findSession(orm.em.fork(), settings, cookie);
    if (session) {
      assertSameOrigin(req, session.csrfToken);
      await signOut(orm.em.fork(), cookie);
    }
    res.setHeader('Set-Cookie', clearedSessionCookie());
    res.status(204).end();
  });
  api.post('/invitations/accept', jsonBody, async (req, res) => {
    assertSameOrigin(req);
    const body = (req.body ?? {}) as Record<string, unknown>;
    await acceptInvitation(systemScope(orm.em.fork()), body.token, body.password);
    res.status(204).end();
  });
  router.use('/dashboard/api', api);
  return router;
}
