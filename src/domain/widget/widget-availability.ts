import type { Db } from '../../db/connection.ts';
import { nextLocalMidnight, projectTimeZone } from '../project/calendar.ts';
import { checkinStatus } from '../games/checkin.ts';
import { playableGames, requireGame, playLimit, type GameView } from '../games/play.ts';
import { requireMember } from '../members/members.ts';
import type { EarningSource } from '../catalog/multiplier-kind.ts';
import { activeMultipliers } from '../multipliers/earn.ts';
import { memberQuestBoard } from '../quests/quest-progress.ts';
import { shareStatus, type ShareStatus } from '../share/share.ts';
import { requireFeature, type WidgetProjectConfig } from './widget-config.ts';

/**
 * Why an action is closed for the member now and when it opens again, so the widget can say so
 * beside the disabled button: `reason` null = open; `availableAt` null = it never opens again.
 */
export interface Availability {
  reason: 'max' | 'daily' | 'cooldown' | null;
  availableAt: string | null;
}

const OPEN: Availability = { reason: null, availableAt: null };

/** The multiplier that applies to `source` now (1 without a running event): base × multiplier = points. */
export const multiplierNow = (db: Db, projectId: string, now: Date, source: EarningSource) =>
  activeMultipliers(db, projectId, now, source)[0]?.multiplier ?? 1;

export function gameAvailability(db: Db, projectId: string, gameId: string, externalId: string, now: Date): Availability {
  const limit = playLimit(db, requireGame(db, projectId, gameId), requireMember(db, projectId, externalId), now);
  return limit ? { reason: limit.reason, availableAt: limit.until?.toISOString() ?? null } : OPEN;
}

/** A check-in opens again at the next local midnight of the project's time zone. */
export function checkinAvailability(db: Db, projectId: string, canCheckin: boolean, now: Date): Availability {
  return canCheckin ? OPEN : { reason: 'daily', availableAt: nextLocalMidnight(now, projectTimeZone(db, projectId)).toISOString() };
}

/** The daily limit wins over the cooldown: it opens later. */
export function shareAvailability(db: Db, projectId: string, status: ShareStatus, now: Date): Availability {
  if (status.todayShares >= status.maxSharesPerDay) return { reason: 'daily', availableAt: nextLocalMidnight(now, projectTimeZone(db, projectId)).toISOString() };
  return status.cooldownEndsAt ? { reason: 'cooldown', availableAt: status.cooldownEndsAt } : OPEN;
}

/**
 * What a shopper sees of a game's prizes: each one's chance (`odds`, weight / total weight) where
 * the game shows its odds; where it does not, neither the odds nor the weights they come from.
 */
function prizesShown({ prizes, showOdds }: GameView) {
  const total = prizes.reduce((sum, prize) => sum + prize.weight, 0);
  return prizes.map(({ name, value, weight }) => (showOdds ? { name, value, weight, odds: weight / total } : { name, value, weight: null, odds: null }));
}

/**
 * The games as the widget shows them: `games` and `checkin` are separate features, so each shows
 * only its own kind. Each game says whether the member may play now and the multiplier its prizes get now.
 */
export function widgetGames(db: Db, projectId: string, externalId: string, config: WidgetProjectConfig, now: Date) {
  const { games, checkin } = config.widgetSettings.features;
  if (!games && !checkin) requireFeature(config, 'games');
  const live = playableGames(db, projectId).games.filter((game) => (game.type === 'DAILY_CHECKIN' ? checkin : games));
  return {
    games: live.map((game) => ({
      ...game,
      prizes: prizesShown(game),
      multiplier: multiplierNow(db, projectId, now, game.type === 'DAILY_CHECKIN' ? 'checkin' : 'game'),
      availability: game.type === 'DAILY_CHECKIN' ? null : gameAvailability(db, projectId, game.id, externalId, now),
    })),
  };
}

/** The member's check-in: its status, when it opens again and its multiplier. */
export function widgetCheckin(db: Db, projectId: string, gameId: string, externalId: string, now: Date) {
  const status = checkinStatus(db, projectId, gameId, externalId, now);
  return { ...status, multiplier: multiplierNow(db, projectId, now, 'checkin'), availability: checkinAvailability(db, projectId, status.canCheckin, now) };
}

/** The quests that apply now, each with the member's progress and the multiplier a completion would get now. */
export function widgetQuests(db: Db, projectId: string, externalId: string, now: Date) {
  const multiplier = multiplierNow(db, projectId, now, 'quest');
  return { quests: memberQuestBoard(db, projectId, externalId, now).quests.map((quest) => ({ ...quest, multiplier })) };
}

/** What sharing pays (base and the multiplier now) and whether the member may share now, with why not and until when. */
export function widgetShare(db: Db, projectId: string, externalId: string, now: Date) {
  const status = shareStatus(db, projectId, externalId, now);
  return { ...status, multiplier: multiplierNow(db, projectId, now, 'share'), availability: shareAvailability(db, projectId, status, now) };
}
