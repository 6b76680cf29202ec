import { getCookie, type H3Event } from 'h3';
import { AppError, badRequest } from '../../shared/errors.ts';
import { deviceFor, issueDevice } from '../../domain/operators/devices.ts';
import { inviteView, openInvite } from '../../domain/operators/invites.ts';
import { acceptInvite, findOperatorByEmail, recordSignIn, requireOperator, setOperatorName, setPassword } from '../../domain/operators/operators.ts';
import { hashPassword, verifyPassword } from '../../domain/operators/passwords.ts';
import { endSession, endSessionRow, listSessions, startSession } from '../../domain/operators/sessions.ts';
import { beginTotp, confirmTotp, disableTotp, totpAccepts } from '../../domain/operators/totp.ts';
import { emptyBody } from '../../schemas/common.ts';
import { inviteAcceptBody, meBody, signInBody, totpCodeBody } from '../../schemas/admin.ts';
import * as answers from '../../schemas/answers/admin.ts';
import type { AppContext } from '../context.ts';
import {
  adminSettings, clearSessionCookie, deviceCookieName, sessionAnswer, setDeviceCookie, setSessionCookie, signInLimits, type AccountApi, type SignedIn,
} from './api.ts';
import { SignInLimits } from './sign-in-limits.ts';

// Signing in and out, sessions, invites' links and the operator's own account (docs/admin.md).

const wrongCredentials = () => new AppError(401, 'Unauthorized', 'Wrong email or password.');
const codeNeeded = (message: string) => new AppError(401, 'Unauthorized', message, {}, { totpRequired: true });

/** Signed in: the account routes that are not `anonymous` always have one. */
const signedIn = (me: SignedIn | undefined): SignedIn => me!;

/** What a route learned before its transaction (a password checked or hashed off the event loop), for its handler. */
const before = (event: H3Event) => event.context as { operatorId?: string; passwordHash?: string; knownDevice?: boolean };

/** Starts a session in the handler's transaction, with a device cookie for a browser that had none for the account. */
function signIn(ctx: AppContext, event: H3Event, operatorId: string, now: Date, knownDevice: boolean) {
  const { token } = startSession(ctx.db, operatorId, { userAgent: event.req.headers.get('user-agent'), address: ctx.guard.clientAddress(event) }, now);
  recordSignIn(ctx.db, operatorId, now);
  if (!knownDevice) setDeviceCookie(event, ctx, issueDevice(ctx.db, operatorId, now));
  setSessionCookie(event, ctx, token);
  return sessionAnswer(ctx, operatorId, token);
}

