import type { Db } from '../../db/connection.ts';
import { stmt } from '../../db/statements.ts';
import { atomically } from '../../db/transaction.ts';
import { evaluateBadgeCriteria, grantBadge } from '../badges/member-badges.ts';
import { getItem, listItems, toItem } from '../catalog/catalog-items.ts';
import { badges } from '../catalog/badge-kind.ts';
import { quests, type Quest } from '../catalog/quest-kind.ts';
import { AppError, conflict, forbidden } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { createMember, findMember, memberById, memberView, requireMember, type Member, type MemberRow } from '../members/members.ts';
import { earn, type Earned } from '../multipliers/earn.ts';
import { emit } from '../events/record-event.ts';
import { countCompletion } from '../analytics/figures.ts';

interface ProgressRow {
  id: number;
  public_id: string;
  quest_id: string;
  progress: number;
  target_count: number;
  status: 'IN_PROGRESS' | 'COMPLETED';
  points_awarded: number | null;
  base_points: number | null;
  multiplier: number | null;
  multiplier_event_name: string | null;
  completed_at: string | null;
}

/** A completed quest (SPEC 2, Quest completion). */
export interface QuestCompletion {
  id: string;
  questId: string;
  questName: string;
  pointsAwarded: number;
  basePoints: number;
  multiplier: number;
  multiplierEventName: string | null;
  completedAt: string;
}

/** An attempt's progress (SPEC 2, Quest progress completion). */
export interface QuestProgress {
  id: string;
  progress: number;
  targetCount: number;
  progressPercentage: number;
  status: 'IN_PROGRESS' | 'COMPLETED';
}

const toProgress = (row: ProgressRow): QuestProgress => ({
  id: row.public_id,
  progress: row.progress,
  targetCount: row.target_count,
  progressPercentage: Math.round((row.progress / row.target_count) * 10_000) / 100,
  status: row.status,
});

const toCompletion = (row: ProgressRow, quest: Quest): QuestCompletion => ({
  id: row.public_id,
  questId: quest.id,
  questName: quest.name,
  pointsAwarded: row.points_awarded ?? 0,
  basePoints: row.base_points ?? 0,
  multiplier: row.multiplier ?? 1,
  multiplierEventName: row.multiplier_event_name,
  completedAt: row.completed_at!,
});

const requireQuest = (db: Db, projectId: string, questId: string) => getItem(db, quests, projectId, questId);

/** 403 unless the quest is live, switched on and inside its window now. */
function assertActive(quest: Quest, now: Date): void {
  const at = now.toISOString();
  if (quest.archivedAt !== null) throw forbidden(`The quest "${quest.id}" is archived.`);
  if (!quest.isActive) throw forbidden(`The quest "${quest.id}" is not active.`);
  if (quest.startsAt !== null && at < quest.startsAt) throw forbidden(`The quest "${quest.id}" starts at ${quest.startsAt}.`);
  if (quest.endsAt !== null && at >= quest.endsAt) throw forbidden(`The quest "${quest.id}" ended at ${quest.endsAt}.`);
}

const PROGRESS_SELECT = `SELECT id, public_id, quest_id, progress, target_count, status, points_awarded, base_points, multiplier,
  multiplier_event_name, completed_at FROM quest_progress`;

/**
 * The member's open attempt at the quest, started if there is none. A finished non-repeatable
 * quest answers 409; a repeatable one within its cooldown since the last completion, 429.
 */
function openAttempt(db: Db, quest: Quest, member: MemberRow, now: Date): ProgressRow {
  const open = stmt<ProgressRow>(db, `${PROGRESS_SELECT} WHERE member_id = ? AND quest_id = ? AND status = 'IN_PROGRESS'`).get(member.id, quest.id);
  if (open) return { ...open, target_count: quest.targetCount };
  const last = stmt<string>(db, `SELECT completed_at FROM quest_progress WHERE member_id = ? AND quest_id = ? AND status = 'COMPLETED'
    ORDER BY id DESC LIMIT 1`).pluck().get(member.id, quest.id);
  if (last !== undefined) {
    if (!quest.repeatable) throw conflict(`The member "${member.external_id}" has already completed the quest "${quest.id}", which is not repeatable.`);
    const readyAt = new Date(last).getTime() + quest.cooldownMinutes * 60_000;
    if (now.getTime() < readyAt) {
      const seconds = Math.ceil((readyAt - now.getTime()) / 1000);
      throw new AppError(429, 'Too Many Requests', `The quest "${quest.id}" can be done again in ${seconds} s (cooldown ${quest.cooldownMinutes} min).`,
        { 'retry-after': String(seconds) });
    }
  }
  const at = now.toISOString();
  const { lastInsertRowid } = stmt(db, `INSERT INTO quest_progress (public_id, project_id, quest_id, member_id, progress, target_count, status,
    created_at, updated_at) VALUES (?, ?, ?, ?, 0, ?, 'IN_PROGRESS', ?, ?)`)
    .run(newId('qcp'), member.project_id, quest.id, member.id, quest.targetCount, at, at);
  return stmt<ProgressRow>(db, `${PROGRESS_SELECT} WHERE id = ?`).get(lastInsertRowid)!;
}

