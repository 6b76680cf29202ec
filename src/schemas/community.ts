import * as v from 'valibot';
import { COMMUNITY_EVENT_TYPES } from '../domain/community/settings.ts';
import { identifier, queryInt, text } from './common.ts';

/** Discord ids are snowflakes (digits); other communities may use other forms, so any short printable id. */
const communityId = identifier(100);
const count = (max: number) => v.pipe(v.number('must be a number'), v.integer('must be a whole number'), v.minValue(0, 'must be at least 0'),
  v.maxValue(max, `must be at most ${max}`));
const points = count(1_000_000);
/** null: no cooldown, or no daily cap. */
const optionalLimit = (max: number) => v.optional(v.nullable(count(max)));
const idList = v.pipe(v.array(communityId, 'must be an array'), v.maxLength(500, 'must hold at most 500 ids'),
  v.check((list) => new Set(list).size === list.length, 'must not repeat an id'));
const multiplier = v.pipe(v.number('must be a number'), v.minValue(0.01, 'must be at least 0.01'), v.maxValue(100, 'must be at most 100'));

/** PATCH /api/v1/community/settings: every field optional; null clears the guild, the OAuth client, a cooldown or a cap. */
export const communitySettingsPatch = v.strictObject({
  guildId: v.optional(v.nullable(communityId)),
  oauthClientId: v.optional(v.nullable(communityId)),
  oauthClientSecret: v.optional(v.nullable(v.pipe(text(200), v.minLength(1, 'must not be empty')))),
  messagePoints: v.optional(points),
  messageCooldownSecs: optionalLimit(86_400),
  maxMessagePointsDay: optionalLimit(1_000_000),
  reactionPoints: v.optional(points),
  reactionCooldownSecs: optionalLimit(86_400),
  maxReactionPointsDay: optionalLimit(1_000_000),
  voicePointsPerMinute: v.optional(points),
  voiceMinMinutes: v.optional(count(1440)),
  maxVoicePointsDay: optionalLimit(1_000_000),
  threadPoints: v.optional(points),
  threadCooldownSecs: optionalLimit(86_400),
  maxThreadPointsDay: optionalLimit(1_000_000),
  eventAttendPoints: v.optional(points),
  serverBoostPoints: v.optional(points),
  memberJoinPoints: v.optional(points),
  accountLinkPoints: v.optional(points),
  includedChannels: v.optional(idList),
  excludedChannels: v.optional(idList),
  bonusRoles: v.optional(v.pipe(v.record(communityId, multiplier, 'must be an object of role id to multiplier'),
    v.check((roles) => Object.keys(roles).length <= 100, 'must hold at most 100 roles'))),
  applyMultipliers: v.optional(v.boolean('must be true or false')),
});

const common = {
  eventId: communityId,
  communityUserId: communityId,
  communityUsername: v.optional(text(100)),
  /** The user's role ids, so bonus roles apply. */
  roles: v.optional(v.pipe(v.array(communityId, 'must be an array'), v.maxLength(250, 'must hold at most 250 roles'))),
};
const channel = { channelId: communityId };

/** POST /api/v1/community/events: the fields each event type requires (unknown fields are ignored, for newer senders). */
export const communityEventBody = v.variant('eventType', [
  v.object({ ...common, eventType: v.literal('MESSAGE'), ...channel, messageId: communityId }),
  v.object({ ...common, eventType: v.literal('REACTION'), ...channel, messageId: communityId, emoji: text(100) }),
  v.object({ ...common, eventType: v.literal('VOICE_SESSION'), ...channel, voiceMinutes: count(1440) }),
  v.object({ ...common, eventType: v.literal('THREAD_CREATE'), ...channel, threadId: communityId }),
  v.object({ ...common, eventType: v.literal('EVENT_ATTEND') }),
  v.object({ ...common, eventType: v.literal('SERVER_BOOST') }),
  v.object({ ...common, eventType: v.literal('MEMBER_JOIN'), inviterId: v.optional(communityId) }),
  v.object({ ...common, eventType: v.literal('ACCOUNT_LINK') }),
], `"eventType" must be one of ${COMMUNITY_EVENT_TYPES.join(', ')}`);
export type CommunityEventBody = v.InferOutput<typeof communityEventBody>;

/** What the events endpoint answers (the SPEC's fields, plus `linked`). */
export const communityEventAnswer = v.object({
  success: v.boolean(),
  pointsAwarded: v.number(),
  multiplier: v.number(),
  cooldownActive: v.boolean(),
  dailyLimitReached: v.boolean(),
  linked: v.boolean(),
  outcome: v.string(),
});

export const communityLogsQuery = v.object({
  limit: v.optional(queryInt(1, 100), '50'),
  offset: v.optional(queryInt(0, Number.MAX_SAFE_INTEGER), '0'),
});

/** POST /api/community/auth/start: the sealed state of the link GET /api/community/auth (or the widget) made. */
export const communityAuthStartQuery = v.strictObject({ state: v.pipe(v.string(), v.maxLength(4096)) });

export const communityAuthCallbackQuery = v.object({
  state: v.optional(v.pipe(v.string(), v.maxLength(4096))),
  code: v.optional(v.pipe(v.string(), v.maxLength(2048))),
  error: v.optional(v.pipe(v.string(), v.maxLength(200))),
  // What Discord may add beside them; read by nobody.
  error_description: v.optional(v.pipe(v.string(), v.maxLength(1000))),
  guild_id: v.optional(v.pipe(v.string(), v.maxLength(100))),
  permissions: v.optional(v.pipe(v.string(), v.maxLength(100))),
});

const nullableString = v.nullable(v.string());
const nullableCount = v.nullable(v.number());

/** What GET/PATCH /api/v1/community/settings answer (PATCH adds `webhookSecret` once, when it generates it). */
export const communitySettingsAnswer = v.object({
  guildId: nullableString,
  webhookSecretSet: v.boolean(),
  webhookSecret: v.optional(v.string()),
  oauthClientId: nullableString,
  oauthClientSecretSet: v.boolean(),
  messagePoints: v.number(), messageCooldownSecs: nullableCount, maxMessagePointsDay: nullableCount,
  reactionPoints: v.number(), reactionCooldownSecs: nullableCount, maxReactionPointsDay: nullableCount,
  voicePointsPerMinute: v.number(), voiceMinMinutes: v.number(), maxVoicePointsDay: nullableCount,
  threadPoints: v.number(), threadCooldownSecs: nullableCount, maxThreadPointsDay: nullableCount,
  eventAttendPoints: v.number(), serverBoostPoints: v.number(), memberJoinPoints: v.number(), accountLinkPoints: v.number(),
  includedChannels: v.array(v.string()),
  excludedChannels: v.array(v.string()),
  bonusRoles: v.record(v.string(), v.number()),
  applyMultipliers: v.boolean(),
  updatedAt: nullableString,
});

export const communitySecretAnswer = v.object({ webhookSecret: v.string() });

export const communityLogAnswer = v.object({
  events: v.array(v.object({
    eventId: nullableString, eventType: nullableString, communityUserId: nullableString, externalId: nullableString, status: v.number(),
    outcome: v.string(), pointsAwarded: v.number(), multiplier: v.number(), error: nullableString, receivedAt: v.string(),
  })),
  pagination: v.object({ total: v.number(), limit: v.number(), offset: v.number(), hasMore: v.boolean() }),
});

export const communityAuthAnswer = v.object({ url: v.string(), expiresAt: v.string() });

export const communityWidgetAnswer = v.object({ available: v.boolean(), linked: v.boolean(), username: nullableString, url: nullableString });
