import type { Db } from '../../db/connection.ts';
import { atomically } from '../../db/transaction.ts';
import { countTransactions, recentTransactions, type Transaction } from '../ledger/ledger.ts';
import { adoptImportedMember } from '../members/imported-email.ts';
import { findMember, memberById, requireMember, updateMember, upsertMember, type MemberProfile, type MemberRow } from '../members/members.ts';
import { type Page, pageOf } from '../../shared/page.ts';
import { activeMultipliers, earn } from '../multipliers/earn.ts';
import type { WriteRunner } from '../ledger/expiry.ts';
import type { SecretBox } from '../../shared/secrets.ts';
import type { WidgetProjectConfig, WidgetSettings } from './widget-config.ts';
import { widgetLevel, type WidgetLevel } from './widget-level.ts';
import { issueWidgetSession, type IssuedSession, type WidgetSession } from './widget-session.ts';

/** The member as the widget's init shows it (SPEC 4.2). */
export interface WidgetMember {
  id: string;
  externalId: string;
  name: string | null;
  email: string | null;
  points: number;
  totalPointsEarned: number;
  currentStreak: number;
  longestStreak: number;
}

/** The widget profile view: the member without metadata, plus check-in and membership dates. */
export interface WidgetProfile extends WidgetMember {
  avatarUrl: string | null;
  lastCheckinAt: string | null;
  memberSince: string;
}

export interface WidgetInit {
  project: { name: string; widgetSettings: Omit<WidgetSettings, 'allowedOrigins'> };
  member: WidgetMember;
  /** The running multiplier events; `sources` null = every way of earning. */
  activeMultipliers: { name: string; multiplier: number; endsAt: string; sources: string[] | null }[];
  /** Points paid by this very call as the welcome bonus; 0 on every later init. */
  welcomeBonus: number;
  /** The member's level and the next one, for the home's progress bar. */
  level: WidgetLevel;
}

const toWidgetMember = (row: MemberRow): WidgetMember => ({
  id: row.public_id,
  externalId: row.external_id,
  name: row.name,
  email: row.email,
  points: row.points,
  totalPointsEarned: row.total_points_earned,
  currentStreak: row.current_streak,
  longestStreak: row.longest_streak,
});

const toWidgetProfile = (row: MemberRow): WidgetProfile => ({
  ...toWidgetMember(row),
  avatarUrl: row.avatar_url,
  lastCheckinAt: row.last_checkin_at,
  memberSince: row.created_at,
});

const PROFILE_FIELDS = { email: 'email', name: 'name', avatarUrl: 'avatar_url', phone: 'phone', dateOfBirth: 'date_of_birth' } as const;

/** Only what the page sent and the member does not already have, so a page view writes nothing new. */
function changedProfile(row: MemberRow, profile: MemberProfile): MemberProfile {
  return Object.fromEntries(Object.entries(profile).filter(([field, value]) =>
    value !== undefined && row[PROFILE_FIELDS[field as keyof typeof PROFILE_FIELDS]] !== value)) as MemberProfile;
}

/**
 * Whether init has anything to write: a member to create or profile fields that changed. Most
 * page views have neither, and then init answers from `initAnswer` without a transaction.
 */
function initNeedsWrite(db: Db, projectId: string, externalId: string, profile: MemberProfile): boolean {
  const existing = findMember(db, projectId, externalId);
  return !existing || Object.keys(changedProfile(existing, profile)).length > 0;
}

/**
 * The widget's start: creates the member on first sight (paying the project's welcome bonus
 * exactly then) or brings their profile up to date with what the shop's page passed. On first sight
 * with a signed email that an import made a member for, that member is taken over instead (no
 * welcome bonus: they are a customer from before).
 */
function initWidgetMember(
  db: Db,
  projectId: string,
  config: WidgetProjectConfig,
  externalId: string,
  profile: MemberProfile,
  now: Date,
): WidgetInit {
  return atomically(db, () => {
    const existing = findMember(db, projectId, externalId) ?? adoptImportedMember(db, projectId, externalId, profile.email, now);
    let welcomeBonus = 0;
    if (!existing) {
      const { member } = upsertMember(db, projectId, { ...profile, externalId }, now);
      if (config.welcomeBonus > 0) {
        welcomeBonus = earn(db, requireMember(db, projectId, member.externalId), {
          basePoints: config.welcomeBonus, source: 'welcome', actor: 'widget', description: 'Welcome bonus',
        }, now).pointsAwarded;
      }
    } else {
      const changes = changedProfile(existing, profile);
      if (Object.keys(changes).length > 0) updateMember(db, projectId, externalId, changes, now);
    }
    return initAnswer(db, projectId, config, externalId, now, welcomeBonus);
  });
}

/**
 * The widget's start: writes (through `write`, the next group commit) only on a member's first visit
 * or changed profile fields, so most page views take no write lock. Called with a signed ticket, it
 * also hands out a session that the widget sends as `Authorization: Bearer` from then on.
 */
export async function startWidget(
  db: Db,
  box: SecretBox,
  write: WriteRunner,
  session: WidgetSession,
  config: WidgetProjectConfig,
  now: Date,
): Promise<WidgetInit & { session?: IssuedSession }> {
  const { projectId, externalId, keyId, member } = session;
  const answer: WidgetInit & { session?: IssuedSession } = initNeedsWrite(db, projectId, externalId, member)
    ? await write(() => initWidgetMember(db, projectId, config, externalId, member, now))
    : initAnswer(db, projectId, config, externalId, now);
  if (session.ticket) {
    answer.session = issueWidgetSession(db, box, { projectId, externalId, keyId, publicId: answer.member.id }, config.widgetSettings.sessionHours, now);
  }
  return answer;
}