interface Advanced {
  row: ProgressRow;
  member: MemberRow;
  /** Set when this step completed the quest. */
  earned?: Earned;
}

/**
 * Completes an attempt: pays the quest's points through earn() (multipliers apply), gives its
 * badge, re-evaluates questsCompleted badge criteria and emits quest.completed, all in the
 * caller's transaction.
 */
function finish(db: Db, quest: Quest, member: MemberRow, row: ProgressRow, actor: string, now: Date): Advanced {
  const earned = earn(db, member, {
    basePoints: quest.points, source: 'quest', actor, description: `Quest completed: ${quest.name}`, referenceId: quest.id,
    metadata: { questId: quest.id, completionId: row.public_id },
  }, now);
  const at = now.toISOString();
  stmt(db, `UPDATE quest_progress SET progress = target_count, status = 'COMPLETED', points_awarded = ?, base_points = ?, multiplier = ?,
    multiplier_event_name = ?, transaction_id = ?, updated_at = ?, completed_at = ? WHERE id = ?`)
    .run(earned.pointsAwarded, earned.basePoints, earned.multiplier, earned.multiplierEvent?.name ?? null, earned.transaction?.id ?? null, at, at, row.id);
  countCompletion(db, member.project_id, quest.id, earned.pointsAwarded, now);
  const completed = stmt<ProgressRow>(db, `${PROGRESS_SELECT} WHERE id = ?`).get(row.id)!;
  const fresh = memberById(db, member.id);
  if (quest.badgeId !== null) {
    const badge = getItem(db, badges, member.project_id, quest.badgeId);
    if (badge.archivedAt === null) grantBadge(db, fresh, badge, 'quest', now);
  }
  evaluateBadgeCriteria(db, fresh, 'questsCompleted', now);
  emit(db, member.project_id, 'quest.completed', {
    memberId: fresh.public_id, externalId: fresh.external_id, ...toCompletion(completed, quest), questId: quest.id, completionId: completed.public_id,
    multiplierEventId: earned.multiplierEvent?.id ?? null, transactionId: earned.transaction?.id ?? null,
  }, now);
  return { row: completed, member: fresh, earned };
}

/** Adds `amount` to the member's open attempt; reaching the target completes it. */
function advance(db: Db, quest: Quest, member: MemberRow, amount: number, metadata: Record<string, unknown> | undefined, actor: string, now: Date): Advanced {
  const row = openAttempt(db, quest, member, now);
  const progress = Math.min(row.progress + amount, row.target_count);
  stmt(db, 'UPDATE quest_progress SET progress = ?, target_count = ?, metadata = coalesce(?, metadata), updated_at = ? WHERE id = ?')
    .run(progress, row.target_count, metadata === undefined ? null : JSON.stringify(metadata), now.toISOString(), row.id);
  const updated = { ...row, progress };
  return progress >= row.target_count ? finish(db, quest, member, updated, actor, now) : { row: updated, member };
}

/**
 * The live AUTOMATED quests an event advances, through quests_automated_action: rowid order comes
 * with the index, where creation-time order made the planner walk the project's whole catalog.
 */
export const MATCHING_QUESTS = `SELECT * FROM quests
  WHERE project_id = ? AND action = ? AND completion_mode = 'AUTOMATED' AND archived_at IS NULL ORDER BY rowid`;

export interface EventInput {
  externalId: string;
  event: string;
  properties?: Record<string, unknown> | undefined;
}

/**
 * POST /events: creates an unknown member, then advances by one every live AUTOMATED quest whose
 * action is the event. Quests that cannot take it now (outside their window, finished and not
 * repeatable, in cooldown) are skipped, not errors: an event is a fact, not a request.
 */
export function trackEvent(db: Db, projectId: string, input: EventInput, actor: string, now: Date) {
  return atomically(db, () => {
    let member = findMember(db, projectId, input.externalId) ?? createMember(db, projectId, input.externalId, {}, now);
    const matching = stmt<Record<string, unknown>>(db, MATCHING_QUESTS).all(projectId, input.event).map((row) => toItem(quests, row));
    const metadata = input.properties === undefined ? { event: input.event } : { event: input.event, properties: input.properties };
    let questsTriggered = 0;
    const questsCompleted: QuestCompletion[] = [];
    for (const quest of matching) {
      const current = member;
      let step: Advanced;
      try {
        // Its own savepoint: a quest that cannot take the event is skipped, and whatever its step
        // wrote before refusing is undone with it, never committed half-done with the rest.
        step = atomically(db, () => {
          assertActive(quest, now);
          return advance(db, quest, current, 1, metadata, actor, now);
        });
      } catch (error) {
        if (error instanceof AppError && error.status !== 400 && error.status < 500) continue;
        throw error;
      }
      questsTriggered++;
      member = step.member;
      if (step.earned) questsCompleted.push(toCompletion(step.row, quest));
    }
    return { tracked: true, event: input.event, externalId: input.externalId, questsTriggered, questsCompleted };
  });
}

export interface ProgressInput {
  externalId: string;
  progress: number;
  metadata?: Record<string, unknown> | undefined;
}

