import { deleteCookie, getCookie, setCookie, type H3Event } from 'h3';
import { AppError, forbidden, notFound } from '../../shared/errors.ts';
import { constantTimeEqual } from '../../shared/secrets.ts';
import { DEFAULT_SCRYPT } from '../../domain/operators/passwords.ts';
import { operatorActor, operatorProjects, operatorView, requireOperator, roleIn, type OperatorRow } from '../../domain/operators/operators.ts';
import { requireRole, type Role } from '../../domain/operators/roles.ts';
import { csrfTokenFor, SESSION_MAX_MS, sessionByToken, sessionNeedsTouch, touchSession, type ActiveSession } from '../../domain/operators/sessions.ts';
import { getSettings } from '../../domain/project/settings.ts';
import type { AdminSettings, AppContext } from '../context.ts';
import { refuseUnservedMethods, type Api, type MountedRoute, type Surface } from '../route.ts';
import { pathParam } from '../request.ts';
import { SignInLimits } from './sign-in-limits.ts';

export const ADMIN_BASE = '/api/admin';

/** A signed-in operator: their row, the session their cookie names, and that cookie's token. */
export interface SignedIn {
  operator: OperatorRow;
  session: ActiveSession;
  token: string;
}

/** The account surface's caller: signed in, except on the routes that sign in (`anonymous`). */
export interface AccountCaller {
  me?: SignedIn;
}

export interface AccountRouteOptions {
  /** Open without a session (signing in, an invite's link); a change still needs the server's own Origin. */
  anonymous?: true;
}

export type AccountApi = Api<AccountCaller, AccountRouteOptions>;

/** A project route's caller: signed in, with their role in the path's project. */
export interface ProjectCaller extends SignedIn {
  projectId: string;
  role: Role;
}

export interface ProjectRouteOptions {
  /** The role a route needs: viewer by default for reads, owner for changes unless it says staff. */
  role?: Role;
}

export type ProjectApi = Api<ProjectCaller, ProjectRouteOptions>;

const DEFAULT_ADMIN: Omit<AdminSettings, 'backupDir' | 'databasePath'> = { enabled: true, passwordCost: DEFAULT_SCRYPT, botRunning: () => false };

/** The admin's settings of this server, defaults filled in. */
export const adminSettings = (ctx: AppContext): AdminSettings => ({ backupDir: 'backups', databasePath: 'punchcard.db', ...DEFAULT_ADMIN, ...ctx.admin });

const limiters = new WeakMap<AppContext, SignInLimits>();

/** The server's sign-in limits (in memory, one set per server). */
export function signInLimits(ctx: AppContext): SignInLimits {
  let limits = limiters.get(ctx);
  if (!limits) {
    limits = new SignInLimits(() => ctx.clock());
    limiters.set(ctx, limits);
  }
  return limits;
}

const secure = (ctx: AppContext) => ctx.publicUrl().startsWith('https:');

/**
 * The session cookie: `__Host-` (Secure, Path=/, no Domain: only this origin can set or read it)
 * when the server's public URL is https; plain http is for localhost development, where a
 * `__Host-` cookie (which needs Secure) would not be kept.
 */
export const sessionCookieName = (ctx: AppContext) => (secure(ctx) ? '__Host-punchcard_admin' : 'punchcard_admin');
/** The device cookie: which browser proved an account's password before (sign-in-limits.ts). */
export const deviceCookieName = (ctx: AppContext) => (secure(ctx) ? '__Host-punchcard_device' : 'punchcard_device');

const DEVICE_COOKIE_MAX_AGE_S = 365 * 24 * 60 * 60;

const cookieOptions = (ctx: AppContext, maxAge: number) => ({ httpOnly: true, sameSite: 'strict' as const, path: '/', secure: secure(ctx), maxAge });

export function setSessionCookie(event: H3Event, ctx: AppContext, token: string): void {
  setCookie(event, sessionCookieName(ctx), token, cookieOptions(ctx, SESSION_MAX_MS / 1000));
}

export function clearSessionCookie(event: H3Event, ctx: AppContext): void {
  deleteCookie(event, sessionCookieName(ctx), cookieOptions(ctx, 0));
}

export function setDeviceCookie(event: H3Event, ctx: AppContext, token: string): void {
  setCookie(event, deviceCookieName(ctx), token, cookieOptions(ctx, DEVICE_COOKIE_MAX_AGE_S));
}

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/;
const portOf = (url: URL) => url.port || (url.protocol === 'https:' ? '443' : '80');

/**
 * A change must come from the admin's own pages: the request's Origin equal to the server's public
 * URL's, or, when that URL is a loopback one (development), any loopback origin of the same scheme
 * and port (localhost and 127.0.0.1 are the same server there). Holds even where SameSite does not.
 */
