import { createHash, randomBytes } from 'node:crypto';
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
  /** project id, member externalId, PKCE code verifier, expiry (Unix ms) */
  p: string;
  e: string;
  v: string;
  x: number;
}

/**
 * The `state` parameter: the project, the member and the PKCE verifier, sealed with the master key
 * (AES-256-GCM authenticates it, and keeps the verifier out of sight of whoever sees the URL).
 */
export function startLink(box: SecretBox, urls: DiscordUrls, link: { projectId: string; externalId: string; clientId: string; redirectUri: string }, now: Date):
  { url: string; expiresAt: string } {
  const verifier = randomBytes(32).toString('base64url');
  const expires = now.getTime() + LINK_STATE_TTL_MS;
  const state = box.seal(JSON.stringify({ p: link.projectId, e: link.externalId, v: verifier, x: expires } satisfies StatePayload));
  const url = new URL(urls.authorize);
  url.search = new URLSearchParams({
    response_type: 'code', client_id: link.clientId, scope: 'identify', redirect_uri: link.redirectUri, state, prompt: 'consent',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256',
  }).toString();
  return { url: url.toString(), expiresAt: new Date(expires).toISOString() };
}

/** The project, member and verifier a callback's state carries; 400 when it was not made here, was altered or expired. */
export function openLinkState(box: SecretBox, state: string | undefined, now: Date): { projectId: string; externalId: string; verifier: string } {
  if (!state) throw badRequest('The "state" parameter is missing: start linking again from the widget.');
  let payload: StatePayload;
  try {
    payload = JSON.parse(box.open(state)) as StatePayload;
  } catch {
    throw badRequest('The "state" parameter is not valid: start linking again from the widget.');
  }
  if (typeof payload.x !== 'number' || payload.x < now.getTime()) throw badRequest('This link has expired: start linking again from the widget.');
  return { projectId: payload.p, externalId: payload.e, verifier: payload.v };
}

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
  return { id: me.id, username: name === null ? null : name.slice(0, 100) };
}