/** POST /quests/{id}/progress: completes the quest when the progress reaches its target. */
export function progressQuest(db: Db, projectId: string, questId: string, input: ProgressInput, actor: string, now: Date):
  { completion: QuestProgress; member: Member; completed: boolean } {
  return atomically(db, () => {
    const quest = requireQuest(db, projectId, questId);
    const member = requireMember(db, projectId, input.externalId);
    assertActive(quest, now);
    const step = advance(db, quest, member, input.progress, input.metadata, actor, now);
    return { completion: toProgress(step.row), member: memberView(db, step.member), completed: step.earned !== undefined };
  });
}

/** POST /quests/{id}/complete, for MANUAL and SELF_REPORT quests: AUTOMATED ones complete through their events (403). */
export function completeQuest(db: Db, projectId: string, questId: string, input: { externalId: string; metadata?: Record<string, unknown> | undefined },
  actor: string, now: Date) {
  return atomically(db, () => {
    const quest = requireQuest(db, projectId, questId);
    const member = requireMember(db, projectId, input.externalId);
    assertActive(quest, now);
    if (quest.completionMode === 'AUTOMATED') {
      throw forbidden(`The quest "${quest.id}" is AUTOMATED: it completes through its "${quest.action}" events (POST /events), not by hand.`);
    }
    const step = advance(db, quest, member, quest.targetCount, input.metadata, actor, now);
    const applied = step.earned!.multiplierEvent;
    return {
      completion: toCompletion(step.row, quest),
      member: memberView(db, step.member),
      multiplierApplied: applied && { id: applied.id, name: applied.name, multiplier: applied.multiplier },
    };
  });
}

/** A member's attempts at quests, oldest first, for the data export. */
export function memberQuestHistory(db: Db, memberId: number) {
  return stmt<Record<string, unknown>>(db, `SELECT p.public_id AS id, p.quest_id AS questId, q.name AS questName, p.progress,
    p.target_count AS targetCount, p.status, p.points_awarded AS pointsAwarded, p.completed_at AS completedAt, p.metadata, p.created_at AS createdAt
    FROM quest_progress p JOIN quests q ON q.id = p.quest_id WHERE p.member_id = ? ORDER BY p.id`).all(memberId)
    .map((row) => ({ ...row, metadata: row.metadata === null ? null : JSON.parse(row.metadata as string) as unknown }));
}

/** A quest as a member sees it in the widget: the definition and how far they have got. */
export interface MemberQuest {
  id: string;
  name: string;
  description: string | null;
  imageUrl: string | null;
  /** Where the shopper does the quest (a review page, the shop's social account); null when it has none. */
  linkUrl: string | null;
  completionMode: Quest['completionMode'];
  points: number;
  targetCount: number;
  repeatable: boolean;
  endsAt: string | null;
  progress: number;
  /** Of the member's latest attempt; null before their first. */
  status: ProgressRow['status'] | null;
}

/** The quests that apply now (at most 100), each with the member's latest progress toward it. */
export function memberQuestBoard(db: Db, projectId: string, externalId: string, now: Date): { quests: MemberQuest[] } {
  const member = requireMember(db, projectId, externalId);
  const latest = new Map(stmt<Pick<ProgressRow, 'quest_id' | 'progress' | 'status'>>(db,
    'SELECT quest_id, progress, status FROM quest_progress WHERE member_id = ? ORDER BY id').all(member.id).map((row) => [row.quest_id, row]));
  const live = listItems(db, quests, projectId, { limit: 100, offset: 0, active: true }, now).items;
  return {
    quests: live.map((quest) => ({
      id: quest.id, name: quest.name, description: quest.description, imageUrl: quest.imageUrl, linkUrl: quest.linkUrl, completionMode: quest.completionMode,
      points: quest.points, targetCount: quest.targetCount, repeatable: quest.repeatable, endsAt: quest.endsAt,
      progress: latest.get(quest.id)?.progress ?? 0, status: latest.get(quest.id)?.status ?? null,
    })),
  };
}

/**
 * POST /api/widget/quests/{id}/report: the member says they did one step of a SELF_REPORT quest
 * (all of it when its target is 1). Other quests are the shop's to complete (403). The points
 * paid, with base and multiplier, come from the completed attempt.
 */
export function reportQuest(db: Db, projectId: string, questId: string, externalId: string, now: Date) {
  return atomically(db, () => {
    const quest = requireQuest(db, projectId, questId);
    if (quest.completionMode !== 'SELF_REPORT') {
      throw forbidden(`The quest "${quest.id}" is ${quest.completionMode}: the shop completes it, the shopper cannot report it.`);
    }
    const { completion, member, completed } = progressQuest(db, projectId, questId, { externalId, progress: 1 }, 'widget', now);
    const paid = completed ? stmt<ProgressRow>(db, `${PROGRESS_SELECT} WHERE public_id = ?`).get(completion.id)! : null;
    return {
      progress: completion, completed,
      pointsAwarded: paid?.points_awarded ?? 0, basePoints: paid?.base_points ?? 0, multiplier: paid?.multiplier ?? 1,
      member: { points: member.points },
    };
  });
}