function checkOrigin(event: H3Event, ctx: AppContext): void {
  const origin = event.req.headers.get('origin');
  if (origin === null) throw forbidden('A change to the admin must come from its own pages: the request has no Origin header.');
  const own = new URL(ctx.publicUrl());
  let given: URL | null = null;
  try {
    given = new URL(origin);
  } catch {
    // not a URL ("null" from a sandboxed frame): refused below
  }
  const same = given !== null && given.origin === own.origin;
  const loopback = given !== null && LOOPBACK.test(own.hostname) && LOOPBACK.test(given.hostname) && given.protocol === own.protocol && portOf(given) === portOf(own);
  if (!same && !loopback) throw forbidden(`A change to the admin must come from its own pages (${own.origin}), not from ${origin}.`);
}

/** Every change carries the session's CSRF token in X-CSRF-Token (the Session answer's `csrfToken`). */
function checkCsrf(event: H3Event, token: string): void {
  const given = event.req.headers.get('x-csrf-token');
  if (given === null) throw forbidden('The X-CSRF-Token header is missing: send the csrfToken of GET /api/admin/session with every change.');
  if (!constantTimeEqual(given, csrfTokenFor(token))) throw forbidden('The X-CSRF-Token header does not match this session; read GET /api/admin/session again.');
}

const signedOut = () => new AppError(401, 'Unauthorized', 'You are not signed in, or your session ended; sign in again.');

/** The session the cookie names and its operator, or 401; the session's last use is recorded (at most once a minute). */
async function authenticate(event: H3Event, ctx: AppContext): Promise<SignedIn> {
  const token = getCookie(event, sessionCookieName(ctx));
  const now = ctx.clock();
  const session = sessionByToken(ctx.db, token, now);
  if (!session || token === undefined) throw signedOut();
  if (sessionNeedsTouch(session, now)) {
    await ctx.write(() => touchSession(ctx.db, session.rowId, now));
    session.lastSeenAt = now.toISOString();
  }
  return { operator: requireOperator(ctx.db, session.operatorId), session, token };
}

/** The answer of every route that signs in or reads the session (`Session` in docs/admin.md). */
export function sessionAnswer(ctx: AppContext, operatorId: string, token: string) {
  return { operator: operatorView(requireOperator(ctx.db, operatorId)), csrfToken: csrfTokenFor(token), projects: operatorProjects(ctx.db, operatorId) };
}

/**
 * /api/admin without a project: signing in and out, the operator's sessions, invites, their own
 * account and second factor. Idempotency-Keys are accepted and not kept: these writes are safe to
 * repeat or answer a secret (docs/admin.md).
 */
export function adminAccountSurface(ctx: AppContext): Surface<AccountCaller, AccountRouteOptions> {
  return {
    name: 'admin account',
    base: ADMIN_BASE,
    // Cache-Control: no-store, errors included, as on every answer that does not allow caching (security-headers.ts).
    async serve(event, route, next) {
      if (route.method !== 'GET') checkOrigin(event, ctx);
      if (route.anonymous) return next({});
      const me = await authenticate(event, ctx);
      if (route.method !== 'GET') checkCsrf(event, me.token);
      return next({ me });
    },
    keyScope: () => ({ projectId: '', keys: false }),
    // The operator's own account (password, second factor, sessions): server-wide entries, in no project's log.
    auditActor: ({ me }) => me && operatorActor(me.operator),
    finish: refuseUnservedMethods,
  };
}

/** How the audit log names an operator: their id and email. */

const ownerTotpMissing = () => forbidden('This project requires its owners to sign in with a second factor: turn on two-factor sign-in for your account '
  + '(POST /api/admin/me/totp, then confirm a code) to act on it.');

/**
 * /api/admin/projects/:projectId: signed in, with a role in the project (else 404, as for a project
 * that does not exist), the role the route needs (else 403 naming it), and a second factor for
 * owners where the project asks for one. Changes carry the CSRF token and the server's Origin, are
 * idempotent per operator, and are written to the audit log.
 */
export function adminProjectSurface(ctx: AppContext): Surface<ProjectCaller, ProjectRouteOptions> {
  return {
    name: 'admin',
    base: `${ADMIN_BASE}/projects/:projectId`,
    secretsOnce: true,
    async serve(event, route, next) {
      const changes = route.method !== 'GET';
      if (changes) checkOrigin(event, ctx);
      const me = await authenticate(event, ctx);
      if (changes) checkCsrf(event, me.token);
      const projectId = pathParam(event, 'projectId');
      const role = roleIn(ctx.db, me.operator.id, projectId);
      if (role === undefined) throw notFound(`No project with id "${projectId}"`);
      if (role === 'owner' && me.operator.totp_secret === null && getSettings(ctx.db, projectId).admin.ownerTotpRequired) throw ownerTotpMissing();
      requireRole(role, routeRole(route));
      return next({ ...me, projectId, role });
    },
    keyScope: ({ projectId, operator }) => ({ projectId, namespace: `admin ${operator.id}` }),
    auditActor: ({ operator }) => operatorActor(operator),
    finish: refuseUnservedMethods,
  };
}

/** The role a route needs. */
const routeRole = (route: MountedRoute & ProjectRouteOptions): Role => route.role ?? (route.method === 'GET' ? 'viewer' : 'owner');

/** A route of the admin's surfaces (left out of the public OpenAPI document). */
export const isAdminRoute = (route: MountedRoute) => route.path === ADMIN_BASE || route.path.startsWith(`${ADMIN_BASE}/`);
