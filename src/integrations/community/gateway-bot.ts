import type { Db } from '../../db/connection.ts';
import type { Clock } from '../../shared/clock.ts';
import type { Logger } from '../../shared/log.ts';
import { validate } from '../../shared/validate.ts';
import { receiveCommunityEvent } from '../../domain/community/events.ts';
import { settingsByGuild } from '../../domain/community/settings.ts';
import { communityEventBody, type CommunityEventBody } from '../../schemas/community.ts';
import { createBotState, rememberInvites, translate, type GatewayDispatch, type InviteInfo } from './gateway-translate.ts';
import { communitySignature } from './signature.ts';

/**
 * The gateway intents the bot asks for (docs/discord.md lists them for the Developer Portal).
 * GUILD_MEMBERS is privileged (joins, boosts); message content is not needed: a message counts, its text does not.
 */
export const BOT_INTENTS = {
  GUILDS: 1 << 0,
  GUILD_MEMBERS: 1 << 1,
  GUILD_INVITES: 1 << 6,
  GUILD_VOICE_STATES: 1 << 7,
  GUILD_MESSAGES: 1 << 9,
  GUILD_MESSAGE_REACTIONS: 1 << 10,
  GUILD_SCHEDULED_EVENTS: 1 << 16,
} as const;
const INTENTS = Object.values(BOT_INTENTS).reduce((all, bit) => all | bit, 0);

/** Where translated events go: straight into the domain (in the server) or signed to a server's endpoint (`punchcard community bot`). */
export type EventSink = (guildId: string, event: CommunityEventBody) => Promise<void>;

export interface RunningBot {
  stop(): Promise<void>;
}

/**
 * Connects to the Discord gateway (@discordjs/ws: identify, heartbeats, resume and reconnects) and
 * hands each dispatch to the pure translation. Invites are read over REST at start and after each
 * join, when the bot has Manage Server (else joins name no inviter).
 */
export async function startGatewayBot(options: { token: string; sink: EventSink; log: Logger; clock: Clock; apiUrl?: string | undefined }): Promise<RunningBot> {
  // Loaded only when a bot runs: every other command starts without the gateway client.
  const { REST } = await import('@discordjs/rest');
  const { WebSocketManager, WebSocketShardEvents } = await import('@discordjs/ws');
  const rest = new REST(options.apiUrl ? { api: options.apiUrl } : {}).setToken(options.token);
  const manager = new WebSocketManager({ token: options.token, intents: INTENTS, rest });
  const state = createBotState();
  const readInvites = async (guildId: string): Promise<InviteInfo[] | undefined> => {
    try {
      const invites = (await rest.get(`/guilds/${guildId}/invites`)) as { code: string; uses?: number; inviter?: { id: string } }[];
      return invites.map((invite) => ({ code: invite.code, uses: invite.uses ?? 0, inviterId: invite.inviter?.id ?? null }));
    } catch {
      return undefined; // no Manage Server permission: joins still count, without an inviter
    }
  };
  manager.on(WebSocketShardEvents.Dispatch, (payload) => {
    void (async () => {
      const dispatch: GatewayDispatch = { t: payload.t, d: payload.d };
      const guildId = (payload.d as { guild_id?: string; id?: string }).guild_id ?? (payload.d as { id?: string }).id;
      let invites: InviteInfo[] | undefined;
      if (payload.t === 'GUILD_MEMBER_ADD' && guildId) invites = await readInvites(guildId);
      if (payload.t === 'GUILD_CREATE' && guildId) {
        const known = await readInvites(guildId);
        if (known) rememberInvites(state, guildId, known);
      }
      for (const { guildId: guild, event } of translate(state, dispatch, options.clock(), invites ? { invites } : {})) {
        await options.sink(guild, event).catch((error: unknown) => options.log.error(`Community bot: a ${event.eventType} event was not recorded`, error));
      }
    })().catch((error: unknown) => options.log.error('Community bot: a gateway dispatch failed', error));
  });
  manager.on(WebSocketShardEvents.Error, (error) => options.log.error('Community bot: gateway error', error));
  await manager.connect();
  options.log.info('Community bot connected to the Discord gateway.');
  return { stop: async () => manager.destroy() };
}

/** In the server: each event goes through the same validation and domain function as the signed endpoint, in one transaction. */
export function inProcessSink(db: Db, write: <T>(work: () => T) => Promise<T>, clock: Clock): EventSink {
  return async (guildId, event) => {
    await write(() => {
      const settings = settingsByGuild(db, guildId);
      if (!settings) return; // a guild no project configured
      receiveCommunityEvent(db, settings, validate(communityEventBody, event), clock());
    });
  };
}

/** For `punchcard community bot`: each event signed and sent to a server's POST /api/v1/community/events. */
export function httpSink(baseUrl: string, guildId: string, secret: string, log: Logger): EventSink {
  const endpoint = `${baseUrl.replace(/\/+$/, '')}/api/v1/community/events`;
  return async (eventGuild, event) => {
    if (eventGuild !== guildId) return;
    const raw = JSON.stringify(event);
    const response = await fetch(endpoint, {
      method: 'POST',
      body: raw,
      signal: AbortSignal.timeout(10_000),
      headers: {
        'content-type': 'application/json', 'x-community-guild-id': guildId, 'x-community-timestamp': String(Math.floor(Date.now() / 1000)),
        'x-community-signature': communitySignature(secret, raw),
      },
    });
    if (!response.ok) log.warn(`Community bot: the server answered ${response.status} to a ${event.eventType} event: ${(await response.text()).slice(0, 300)}`);
  };
}

/**
 * The bot inside `punchcard serve` when PUNCHCARD_DISCORD_BOT_TOKEN is set: events go straight to the
 * domain. A bot that cannot connect (a bad token) is logged and the server runs on without it.
 */
export async function startBotFromEnv(env: NodeJS.ProcessEnv, store: { db: Db; write: <T>(work: () => T) => Promise<T>; clock: Clock; log: Logger }):
  Promise<RunningBot | null> {
  const token = env.PUNCHCARD_DISCORD_BOT_TOKEN;
  if (!token) return null;
  try {
    return await startGatewayBot({ token, sink: inProcessSink(store.db, store.write, store.clock), log: store.log, clock: store.clock,
      apiUrl: env.PUNCHCARD_DISCORD_API_URL || undefined });
  } catch (error) {
    store.log.error('Community bot: could not connect to the Discord gateway; the server runs without it', error);
    return null;
  }
}
