import type { Db } from '../../db/connection.ts';
import { stmt } from '../../db/statements.ts';
import { atomically } from '../../db/transaction.ts';
import { DAY_MS } from '../../shared/clock.ts';
import { nextLocalMidnight, projectTimeZone } from '../project/calendar.ts';
import { memberById, type MemberRow } from '../members/members.ts';
import { earn } from '../multipliers/earn.ts';
import { postToLedger } from '../ledger/ledger.ts';
import { activityRule, type CommunityConfig, type CommunityEventType, type CommunitySettings } from './settings.ts';

/** The member linked to a community user in the project's guild. */
export const linkedMemberId = (db: Db, projectId: string, guildId: string, communityUserId: string): number | undefined =>
  stmt<number>(db, 'SELECT member_id FROM community_links WHERE project_id = ? AND guild_id = ? AND community_user_id = ?').pluck()
    .get(projectId, guildId, communityUserId);

/** One community event, as validated from a delivery or translated by the bot. */
export interface CommunityEvent {
  eventId: string;
  eventType: CommunityEventType;
  communityUserId: string;
  communityUsername?: string | undefined;
  roles?: string[] | undefined;
  channelId?: string | undefined;
  voiceMinutes?: number | undefined;
  inviterId?: string | undefined;
}

/**
 * Why an accepted event paid what it paid. `partial`: paid up to the daily cap, which it reached.
 * Every outcome but awarded and partial pays nothing.
 */
export type CommunityOutcome =
  | 'awarded' | 'partial' | 'cooldown' | 'daily_limit' | 'already_awarded' | 'channel_not_eligible' | 'session_too_short' | 'not_linked'
  | 'no_points';

export interface CommunityAnswer {
  success: true;
  pointsAwarded: number;
  multiplier: number;
  cooldownActive: boolean;
  dailyLimitReached: boolean;
  linked: boolean;
  outcome: CommunityOutcome;
}

/** How long the event log keeps a row: caps need a local day, cooldowns at most a day, replays the 5-minute window. */
export const COMMUNITY_LOG_RETENTION_MS = 7 * DAY_MS;
/** Each insert deletes at most this many expired rows: the table stays bounded by traffic × retention, at a constant cost per event. */
const PRUNE_PER_INSERT = 2;

interface EventRow {
  member_id: number | null;
  outcome: CommunityOutcome;
  points: number;
  multiplier: number;
}

const answerOf = (row: EventRow): CommunityAnswer => ({
  success: true,
  pointsAwarded: row.points,
  multiplier: row.multiplier,
  cooldownActive: row.outcome === 'cooldown',
  dailyLimitReached: row.outcome === 'daily_limit' || row.outcome === 'partial',
  linked: row.outcome !== 'not_linked',
  outcome: row.outcome,
});

/** Per time zone, the last local day computed: every capped award asks, and Intl formatting costs more than the rest of the check. */
const recentDays = new Map<string, { start: number; end: number }>();

/**
 * The instant the local day holding `at` began. Days are 23 to 25 hours long, so a moment 25 h
 * earlier lies before it; walking midnight to midnight from there lands on it (at most twice).
 */
export function localDayStart(at: Date, timeZone: string): Date {
  const time = at.getTime();
  const recent = recentDays.get(timeZone);
  if (recent && time >= recent.start && time < recent.end) return new Date(recent.start);
  let start = nextLocalMidnight(new Date(time - DAY_MS - 3_600_000), timeZone);
  let end = nextLocalMidnight(start, timeZone);
  while (end <= at) {
    start = end;
    end = nextLocalMidnight(start, timeZone);
  }
  recentDays.set(timeZone, { start: start.getTime(), end: end.getTime() });
  return start;
}

const isChannelEligible = (config: CommunityConfig, channelId: string | undefined): boolean => {
  if (channelId === undefined) return true;
  if (config.includedChannels.length > 0) return config.includedChannels.includes(channelId);
  return !config.excludedChannels.includes(channelId);
};

/** The highest multiplier among the bonus roles the user holds; 1 with none. */
export function roleMultiplier(config: CommunityConfig, roles: string[] | undefined): number {
  let best: number | undefined;
  for (const role of roles ?? []) {
    const value = config.bonusRoles[role];
    if (value !== undefined && (best === undefined || value > best)) best = value;
  }
  return best ?? 1;
}

/**
 * Receives one community event for a project, in one transaction: a replayed eventId (of the same
 * user) is answered with its first result; otherwise the event is recorded and, when the user is
 * linked and the activity is eligible, paid through the ledger within its cooldown, daily cap
 * (partially, up to the cap) and one-time rules. Limits answer 200 with their flags, never errors.
 */
export function receiveCommunityEvent(db: Db, settings: CommunitySettings, event: CommunityEvent, now: Date): CommunityAnswer & { replayed: boolean } {
  return atomically(db, () => {
    const { projectId } = settings;
    const first = stmt<EventRow>(db, `SELECT member_id, outcome, points, multiplier FROM community_events
      WHERE project_id = ? AND event_id = ? AND community_user_id = ? AND status = 200`).get(projectId, event.eventId, event.communityUserId);
    if (first) return { ...answerOf(first), replayed: true };
    const memberId = settings.guildId === null ? undefined : linkedMemberId(db, projectId, settings.guildId, event.communityUserId);
    const decided = decide(db, settings, event, memberId, now);
    insertEvent(db, projectId, {
      eventId: event.eventId, eventType: event.eventType, communityUserId: event.communityUserId, memberId: memberId ?? null, status: 200,
      outcome: decided.outcome, basePoints: decided.basePoints, points: decided.points, multiplier: decided.multiplier, error: null,
    }, now);
    return { ...answerOf({ member_id: memberId ?? null, ...decided }), replayed: false };
  });
}

