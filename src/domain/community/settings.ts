import { randomBytes } from 'node:crypto';
import type { Db } from '../../db/connection.ts';
import { stmt } from '../../db/statements.ts';
import { badRequest, conflict } from '../../shared/errors.ts';
import type { SecretBox } from '../../shared/secrets.ts';

/** The event types a community sends (the SPEC's "the service" is MESSAGE). */
export const COMMUNITY_EVENT_TYPES = [
  'MESSAGE', 'REACTION', 'VOICE_SESSION', 'THREAD_CREATE', 'EVENT_ATTEND', 'SERVER_BOOST', 'MEMBER_JOIN', 'ACCOUNT_LINK',
] as const;
export type CommunityEventType = (typeof COMMUNITY_EVENT_TYPES)[number];

/** What a project tunes: points per activity, cooldowns (seconds) and daily caps (points); null = none. */
export interface CommunityConfig {
  messagePoints: number;
  messageCooldownSecs: number | null;
  maxMessagePointsDay: number | null;
  reactionPoints: number;
  reactionCooldownSecs: number | null;
  maxReactionPointsDay: number | null;
  voicePointsPerMinute: number;
  /** A voice session shorter than this earns nothing. */
  voiceMinMinutes: number;
  maxVoicePointsDay: number | null;
  threadPoints: number;
  threadCooldownSecs: number | null;
  maxThreadPointsDay: number | null;
  eventAttendPoints: number;
  serverBoostPoints: number;
  memberJoinPoints: number;
  accountLinkPoints: number;
  /** Only these channels earn, when not empty (wins over excludedChannels). */
  includedChannels: string[];
  /** These channels earn nothing (when includedChannels is empty). */
  excludedChannels: string[];
  /** Role id → multiplier; the highest of the roles a user holds applies. */
  bonusRoles: Record<string, number>;
  /** Whether the project's multiplier events (source `community`) multiply community awards. */
  applyMultipliers: boolean;
}

/** The SPEC's defaults (section 4.4). */
export const COMMUNITY_DEFAULTS: CommunityConfig = {
  messagePoints: 1, messageCooldownSecs: 60, maxMessagePointsDay: 100,
  reactionPoints: 1, reactionCooldownSecs: 30, maxReactionPointsDay: 50,
  voicePointsPerMinute: 1, voiceMinMinutes: 5, maxVoicePointsDay: 200,
  threadPoints: 10, threadCooldownSecs: 3600, maxThreadPointsDay: null,
  eventAttendPoints: 50, serverBoostPoints: 500, memberJoinPoints: 25, accountLinkPoints: 100,
  includedChannels: [], excludedChannels: [], bonusRoles: {}, applyMultipliers: true,
};

/** How one event type earns, read from the config. */
export interface ActivityRule {
  points: number;
  cooldownSecs: number | null;
  dailyCap: number | null;
  once: boolean;
}

export function activityRule(config: CommunityConfig, type: CommunityEventType): ActivityRule {
  const rule = (points: number, cooldownSecs: number | null = null, dailyCap: number | null = null, once = false) => ({ points, cooldownSecs, dailyCap, once });
  switch (type) {
    case 'MESSAGE': return rule(config.messagePoints, config.messageCooldownSecs, config.maxMessagePointsDay);
    case 'REACTION': return rule(config.reactionPoints, config.reactionCooldownSecs, config.maxReactionPointsDay);
    case 'VOICE_SESSION': return rule(config.voicePointsPerMinute, null, config.maxVoicePointsDay);
    case 'THREAD_CREATE': return rule(config.threadPoints, config.threadCooldownSecs, config.maxThreadPointsDay);
    case 'EVENT_ATTEND': return rule(config.eventAttendPoints);
    case 'SERVER_BOOST': return rule(config.serverBoostPoints, null, null, true);
    case 'MEMBER_JOIN': return rule(config.memberJoinPoints, null, null, true);
    case 'ACCOUNT_LINK': return rule(config.accountLinkPoints, null, null, true);
  }
}

interface SettingsRow {
  project_id: string;
  guild_id: string | null;
  webhook_secret: string | null;
  oauth_client_id: string | null;
  oauth_client_secret: string | null;
  config: string;
  updated_at: string;
}

/** A project's community settings as stored, config merged over the defaults. */
export interface CommunitySettings {
  projectId: string;
  guildId: string | null;
  /** Sealed; open with the box. */
  webhookSecret: string | null;
  oauthClientId: string | null;
  oauthClientSecret: string | null;
  config: CommunityConfig;
  updatedAt: string | null;
}

/** What the API shows: never a secret, only whether it is set. */
export interface CommunitySettingsView extends CommunityConfig {
  guildId: string | null;
  webhookSecretSet: boolean;
  oauthClientId: string | null;
  oauthClientSecretSet: boolean;
  updatedAt: string | null;
}

const SELECT = 'SELECT project_id, guild_id, webhook_secret, oauth_client_id, oauth_client_secret, config, updated_at FROM community_settings';

