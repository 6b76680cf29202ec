import type { CommunityEventBody as CommunityEvent } from '../../schemas/community.ts';

/**
 * The bot's translation from Discord gateway dispatches to community events: pure (no network, no
 * clock of its own), so it is tested over recorded payloads. It keeps what it must remember between
 * dispatches in a `BotState`: open voice sessions, running scheduled events and the invites' use counts.
 *
 * Payload shapes: https://discord.com/developers/docs/events/gateway-events (only the fields read here).
 */

export interface GatewayDispatch {
  /** The dispatch name (MESSAGE_CREATE...). */
  t: string;
  d: unknown;
}

/** An invite as GET /guilds/{id}/invites (and INVITE_CREATE) show it. */
export interface InviteInfo {
  code: string;
  uses: number;
  inviterId: string | null;
}

interface VoiceSession {
  channelId: string;
  startedMs: number;
  /** While self-deafened: since when; the deafened time does not count. */
  deafSinceMs: number | null;
  deafMs: number;
  username: string | undefined;
  roles: string[] | undefined;
}

export interface BotState {
  /** guild id + user id → the open voice session. */
  voice: Map<string, VoiceSession>;
  /** guild id + scheduled event id → the event's channel, while the event is active. */
  activeEvents: Map<string, string>;
  /** guild id → invite code → uses, for finding who invited a new member. */
  invites: Map<string, Map<string, InviteInfo>>;
  /** thread id → its parent channel: activity in a thread counts under its channel's include/exclude rules. */
  threadParents: Map<string, string>;
}

export const createBotState = (): BotState => ({ voice: new Map(), activeEvents: new Map(), invites: new Map(), threadParents: new Map() });

/** An event for the project whose guild it happened in. */
export interface GuildEvent {
  guildId: string;
  event: CommunityEvent;
}

type Json = Record<string, unknown>;
const obj = (value: unknown): Json => (typeof value === 'object' && value !== null ? (value as Json) : {});
const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
const strings = (value: unknown): string[] | undefined => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : undefined);

/** Who acted, from a payload's `member` (with its roles) and `user`/`author`. */
function actor(d: Json, userField: 'author' | 'user' | 'member.user'): { id?: string | undefined; username?: string | undefined; bot: boolean; roles?: string[] | undefined } {
  const member = obj(d.member);
  const user = obj(userField === 'member.user' ? member.user : d[userField]);
  return { id: str(user.id), username: str(user.username), bot: user.bot === true, roles: strings(member.roles) };
}

const MS_PER_MINUTE = 60_000;
const voiceKey = (guildId: string, userId: string) => `${guildId}:${userId}`;

/**
 * Turns one dispatch into the community events it means (often none). `extra.invites` is the
 * guild's invite list read after a GUILD_MEMBER_ADD (when the bot may read invites): the invite
 * whose use count grew by one names the inviter.
 */
