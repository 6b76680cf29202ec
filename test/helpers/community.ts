import { createHmac } from 'node:crypto';
import { request, type ApiResponse } from './http.ts';
import type { TestServer } from './server.ts';

export const GUILD = '900000000000000001';

/** What a bot or relay sends: the raw body, signed with the webhook secret as docs/discord.md says. */
export function sendCommunityEvent(
  server: TestServer, secret: string, body: unknown,
  options: { guildId?: string; timestampSecs?: number; signature?: string; raw?: string } = {},
): Promise<ApiResponse> {
  const raw = options.raw ?? JSON.stringify(body);
  const signature = options.signature ?? createHmac('sha256', secret).update(raw).digest('hex');
  const timestamp = options.timestampSecs ?? Math.floor(server.clock.now().getTime() / 1000);
  return request(server.url, 'POST', '/api/v1/community/events', {
    raw,
    headers: {
      'content-type': 'application/json', 'x-community-guild-id': options.guildId ?? GUILD, 'x-community-signature': signature,
      'x-community-timestamp': String(timestamp),
    },
  });
}

/** Configures the default project's community with `settings` and returns its webhook secret. */
export async function configureCommunity(server: TestServer, settings: Record<string, unknown> = {}, api = server.api): Promise<string> {
  const res = await api.patch('/api/v1/community/settings', { guildId: GUILD, ...settings });
  if (res.status !== 200 || typeof res.body.webhookSecret !== 'string') throw new Error(`configuring the community failed: ${res.text}`);
  return res.body.webhookSecret;
}

/** Links community user `userId` to member `externalId` directly in the database (the OAuth flow has its own tests). */
export function linkDirectly(server: TestServer, projectId: string, userId: string, externalId: string, guildId = GUILD): void {
  const member = server.ctx.db.prepare('SELECT id FROM members WHERE project_id = ? AND external_id = ?').get(projectId, externalId) as { id: number };
  server.ctx.db.prepare(`INSERT INTO community_links (project_id, guild_id, community_user_id, username, member_id, created_at)
    VALUES (?, ?, ?, ?, ?, ?)`).run(projectId, guildId, userId, null, member.id, server.clock.now().toISOString());
}

/** A shop page on loopback: the origin the widget's "Link your Discord" form posts from (loopback is always allowed). */
export const SHOP_ORIGIN = 'http://localhost:8080';

/** A link started as a browser does: the start URL posted from the shop's page, then the cookie it set and where it sent the browser. */
export interface StartedLink {
  /** Discord's consent page, with the sealed state. */
  discordUrl: URL;
  state: string;
  /** The `name=value` of the cookie the start set, to send back with the callback. */
  cookie: string;
}

/** Posts a start URL (from GET /api/community/auth or the widget) as the widget's form does, from `origin`. */
export async function postLinkStart(server: TestServer, startUrl: string, origin: string | null = SHOP_ORIGIN): Promise<ApiResponse & { link: StartedLink | null }> {
  const url = new URL(startUrl);
  const res = await request(server.url, 'POST', url.pathname + url.search, {
    raw: '', headers: { 'content-type': 'application/x-www-form-urlencoded', ...(origin === null ? {} : { origin }) },
  });
  if (res.status !== 303) return { ...res, link: null };
  const discordUrl = new URL(String(res.headers.location));
  const setCookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
  return { ...res, link: { discordUrl, state: discordUrl.searchParams.get('state')!, cookie: setCookie[0]!.split(';')[0]! } };
}