const toSettings = (row: SettingsRow): CommunitySettings => ({
  projectId: row.project_id,
  guildId: row.guild_id,
  webhookSecret: row.webhook_secret,
  oauthClientId: row.oauth_client_id,
  oauthClientSecret: row.oauth_client_secret,
  config: { ...COMMUNITY_DEFAULTS, ...(JSON.parse(row.config) as Partial<CommunityConfig>) },
  updatedAt: row.updated_at,
});

/** The project's settings; the defaults (and nothing configured) when it never set any. */
export function communitySettings(db: Db, projectId: string): CommunitySettings {
  const row = stmt<SettingsRow>(db, `${SELECT} WHERE project_id = ?`).get(projectId);
  if (row) return toSettings(row);
  return { projectId, guildId: null, webhookSecret: null, oauthClientId: null, oauthClientSecret: null, config: COMMUNITY_DEFAULTS, updatedAt: null };
}

/** The settings of the project that configured this guild, if any. */
export function settingsByGuild(db: Db, guildId: string): CommunitySettings | undefined {
  const row = stmt<SettingsRow>(db, `${SELECT} WHERE guild_id = ?`).get(guildId);
  return row && toSettings(row);
}

export const settingsView = (settings: CommunitySettings): CommunitySettingsView => ({
  guildId: settings.guildId,
  webhookSecretSet: settings.webhookSecret !== null,
  oauthClientId: settings.oauthClientId,
  oauthClientSecretSet: settings.oauthClientSecret !== null,
  ...settings.config,
  updatedAt: settings.updatedAt,
});

export interface CommunitySettingsPatch extends Partial<CommunityConfig> {
  guildId?: string | null | undefined;
  oauthClientId?: string | null | undefined;
  oauthClientSecret?: string | null | undefined;
}

/** The community webhook secret: `cws_` and 32 random bytes, hex (the bot and the sender use it as given). */
const newCommunitySecret = () => `cws_${randomBytes(32).toString('hex')}`;

/**
 * Changes the settings. The webhook secret is generated the first time a guild is set and answered
 * this once (`webhookSecret`); it is stored sealed and can be rotated. A guild belongs to one project.
 */
export function updateCommunitySettings(db: Db, box: SecretBox, projectId: string, patch: CommunitySettingsPatch, now: Date):
  CommunitySettingsView & { webhookSecret?: string } {
  const current = communitySettings(db, projectId);
  const { guildId, oauthClientId, oauthClientSecret, ...config } = patch;
  if (guildId) {
    const owner = settingsByGuild(db, guildId);
    if (owner && owner.projectId !== projectId) throw conflict(`The guild "${guildId}" is already configured by another project.`);
  }
  const nextGuild = guildId === undefined ? current.guildId : guildId;
  const secret = nextGuild !== null && current.webhookSecret === null ? newCommunitySecret() : undefined;
  const merged: CommunityConfig = { ...current.config, ...definedOnly(config) };
  const row: SettingsRow = {
    project_id: projectId,
    guild_id: nextGuild,
    webhook_secret: secret === undefined ? current.webhookSecret : box.seal(secret),
    oauth_client_id: oauthClientId === undefined ? current.oauthClientId : oauthClientId,
    oauth_client_secret: oauthClientSecret === undefined ? current.oauthClientSecret : oauthClientSecret === null ? null : box.seal(oauthClientSecret),
    config: JSON.stringify(merged),
    updated_at: now.toISOString(),
  };
  stmt(db, `INSERT INTO community_settings (project_id, guild_id, webhook_secret, oauth_client_id, oauth_client_secret, config, updated_at)
    VALUES (@project_id, @guild_id, @webhook_secret, @oauth_client_id, @oauth_client_secret, @config, @updated_at)
    ON CONFLICT (project_id) DO UPDATE SET guild_id = excluded.guild_id, webhook_secret = excluded.webhook_secret,
    oauth_client_id = excluded.oauth_client_id, oauth_client_secret = excluded.oauth_client_secret, config = excluded.config,
    updated_at = excluded.updated_at`).run(row);
  const view = settingsView(toSettings(row));
  return secret === undefined ? view : { ...view, webhookSecret: secret };
}

/** A new webhook secret, answered once; the old one stops working at once. */
export function rotateCommunitySecret(db: Db, box: SecretBox, projectId: string, now: Date): { webhookSecret: string } {
  const current = communitySettings(db, projectId);
  if (current.guildId === null) throw conflict('Set the guild id first (PATCH /api/v1/community/settings with "guildId").');
  const webhookSecret = newCommunitySecret();
  stmt(db, 'UPDATE community_settings SET webhook_secret = ?, updated_at = ? WHERE project_id = ?').run(box.seal(webhookSecret), now.toISOString(), projectId);
  return { webhookSecret };
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as Partial<T>;
}

/** The OAuth client linking uses; 400 until the project set its guild, client id and client secret. */
export function oauthClient(box: SecretBox, settings: CommunitySettings): { id: string; secret: string } {
  if (settings.guildId === null || settings.oauthClientId === null || settings.oauthClientSecret === null) {
    throw badRequest('Discord linking is not set up for this project: its guild id, OAuth client id and client secret are needed.');
  }
  return { id: settings.oauthClientId, secret: box.open(settings.oauthClientSecret) };
}