export function accountRoutes({ route, ctx }: AccountApi): void {
  const limits = signInLimits(ctx);
  const cost = () => adminSettings(ctx).passwordCost;
  const reauth = (me: SignedIn): [['reauth', string]] => [['reauth', me.operator.id]];

  route('POST', '/session', {
    anonymous: true, body: signInBody, write: true, responses: { 200: answers.session },
    // The password is checked before the transaction (scrypt runs on libuv's pool), under the sign-in limits.
    around: ({ body, event }, run) => {
      const device = deviceFor(ctx.db, getCookie(event, deviceCookieName(ctx)), body.email);
      const keys = SignInLimits.keysOf(device !== undefined ? { device } : { account: body.email, address: ctx.guard.clientAddress(event) });
      return limits.attempt(keys, async () => {
        const operator = findOperatorByEmail(ctx.db, body.email);
        if (!(await verifyPassword(body.password, operator?.password_hash ?? null, cost())) || !operator) throw wrongCredentials();
        if (operator.totp_secret !== null && body.totpCode === undefined) throw codeNeeded('Enter the 6-digit code of your authenticator app.');
        Object.assign(before(event), { operatorId: operator.id, knownDevice: device !== undefined });
        return run();
      }, (error) => error.status === 401 && !(error.details.totpRequired === true && body.totpCode === undefined));
    },
  }, ({ event, body, now }) => {
    const { operatorId, knownDevice } = before(event);
    const operator = requireOperator(ctx.db, operatorId!);
    if (operator.totp_secret !== null && !totpAccepts(ctx.db, ctx.box, operator, body.totpCode ?? '', now)) {
      throw codeNeeded('That code is not right (or was used already); enter the newest code of your authenticator app.');
    }
    return signIn(ctx, event, operator.id, now, knownDevice === true);
  });

  route('GET', '/session', { responses: { 200: answers.session } }, ({ me }) => sessionAnswer(ctx, signedIn(me).operator.id, signedIn(me).token));

  route('DELETE', '/session', { body: emptyBody, optionalBody: true, write: true, responses: { 200: answers.signedOut } }, ({ me, event }) => {
    endSessionRow(ctx.db, signedIn(me).session.rowId);
    clearSessionCookie(event, ctx);
    return { success: true };
  });

  route('GET', '/sessions', { responses: { 200: answers.sessions } }, ({ me, now }) => ({
    sessions: listSessions(ctx.db, signedIn(me).operator.id, now).map((session) => ({ ...session, current: session.id === signedIn(me).session.id })),
  }));

  route('DELETE', '/sessions/:id', { body: emptyBody, optionalBody: true, write: true, responses: { 200: answers.signedOut } }, ({ me, param, event }) => {
    endSession(ctx.db, signedIn(me).operator.id, param('id'));
    if (param('id') === signedIn(me).session.id) clearSessionCookie(event, ctx);
    return { success: true };
  });

  route('GET', '/invites/:token', { anonymous: true, responses: { 200: answers.invite } }, ({ param, now }) => inviteView(openInvite(ctx.db, param('token'), now)));

  route('POST', '/invites/:token', {
    anonymous: true, body: inviteAcceptBody, write: true, responses: { 200: answers.session },
    async around({ param, body, event, now }, run) {
      openInvite(ctx.db, param('token'), now); // a dead link is refused before any hashing
      before(event).passwordHash = await hashPassword(body.password, cost());
      return run();
    },
  }, ({ param, body, event, now }) =>
    signIn(ctx, event, acceptInvite(ctx.db, param('token'), before(event).passwordHash!, body.name, now).id, now, false));

  route('PATCH', '/me', {
    body: meBody, write: true, responses: { 200: answers.session },
    around: ({ me, body, event }, run) => limits.attempt(reauth(signedIn(me)), async () => {
      if (body.newPassword !== undefined) {
        if (!(await verifyPassword(body.currentPassword ?? '', signedIn(me).operator.password_hash, cost()))) throw badRequest('"currentPassword" is not your password.');
        before(event).passwordHash = await hashPassword(body.newPassword, cost());
      }
      return run();
    }, (error) => error.status === 400 && error.message.startsWith('"currentPassword"')),
  }, ({ me, body, event, now }) => {
    const { operator, session, token } = signedIn(me);
    if (body.name !== undefined) setOperatorName(ctx.db, operator.id, body.name);
    // A new password ends every other session and device of the operator; this browser stays signed in.
    if (before(event).passwordHash !== undefined) setPassword(ctx.db, operator.id, before(event).passwordHash!, now, session.rowId);
    return sessionAnswer(ctx, operator.id, token);
  });

  route('POST', '/me/totp', { body: emptyBody, optionalBody: true, write: true, responses: { 200: answers.totpStarted } }, ({ me }) =>
    beginTotp(ctx.db, ctx.box, requireOperator(ctx.db, signedIn(me).operator.id)));

  const codeChecked = ({ me }: { me?: SignedIn }, run: () => Promise<unknown>) => limits.attempt(reauth(signedIn(me)), run, (error) => error.status === 400);

  route('POST', '/me/totp/confirm', { body: totpCodeBody, write: true, around: codeChecked, responses: { 200: answers.totpState } }, ({ me, body, now }) => {
    confirmTotp(ctx.db, ctx.box, requireOperator(ctx.db, signedIn(me).operator.id), body.code, now);
    return { totpEnabled: true };
  });

  route('DELETE', '/me/totp', { body: totpCodeBody, write: true, around: codeChecked, responses: { 200: answers.totpState } }, ({ me, body, now }) => {
    disableTotp(ctx.db, ctx.box, requireOperator(ctx.db, signedIn(me).operator.id), body.code, now);
    return { totpEnabled: false };
  });
}