export function translate(state: BotState, dispatch: GatewayDispatch, now: Date, extra: { invites?: InviteInfo[] } = {}): GuildEvent[] {
  const d = obj(dispatch.d);
  const guildId = str(d.guild_id) ?? (dispatch.t === 'GUILD_CREATE' ? str(d.id) : undefined);
  if (guildId === undefined) return []; // direct messages and other guildless dispatches earn nothing
  const out = (event: CommunityEvent): GuildEvent => ({ guildId, event });
  switch (dispatch.t) {
    case 'MESSAGE_CREATE': {
      const author = actor(d, 'author');
      const id = str(d.id);
      const channelId = channelOf(state, str(d.channel_id));
      if (author.bot || d.webhook_id !== undefined || !author.id || !id || !channelId) return [];
      return [out({ eventId: `msg:${id}`, eventType: 'MESSAGE', communityUserId: author.id, communityUsername: author.username, roles: author.roles, channelId, messageId: id })];
    }
    case 'MESSAGE_REACTION_ADD': {
      const who = actor(d, 'member.user');
      const userId = str(d.user_id) ?? who.id;
      const messageId = str(d.message_id);
      const channelId = channelOf(state, str(d.channel_id));
      const emoji = obj(d.emoji);
      const emojiName = str(emoji.id) ?? str(emoji.name);
      if (who.bot || !userId || !messageId || !channelId || !emojiName) return [];
      return [out({
        eventId: `react:${messageId}:${userId}:${emojiName}`, eventType: 'REACTION', communityUserId: userId, communityUsername: who.username, roles: who.roles,
        channelId, messageId, emoji: str(emoji.name) ?? emojiName,
      })];
    }
    case 'VOICE_STATE_UPDATE':
      return voiceUpdate(state, guildId, d, now.getTime()).map(out);
    case 'THREAD_CREATE': {
      const id = str(d.id);
      const ownerId = str(d.owner_id);
      rememberThread(state, d);
      // Only a thread just created: the gateway also sends THREAD_CREATE when the bot is added to an existing one.
      if (d.newly_created !== true || !id || !ownerId) return [];
      return [out({ eventId: `thread:${id}`, eventType: 'THREAD_CREATE', communityUserId: ownerId, channelId: str(d.parent_id) ?? id, threadId: id })];
    }
    case 'GUILD_MEMBER_UPDATE': {
      const who = actor(d, 'user');
      const since = str(d.premium_since);
      if (who.bot || !who.id || !since) return [];
      return [out({ eventId: `boost:${who.id}:${since}`, eventType: 'SERVER_BOOST', communityUserId: who.id, communityUsername: who.username, roles: strings(d.roles) })];
    }
    case 'GUILD_MEMBER_ADD': {
      const who = actor(d, 'user');
      if (who.bot || !who.id) return [];
      const inviterId = extra.invites ? inviterFromDiff(state, guildId, extra.invites) : undefined;
      return [out({
        eventId: `join:${who.id}:${str(d.joined_at) ?? now.toISOString()}`, eventType: 'MEMBER_JOIN', communityUserId: who.id, communityUsername: who.username,
        ...(inviterId ? { inviterId } : {}),
      })];
    }
    case 'INVITE_CREATE': {
      const code = str(d.code);
      if (code) guildInvites(state, guildId).set(code, { code, uses: typeof d.uses === 'number' ? d.uses : 0, inviterId: str(obj(d.inviter).id) ?? null });
      return [];
    }
    case 'INVITE_DELETE': {
      const code = str(d.code);
      if (code) guildInvites(state, guildId).delete(code);
      return [];
    }
    case 'GUILD_SCHEDULED_EVENT_CREATE':
    case 'GUILD_SCHEDULED_EVENT_UPDATE':
      return scheduledEvent(state, guildId, d, now.getTime()).map(out);
    case 'GUILD_SCHEDULED_EVENT_DELETE': {
      const id = str(d.id);
      if (id) state.activeEvents.delete(`${guildId}:${id}`);
      return [];
    }
    case 'THREAD_UPDATE':
      rememberThread(state, d);
      return [];
    case 'THREAD_DELETE': {
      const id = str(d.id);
      if (id) state.threadParents.delete(id);
      return [];
    }
    case 'GUILD_CREATE': {
      // On connecting: users already in voice start their session now; events already running and active threads are tracked.
      const events: GuildEvent[] = [];
      for (const thread of Array.isArray(d.threads) ? d.threads : []) rememberThread(state, obj(thread));
      for (const scheduled of Array.isArray(d.guild_scheduled_events) ? d.guild_scheduled_events : []) {
        events.push(...scheduledEvent(state, guildId, obj(scheduled), now.getTime()).map(out));
      }
      for (const voice of Array.isArray(d.voice_states) ? d.voice_states : []) events.push(...voiceUpdate(state, guildId, obj(voice), now.getTime()).map(out));
      return events;
    }
    default:
      return [];
  }
}

/** A thread's parent channel, remembered (bounded: the oldest are forgotten first). */
const MAX_THREADS = 10_000;
function rememberThread(state: BotState, d: Json): void {
  const id = str(d.id);
  const parent = str(d.parent_id);
  if (!id || !parent) return;
  if (state.threadParents.size >= MAX_THREADS) state.threadParents.delete(state.threadParents.keys().next().value!);
  state.threadParents.set(id, parent);
}

/** The channel a message or reaction counts under: a thread's parent, when the thread is known. */
const channelOf = (state: BotState, channelId: string | undefined) => (channelId === undefined ? undefined : state.threadParents.get(channelId) ?? channelId);