interface Decision {
  outcome: CommunityOutcome;
  basePoints: number;
  points: number;
  multiplier: number;
}

function decide(db: Db, settings: CommunitySettings, event: CommunityEvent, memberId: number | undefined, now: Date): Decision {
  const { projectId, config } = settings;
  const rule = activityRule(config, event.eventType);
  const nothing = (outcome: CommunityOutcome): Decision => ({ outcome, basePoints: 0, points: 0, multiplier: 1 });
  if (memberId === undefined) return nothing('not_linked');
  if (!isChannelEligible(config, event.channelId)) return nothing('channel_not_eligible');
  let base = rule.points;
  if (event.eventType === 'VOICE_SESSION') {
    const minutes = event.voiceMinutes ?? 0;
    if (minutes < config.voiceMinMinutes || minutes === 0) return nothing('session_too_short');
    base = rule.points * minutes;
  }
  if (base <= 0) return nothing('no_points');
  if (rule.once && alreadyAwarded(db, projectId, event.communityUserId, event.eventType)) return nothing('already_awarded');
  const awards = `FROM community_events WHERE project_id = ? AND community_user_id = ? AND event_type = ? AND outcome IN ('awarded', 'partial')`;
  if (rule.cooldownSecs !== null && rule.cooldownSecs > 0) {
    const last = stmt<number>(db, `SELECT max(created_at) ${awards}`).pluck().get(projectId, event.communityUserId, event.eventType);
    if (last != null && now.getTime() - last < rule.cooldownSecs * 1000) return nothing('cooldown');
  }
  let outcome: CommunityOutcome = 'awarded';
  if (rule.dailyCap !== null) {
    const since = localDayStart(now, projectTimeZone(db, projectId)).getTime();
    const used = stmt<number>(db, `SELECT coalesce(sum(base_points), 0) ${awards} AND created_at >= ?`).pluck()
      .get(projectId, event.communityUserId, event.eventType, since)!;
    const left = rule.dailyCap - used;
    if (left <= 0) return nothing('daily_limit');
    if (base >= left) {
      base = left;
      outcome = 'partial';
    }
  }
  if (rule.once) {
    stmt(db, 'INSERT INTO community_once (project_id, community_user_id, event_type, created_at) VALUES (?, ?, ?, ?)')
      .run(projectId, event.communityUserId, event.eventType, now.toISOString());
  }
  const paid = pay(db, config, memberById(db, memberId), event, base, now);
  return { outcome, basePoints: base, ...paid };
}

const alreadyAwarded = (db: Db, projectId: string, communityUserId: string, type: CommunityEventType): boolean =>
  stmt(db, 'SELECT 1 FROM community_once WHERE project_id = ? AND community_user_id = ? AND event_type = ?').get(projectId, communityUserId, type) !== undefined;

/** Pays through the ledger: bonus roles first, then (when the project allows) the multiplier events of source `community`. */
function pay(db: Db, config: CommunityConfig, member: MemberRow, event: CommunityEvent, base: number, now: Date): { points: number; multiplier: number } {
  const roles = roleMultiplier(config, event.roles);
  const amount = Math.round(base * roles);
  if (amount <= 0) return { points: 0, multiplier: roles };
  const description = `Community: ${event.eventType.toLowerCase().replaceAll('_', ' ')}`;
  const metadata = {
    eventId: event.eventId, eventType: event.eventType, communityUserId: event.communityUserId,
    ...(roles === 1 ? {} : { roleMultiplier: roles }), ...(event.inviterId ? { inviterId: event.inviterId } : {}),
  };
  const posting = { source: 'community' as const, actor: 'community', description, referenceId: event.eventId, metadata };
  if (!config.applyMultipliers) {
    postToLedger(db, member, { ...posting, amount, type: 'EARNED' }, now);
    return { points: amount, multiplier: roles };
  }
  const earned = earn(db, member, { ...posting, basePoints: amount }, now);
  return { points: earned.pointsAwarded, multiplier: roles * earned.multiplier };
}

export interface LoggedEvent {
  eventId: string | null;
  eventType: string | null;
  communityUserId: string | null;
  memberId: number | null;
  status: number;
  outcome: string;
  basePoints: number;
  points: number;
  multiplier: number;
  error: string | null;
}

/** Writes one row of the event log and deletes a few rows past the retention. */
export function insertEvent(db: Db, projectId: string, row: LoggedEvent, now: Date): void {
  stmt(db, `INSERT INTO community_events (project_id, event_id, event_type, community_user_id, member_id, status, outcome, base_points, points,
    multiplier, error, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(projectId, row.eventId, row.eventType, row.communityUserId,
    row.memberId, row.status, row.outcome, row.basePoints, row.points, row.multiplier, row.error, now.getTime());
  stmt(db, `DELETE FROM community_events WHERE id IN (SELECT id FROM community_events WHERE project_id = ? ORDER BY id LIMIT ?)
    AND created_at < ?`).run(projectId, PRUNE_PER_INSERT, now.getTime() - COMMUNITY_LOG_RETENTION_MS);
}
