import { getCookie, type H3Event } from 'h3';
import { linkCommunityAccount, spendLinkState } from '../../domain/community/links.ts';
import { communitySettings, oauthClient } from '../../domain/community/settings.ts';
import { originNotAllowed, widgetProjectConfig } from '../../domain/widget/widget-config.ts';
import { discordAuthorizeUrl, discordUrls, fetchLinkedUser, openLinkState, sealLinkState, LINK_STATE_TTL_MS, type LinkState } from '../../integrations/community/discord-oauth.ts';
import { communityAuthAnswer, communityAuthCallbackQuery, communityAuthStartQuery } from '../../schemas/community.ts';
import { AppError, badRequest } from '../../shared/errors.ts';
import { constantTimeEqual } from '../../shared/secrets.ts';
import type { AppContext } from '../context.ts';
import { pageOriginAllowed } from '../widget/api.ts';
import type { LinkApi } from './api.ts';
import { FAVICON_LINK } from '../favicon.ts';

export const CALLBACK_PATH = '/api/community/auth/callback';
const START_PATH = '/api/community/auth/start';
const LINKED_PATH = '/api/community/auth/linked';

/** Where Discord sends the browser back: this server's public URL (register it in the Discord application). */
export const redirectUri = (ctx: AppContext) => `${ctx.publicUrl()}${CALLBACK_PATH}`;

/**
 * Where linking starts for a member: a URL of this server, to be opened by a form POST from the
 * shop's page (the widget's button does). One function for /api/community/auth and the widget's link.
 */
export function authorizeUrl(ctx: AppContext, projectId: string, externalId: string, now: Date): { url: string; expiresAt: string } {
  oauthClient(ctx.box, communitySettings(ctx.db, projectId)); // 400 until the project set its OAuth client
  const { state, expiresAt } = sealLinkState(ctx.box, { projectId, externalId }, now);
  return { url: `${ctx.publicUrl()}${START_PATH}?${new URLSearchParams({ state })}`, expiresAt };
}

/**
 * The cookie that binds a link to the browser that started it. `__Host-` (Secure, Path=/, no
 * Domain: no other site or subdomain can set or read it) when the public URL is https; a browser
 * refuses a Secure cookie from a plain-http address, so a server on http (development on
 * localhost) uses a plain name.
 */
function linkCookie(ctx: AppContext): { name: string; attributes: string } {
  return ctx.publicUrl().startsWith('https:')
    ? { name: '__Host-punchcard_link', attributes: 'Path=/; Secure; HttpOnly; SameSite=Lax' }
    : { name: 'punchcard_link', attributes: 'Path=/api/community/auth; HttpOnly; SameSite=Lax' };
}

/**
 * A link starts only from a page the project allows (a form POST carries its page's Origin, which
 * no other site can forge): an attacker's page cannot set its link's cookie in a victim's browser.
 */
function requireLinkOrigin(ctx: AppContext, event: H3Event, link: LinkState): void {
  const origin = event.req.headers.get('origin');
  if (origin === null || origin === 'null') {
    throw new AppError(403, 'origin_not_allowed', 'Linking starts from the shop\'s page, with the widget\'s "Link your Discord" button (a form POST, which names its page); this request named none.');
  }
  if (!pageOriginAllowed(event, origin, widgetProjectConfig(ctx.db, link.projectId).widgetSettings.allowedOrigins)) throw originNotAllowed(origin, link.projectId);
}

/** 400 unless the callback comes from the browser that started the link (its cookie holds the state's nonce). */
function requireSameBrowser(ctx: AppContext, event: H3Event, link: LinkState): void {
  const cookie = getCookie(event, linkCookie(ctx).name);
  if (cookie === undefined || !constantTimeEqual(cookie, link.nonce)) {
    throw badRequest('This link was not started in this browser: start linking again from the widget, in the browser you use for the shop.');
  }
}

const LINKED_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">${FAVICON_LINK}
<title>Discord linked</title><style>body{font-family:system-ui,sans-serif;max-width:480px;margin:64px auto;padding:24px;text-align:center;color:#1f2937}</style>
</head><body><h1>Your Discord account is linked</h1><p>Your activity in the community now earns points. You can close this window.</p></body></html>`;

/**
 * Account linking (OAuth2 code flow with PKCE, scope identify): the start URL for a signed-in
 * member; the start, posted from an allowed page, which gives the browser the link's cookie and
 * sends it to Discord; the callback, which checks the state and the cookie, spends the state, asks
 * Discord who logged in and links the accounts (paying the link bonus once); and the page the
 * browser lands on.
 */
export function communityAuthRoutes({ route, ctx }: LinkApi): void {
  route('GET', '/auth', { responses: { 200: communityAuthAnswer } }, ({ session, now }) => {
    if (!session) throw badRequest('Sign in first.');
    return authorizeUrl(ctx, session.projectId, session.externalId, now);
  });

  // The widget's button posts here from the shop's page: the browser gets the link's cookie and goes on to Discord.
  route('POST', '/auth/start', {
    query: communityAuthStartQuery, public: true,
    responses: { 303: { description: 'The browser goes on to Discord\'s consent page, with the cookie that binds the link to it.' } },
  }, ({ event, query, now }) => {
    const link = openLinkState(ctx.box, query.state, now);
    requireLinkOrigin(ctx, event, link);
    const client = oauthClient(ctx.box, communitySettings(ctx.db, link.projectId));
    const cookie = linkCookie(ctx);
    const maxAge = Math.ceil(Math.min(link.expiresAt - now.getTime(), LINK_STATE_TTL_MS) / 1000);
    return new Response(null, {
      status: 303,
      headers: {
        location: discordAuthorizeUrl(discordUrls(), link, query.state, { clientId: client.id, redirectUri: redirectUri(ctx) }),
        'set-cookie': `${cookie.name}=${link.nonce}; Max-Age=${maxAge}; ${cookie.attributes}`,
        'cache-control': 'no-store',
      },
    });
  });

  // The network calls happen before the write, outside any transaction; the link is one transaction.
  route('GET', '/auth/callback', {
    query: communityAuthCallbackQuery, public: true, errors: [409, 502],
    responses: { 302: { description: 'Linked: the browser goes on to the success page.' } },
  }, async ({ event, query, now }) => {
    if (query.error) throw badRequest(`Discord did not authorise the link (${query.error}).`);
    const link = openLinkState(ctx.box, query.state, now);
    requireSameBrowser(ctx, event, link);
    if (!query.code) throw badRequest('The "code" parameter is missing.');
    await ctx.write(() => spendLinkState(ctx.db, link.nonce, link.expiresAt, now));
    const client = oauthClient(ctx.box, communitySettings(ctx.db, link.projectId));
    const user = await fetchLinkedUser(discordUrls(), client, { code: query.code, verifier: link.verifier, redirectUri: redirectUri(ctx) });
    await ctx.write(() => linkCommunityAccount(ctx.db, link.projectId, link.externalId, user, now));
    const cookie = linkCookie(ctx);
    return new Response(null, {
      status: 302,
      headers: { location: LINKED_PATH, 'cache-control': 'no-store', 'set-cookie': `${cookie.name}=; Max-Age=0; ${cookie.attributes}` },
    });
  });

  route('GET', '/auth/linked', { public: true, responses: { 200: { description: 'The success page.', contentType: 'text/html' } } }, () => new Response(LINKED_PAGE, {
    headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; frame-ancestors 'none'" },
  }));
}
