import { createHash, randomBytes } from 'node:crypto';
import * as v from 'valibot';
import { text } from '../../shared/value-schemas.ts';
import { AppError, badRequest } from '../../shared/errors.ts';
import type { SecretBox } from '../../shared/secrets.ts';

/**
 * Discord's OAuth2 (authorization code with PKCE, scope `identify`) for account linking. The URLs
 * are configurable so tests, and anyone behind a proxy, can point them elsewhere.
 */
export interface DiscordUrls {
  authorize: string;
  api: string;
}

export function discordUrls(env: NodeJS.ProcessEnv = process.env): DiscordUrls {
  return {
    authorize: env.PUNCHCARD_DISCORD_AUTHORIZE_URL || 'https://discord.com/oauth2/authorize',
    api: (env.PUNCHCARD_DISCORD_API_URL || 'https://discord.com/api').replace(/\/+$/, ''),
  };
}

/** How long a started link stays valid: long enough to log in to Discord, short enough that a leaked URL soon expires. */
export const LINK_STATE_TTL_MS = 10 * 60 * 1000;
/** Discord's answers come in well under this; a hung request must not hold the browser forever. */
const DISCORD_TIMEOUT_MS = 10_000;

interface StatePayload {
  /** project id, member externalId, PKCE code verifier, the browser's nonce, expiry (Unix ms) */
  p: string;
  e: string;
  v: string;
  n: string;
  x: number;
}

/** A started link, as its sealed state carries it. */
export interface LinkState {
  projectId: string;
  externalId: string;
  verifier: string;
  /** Also in the cookie of the browser that started the link: the callback must come from that browser. */
  nonce: string;
  expiresAt: number;
}

/**
 * The `state` of a new link: the project, the member, the PKCE verifier and a nonce, sealed with
 * the master key (AES-256-GCM authenticates it, and keeps the verifier and the nonce out of sight
 * of whoever sees the URL).
 */
export function sealLinkState(box: SecretBox, link: { projectId: string; externalId: string }, now: Date): { state: string; expiresAt: string } {
  const expires = now.getTime() + LINK_STATE_TTL_MS;
  const payload: StatePayload = { p: link.projectId, e: link.externalId, v: randomBytes(32).toString('base64url'), n: randomBytes(24).toString('base64url'), x: expires };
  return { state: box.seal(JSON.stringify(payload)), expiresAt: new Date(expires).toISOString() };
}

/** Discord's consent page for a started link (scope identify, PKCE with S256). */
export function discordAuthorizeUrl(urls: DiscordUrls, link: LinkState, state: string, client: { clientId: string; redirectUri: string }): string {
  const url = new URL(urls.authorize);
  url.search = new URLSearchParams({
    response_type: 'code', client_id: client.clientId, scope: 'identify', redirect_uri: client.redirectUri, state, prompt: 'consent',
    code_challenge: createHash('sha256').update(link.verifier).digest('base64url'), code_challenge_method: 'S256',
  }).toString();
  return url.toString();
}

/** What a state carries; 400 when it was not made here, was altered or expired. */
export function openLinkState(box: SecretBox, state: string | undefined, now: Date): LinkState {
  if (!state) throw badRequest('The "state" parameter is missing: start linking again from the widget.');
  let payload: StatePayload;
  try {
    payload = JSON.parse(box.open(state)) as StatePayload;
  } catch {
    throw badRequest('The "state" parameter is not valid: start linking again from the widget.');
  }
  // A state sealed before links carried a nonce cannot be bound to a browser: it is refused as invalid.
  if (typeof payload.n !== 'string') throw badRequest('The "state" parameter is not valid: start linking again from the widget.');
  if (typeof payload.x !== 'number' || payload.x < now.getTime()) throw badRequest('This link has expired: start linking again from the widget.');
  return { projectId: payload.p, externalId: payload.e, verifier: payload.v, nonce: payload.n, expiresAt: payload.x };
}

const USERNAME = text(100);

export interface DiscordUser {
  id: string;
  username: string | null;
}

async function discordCall(url: string, init: RequestInit, what: string): Promise<Record<string, unknown>> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.timeout(DISCORD_TIMEOUT_MS), redirect: 'error' });
  } catch {
    throw new AppError(502, 'Bad Gateway', `Discord could not be reached (${what}); try again.`);
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  if (response.status >= 400 && response.status < 500) throw badRequest(`Discord refused the ${what} (HTTP ${response.status}): start linking again.`);
  if (!response.ok || typeof body !== 'object' || body === null) throw new AppError(502, 'Bad Gateway', `Discord answered the ${what} with HTTP ${response.status}.`);
  return body as Record<string, unknown>;
}

/**
 * Exchanges the code at the token endpoint (form-encoded, the client authenticated with HTTP Basic,
 * the PKCE verifier), then reads who logged in with GET /users/@me.
 */
export async function fetchLinkedUser(
  urls: DiscordUrls, client: { id: string; secret: string }, exchange: { code: string; verifier: string; redirectUri: string },
): Promise<DiscordUser> {
  const token = await discordCall(`${urls.api}/oauth2/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${encodeURIComponent(client.id)}:${encodeURIComponent(client.secret)}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: exchange.code, redirect_uri: exchange.redirectUri, code_verifier: exchange.verifier }),
  }, 'code exchange');
  if (typeof token.access_token !== 'string') throw new AppError(502, 'Bad Gateway', 'Discord answered the code exchange without an access token.');
  const me = await discordCall(`${urls.api}/users/@me`, { headers: { authorization: `Bearer ${token.access_token}` } }, 'user lookup');
  if (typeof me.id !== 'string' || !/^\d{1,25}$/.test(me.id)) throw new AppError(502, 'Bad Gateway', 'Discord answered /users/@me without a user id.');
  const name = typeof me.username === 'string' ? me.username : typeof me.global_name === 'string' ? me.global_name : null;
  // Checked as a signed event's communityUsername is: readable text, or no name at all.
  const username = name === null ? null : v.safeParse(USERNAME, [...name].slice(0, 100).join(''));
  return { id: me.id, username: username?.success ? username.output : null };
}
