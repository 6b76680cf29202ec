import type { H3Event } from 'h3';
import * as v from 'valibot';
import { badRequest } from '../../shared/errors.ts';
import { verifyWidgetClaims, widgetUnauthorized } from '../../domain/widget/widget-auth.ts';
import { verifyWidgetSession, type WidgetSession } from '../../domain/widget/widget-session.ts';
import type { AppContext } from '../context.ts';
import { validate } from '../request.ts';
import { widgetAuthClaims, widgetMember } from '../../schemas/widget.ts';

/** Headers are short; a header far beyond any real one is refused before it is decoded. */
const MAX_HEADER_LENGTH = 8192;

/** Decodes `X-Widget-Auth` (base64 of a JSON object); a header that is not that is a 401 saying so. */
function decodeHeader(header: string | null): Record<string, unknown> {
  if (header === null || header.trim() === '') {
    throw widgetUnauthorized('Missing X-Widget-Auth header: send base64 of {publicKey, externalId, timestamp, signature}.');
  }
  if (header.length > MAX_HEADER_LENGTH || !/^[A-Za-z0-9+/_-]+={0,2}$/.test(header.trim())) {
    throw widgetUnauthorized('X-Widget-Auth is not base64.');
  }
  let claims: unknown;
  try {
    claims = JSON.parse(Buffer.from(header.trim(), 'base64').toString('utf8'));
  } catch {
    throw widgetUnauthorized('X-Widget-Auth is not base64 of a JSON object.');
  }
  if (typeof claims !== 'object' || claims === null || Array.isArray(claims)) {
    throw widgetUnauthorized('X-Widget-Auth must decode to a JSON object.');
  }
  return claims as Record<string, unknown>;
}

/**
 * Authenticates a widget request: a session token (`Authorization: Bearer pcs_…`, from init) or a
 * signed X-Widget-Auth ticket (SPEC 5, widget API). A session wins when both come.
 */
export function requireWidgetSession(event: H3Event, ctx: AppContext): WidgetSession {
  const bearer = /^Bearer\s+(pcs_\S*)$/i.exec(event.req.headers.get('authorization') ?? '')?.[1];
  if (bearer !== undefined) return { ...verifyWidgetSession(ctx.db, ctx.box, bearer, ctx.clock()), member: {}, ticket: false };
  const claims = decodeHeader(event.req.headers.get('x-widget-auth'));
  const result = v.safeParse(widgetAuthClaims, claims);
  if (!result.success) {
    const issue = result.issues[0];
    const field = issue.path?.map((item) => String(item.key)).join('.') ?? 'header';
    throw widgetUnauthorized(`X-Widget-Auth "${field}" ${issue.received === 'undefined' ? 'is required' : issue.message}.`);
  }
  // An object is what pages sent before profile fields were signed: the visitor can change it, so it is ignored.
  const signedMember = typeof result.output.member === 'string' ? result.output.member : undefined;
  const identity = verifyWidgetClaims(ctx.db, ctx.box, { ...result.output, member: signedMember }, ctx.clock());
  if (signedMember === undefined) return { ...identity, member: {}, ticket: true };
  // Profile data is checked only once the signature holds, so a stranger learns nothing from a 400.
  let parsed: unknown;
  try {
    parsed = JSON.parse(signedMember);
  } catch {
    throw badRequest('X-Widget-Auth "member" must be JSON text of the profile fields, e.g. {"name":"Ada","email":"ada@example.com"}.');
  }
  const { member } = validate(widgetMember, { member: parsed });
  return { ...identity, member, ticket: true };
}