/** What init answers; read-only, so a page view that changes nothing takes no write lock. */
function initAnswer(db: Db, projectId: string, config: WidgetProjectConfig, externalId: string, now: Date, welcomeBonus = 0): WidgetInit {
  const { allowedOrigins: _origins, ...widgetSettings } = config.widgetSettings;
  const member = requireMember(db, projectId, externalId);
  return {
    project: { name: config.name, widgetSettings },
    member: toWidgetMember(member),
    activeMultipliers: activeMultipliers(db, projectId, now)
      .map(({ name, multiplier, endsAt, sources }) => ({ name, multiplier, endsAt, sources })),
    welcomeBonus,
    level: widgetLevel(db, projectId, member.total_points_earned, member.level_floor),
  };
}

export const widgetProfile = (db: Db, projectId: string, externalId: string): WidgetProfile => toWidgetProfile(requireMember(db, projectId, externalId));

export function updateWidgetProfile(db: Db, projectId: string, externalId: string, profile: Pick<MemberProfile, 'name' | 'avatarUrl'>, now: Date): WidgetProfile {
  return atomically(db, () => {
    const row = requireMember(db, projectId, externalId);
    const changes = changedProfile(row, profile);
    if (Object.keys(changes).length > 0) updateMember(db, projectId, externalId, changes, now);
    return toWidgetProfile(memberById(db, row.id));
  });
}

/** What a history line says, for the widget to word in the shopper's language (docs/widget.md, History entries). */
export interface HistoryEntry {
  kind: string;
  params: Record<string, string | number>;
}

/** What a member sees of a transaction: no operator audit fields (actor, metadata). */
export type WidgetTransaction = Pick<Transaction, 'id' | 'amount' | 'balance' | 'type' | 'source' | 'description' | 'referenceId' | 'createdAt'> & {
  entry: HistoryEntry;
};

/**
 * The descriptions the server itself writes, by source: each becomes a kind with the names it
 * carries. They are the ledger's record (the server API keeps `description`), so old lines map too.
 */
const DESCRIBED: [source: string, pattern: RegExp, kind: string, names: string[]][] = [
  ['quest', /^Quest completed: (.*)$/s, 'quest_completed', ['quest']],
  ['reward', /^Reward claimed: (.*)$/s, 'reward_claimed', ['reward']],
  ['game', /^Won (.*) in (.*)$/s, 'game_won', ['prize', 'game']],
  ['game', /^Played (.*)$/s, 'game_played', ['game']],
  ['checkin', /^Daily check-in \(day (\d+)\)$/, 'checkin', ['day']],
  ['checkin', /^Check-in streak bonus: day (\d+)$/, 'checkin_bonus', ['day']],
  ['share', /^Shared on (.*)$/, 'shared', ['platform']],
  ['promo', /^Promo code (.*)$/, 'promo_code', ['code']],
  ['referral', /^Referral converted: /, 'referral_converted', []],
  ['referral', /^Referral welcome reward$/, 'referral_welcome', []],
  ['welcome', /^/, 'welcome_bonus', []],
];

/**
 * The kind and parameters of a history line. Lines the server wrote map to their own kind; the
 * rest (the shop's orders and events, the operator's corrections) are named by their type, with
 * the shop's own text as `note`. A referral names no one: the friend's id is the shop's, not the member's.
 */
export function historyEntry(transaction: Pick<Transaction, 'type' | 'source' | 'description' | 'amount'>): HistoryEntry {
  const description = transaction.description ?? '';
  for (const [source, pattern, kind, names] of DESCRIBED) {
    const match = transaction.source === source ? pattern.exec(description) : null;
    if (match) {
      return { kind, params: Object.fromEntries(names.map((name, i) => [name, name === 'day' ? Number(match[i + 1]) : match[i + 1]!])) };
    }
  }
  if (transaction.type === 'EXPIRED') return { kind: 'points_expired', params: { points: Math.abs(transaction.amount) } };
  // The description names the old programme and the file, for the shop: not the shopper's words.
  if (transaction.type === 'IMPORTED') return { kind: 'points_imported', params: {} };
  const kind = { EARNED: 'points_earned', REDEEMED: 'reward_claimed', SPENT: 'points_spent', DEDUCTED: 'adjustment', REFUNDED: 'refund' }[transaction.type] ?? 'adjustment';
  return { kind, params: description ? { note: description } : {} };
}

export function widgetHistory(
  db: Db,
  projectId: string,
  externalId: string,
  query: { limit: number; offset: number },
): { transactions: WidgetTransaction[]; pagination: Page } {
  const member = requireMember(db, projectId, externalId);
  const total = countTransactions(db, member.id);
  const transactions = recentTransactions(db, member.id, query.limit, query.offset)
    .map(({ id, amount, balance, type, source, description, referenceId, createdAt }) =>
      ({ id, amount, balance, type, source, description, referenceId, createdAt, entry: historyEntry({ type, source, description, amount }) }));
  return {
    transactions,
    pagination: pageOf(total, query, transactions.length),
  };
}
