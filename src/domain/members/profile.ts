import type { Db } from '../../db/connection.ts';
import { stmt } from '../../db/statements.ts';
import { type Page, pageOf } from '../../shared/page.ts';
import { listMemberBadges, type MemberBadge } from '../badges/member-badges.ts';
import { countTransactions, recentTransactions, type Transaction } from '../ledger/ledger.ts';
import { referralSummary } from '../referrals/referrals.ts';
import { memberClaims, type Claim } from '../rewards/claims.ts';
import { memberView, requireMember, type Member } from './members.ts';

export interface MemberQuestAttempt {
  questId: string;
  name: string;
  progress: number;
  targetCount: number;
  status: 'IN_PROGRESS' | 'COMPLETED';
  completedAt: string | null;
}

/** What the admin's member page shows: the member, their level, badges, quests, claims and referrals. */
export interface MemberProfileView {
  member: Member;
  level: { level: number; name: string | null } | null;
  badges: MemberBadge[];
  /** The latest attempt at each quest the member started, newest first. */
  quests: MemberQuestAttempt[];
  claims: Claim[];
  referral: ReturnType<typeof referralSummary>;
}

export function memberProfile(db: Db, projectId: string, externalId: string): MemberProfileView {
  const row = requireMember(db, projectId, externalId);
  const member = memberView(db, row);
  // The newest attempt per quest: with max(), SQLite takes the other columns from the row holding it.
  const quests = stmt<MemberQuestAttempt & { latest: number }>(db, `SELECT max(p.id) AS latest, p.quest_id AS questId, q.name, p.progress,
    p.target_count AS targetCount, p.status, p.completed_at AS completedAt FROM quest_progress p JOIN quests q ON q.id = p.quest_id
    WHERE p.member_id = ? GROUP BY p.quest_id ORDER BY latest DESC`).all(row.id).map(({ latest: _latest, ...attempt }) => attempt);
  return {
    member,
    level: member.level === 0 ? null : { level: member.level, name: member.levelName },
    badges: listMemberBadges(db, projectId, externalId).badges,
    quests,
    claims: memberClaims(db, projectId, externalId).claims,
    referral: referralSummary(db, row),
  };
}

/** A member's ledger, newest first, a page at a time. */
export function memberTransactions(db: Db, projectId: string, externalId: string, page: { limit: number; offset: number }):
  { transactions: Transaction[]; pagination: Page } {
  const row = requireMember(db, projectId, externalId);
  const total = countTransactions(db, row.id);
  const transactions = recentTransactions(db, row.id, page.limit, page.offset);
  return { transactions, pagination: pageOf(total, page, transactions.length) };
}
