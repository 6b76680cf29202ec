import { linkCommunityAccount } from '../../domain/community/links.ts';
import { communitySettings, oauthClient } from '../../domain/community/settings.ts';
import { discordUrls, fetchLinkedUser, openLinkState, startLink } from '../../integrations/community/discord-oauth.ts';
import { communityAuthAnswer, communityAuthCallbackQuery } from '../../schemas/community.ts';
import { badRequest } from '../../shared/errors.ts';
import type { AppContext } from '../context.ts';
import type { LinkApi } from './api.ts';
import { FAVICON_LINK } from '../favicon.ts';

export const CALLBACK_PATH = '/api/community/auth/callback';
const LINKED_PATH = '/api/community/auth/linked';

/** Where Discord sends the browser back: this server's public URL (register it in the Discord application). */
export const redirectUri = (ctx: AppContext) => `${ctx.publicUrl().replace(/\/+$/, '')}${CALLBACK_PATH}`;

/** The authorize URL for a member: one function for /api/community/auth and the widget's link. */
export function authorizeUrl(ctx: AppContext, projectId: string, externalId: string, now: Date): { url: string; expiresAt: string } {
  const client = oauthClient(ctx.box, communitySettings(ctx.db, projectId));
  return startLink(ctx.box, discordUrls(), { projectId, externalId, clientId: client.id, redirectUri: redirectUri(ctx) }, now);
}

const LINKED_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">${FAVICON_LINK}
<title>Discord linked</title><style>body{font-family:system-ui,sans-serif;max-width:480px;margin:64px auto;padding:24px;text-align:center;color:#1f2937}</style>
</head><body><h1>Your Discord account is linked</h1><p>Your activity in the community now earns points. You can close this window.</p></body></html>`;

/**
 * Account linking (OAuth2 code flow with PKCE, scope identify): the authorize URL for a signed-in
 * member, the callback that checks the state, asks Discord who logged in and links the accounts
 * (paying the link bonus once), and the page the browser lands on.
 */
export function communityAuthRoutes({ route, ctx }: LinkApi): void {
  route('GET', '/auth', { responses: { 200: communityAuthAnswer } }, ({ session, now }) => {
    if (!session) throw badRequest('Sign in first.');
    return authorizeUrl(ctx, session.projectId, session.externalId, now);
  });

  // The network calls happen before the write, outside any transaction; the link is one transaction.
  route('GET', '/auth/callback', {
    query: communityAuthCallbackQuery, public: true, errors: [409, 502],
    responses: { 302: { description: 'Linked: the browser goes on to the success page.' } },
  }, async ({ query, now }) => {
    if (query.error) throw badRequest(`Discord did not authorise the link (${query.error}).`);
    const link = openLinkState(ctx.box, query.state, now);
    if (!query.code) throw badRequest('The "code" parameter is missing.');
    const client = oauthClient(ctx.box, communitySettings(ctx.db, link.projectId));
    const user = await fetchLinkedUser(discordUrls(), client, { code: query.code, verifier: link.verifier, redirectUri: redirectUri(ctx) });
    await ctx.write(() => linkCommunityAccount(ctx.db, link.projectId, link.externalId, user, now));
    return new Response(null, { status: 302, headers: { location: LINKED_PATH, 'cache-control': 'no-store' } });
  });

  route('GET', '/auth/linked', { public: true, responses: { 200: { description: 'The success page.', contentType: 'text/html' } } }, () => new Response(LINKED_PAGE, {
    headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; frame-ancestors 'none'" },
  }));
}