/** Starts, moves and ends voice sessions; self-deafened stretches are left out of the minutes. */
function voiceUpdate(state: BotState, guildId: string, d: Json, nowMs: number): CommunityEvent[] {
  const who = actor(d, 'member.user');
  const userId = str(d.user_id) ?? who.id;
  if (!userId || who.bot) return [];
  const key = voiceKey(guildId, userId);
  const channelId = str(d.channel_id);
  const deaf = d.self_deaf === true || d.deaf === true;
  const events: CommunityEvent[] = [];
  let session = state.voice.get(key);
  if (session && session.channelId !== channelId) {
    events.push(endSession(session, userId, nowMs));
    state.voice.delete(key);
    session = undefined;
  }
  if (!channelId) return events;
  if (!session) {
    session = { channelId, startedMs: nowMs, deafSinceMs: deaf ? nowMs : null, deafMs: 0, username: who.username, roles: who.roles };
    state.voice.set(key, session);
    for (const [eventKey, eventChannel] of state.activeEvents) {
      if (eventKey.startsWith(`${guildId}:`) && eventChannel === channelId) events.push(attend(eventKey.slice(guildId.length + 1), userId, session));
    }
    return events;
  }
  if (deaf && session.deafSinceMs === null) session.deafSinceMs = nowMs;
  if (!deaf && session.deafSinceMs !== null) {
    session.deafMs += nowMs - session.deafSinceMs;
    session.deafSinceMs = null;
  }
  return events;
}

function endSession(session: VoiceSession, userId: string, nowMs: number): CommunityEvent {
  const deafMs = session.deafMs + (session.deafSinceMs === null ? 0 : nowMs - session.deafSinceMs);
  const voiceMinutes = Math.max(0, Math.floor((nowMs - session.startedMs - deafMs) / MS_PER_MINUTE));
  return {
    eventId: `voice:${userId}:${session.startedMs}`, eventType: 'VOICE_SESSION', communityUserId: userId, communityUsername: session.username,
    roles: session.roles, channelId: session.channelId, voiceMinutes: Math.min(voiceMinutes, 1440),
  };
}

/** Attendance: being in the event's channel while it runs. The eventId is the scheduled event's, so each attendee counts once. */
const attend = (scheduledEventId: string, userId: string, session: VoiceSession): CommunityEvent => ({
  eventId: scheduledEventId, eventType: 'EVENT_ATTEND', communityUserId: userId, communityUsername: session.username, roles: session.roles,
});

/** Status 2 is ACTIVE; 1 scheduled, 3 completed, 4 cancelled. Users already in the channel attend when it starts. */
function scheduledEvent(state: BotState, guildId: string, d: Json, _nowMs: number): CommunityEvent[] {
  const id = str(d.id);
  const channelId = str(d.channel_id);
  if (!id) return [];
  const key = `${guildId}:${id}`;
  if (d.status !== 2 || !channelId) {
    state.activeEvents.delete(key);
    return [];
  }
  if (state.activeEvents.get(key) === channelId) return [];
  state.activeEvents.set(key, channelId);
  const events: CommunityEvent[] = [];
  for (const [sessionKey, session] of state.voice) {
    if (sessionKey.startsWith(`${guildId}:`) && session.channelId === channelId) events.push(attend(id, sessionKey.slice(guildId.length + 1), session));
  }
  return events;
}

function guildInvites(state: BotState, guildId: string): Map<string, InviteInfo> {
  let invites = state.invites.get(guildId);
  if (!invites) {
    invites = new Map();
    state.invites.set(guildId, invites);
  }
  return invites;
}

/** Records the guild's invites (at start, and after each join). */
export function rememberInvites(state: BotState, guildId: string, invites: InviteInfo[]): void {
  state.invites.set(guildId, new Map(invites.map((invite) => [invite.code, invite])));
}

/**
 * The inviter of a new member: the one invite whose use count grew since last read (a new invite
 * counts from 0). Two grown at once (joins in quick succession) name nobody rather than a guess.
 */
function inviterFromDiff(state: BotState, guildId: string, now: InviteInfo[]): string | undefined {
  const before = state.invites.get(guildId);
  rememberInvites(state, guildId, now);
  if (!before) return undefined;
  const grown = now.filter((invite) => invite.uses > (before.get(invite.code)?.uses ?? 0));
  return grown.length === 1 ? (grown[0]!.inviterId ?? undefined) : undefined;
}
