import { randomInt } from 'node:crypto';
import type { Db } from '../../db/connection.ts';
import { stmt } from '../../db/statements.ts';
import { atomically } from '../../db/transaction.ts';
import { localDate, nextLocalMidnight, projectTimeZone, tooSoon } from '../project/calendar.ts';
import { getItem, liveItems } from '../catalog/catalog-items.ts';
import { games, type Game, type Prize } from '../catalog/game-kind.ts';
import { AppError, badRequest, forbidden } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { postToLedger } from '../ledger/ledger.ts';
import { memberById, requireMember, type MemberRow } from '../members/members.ts';
import { earn } from '../multipliers/earn.ts';

/** A uniform whole number in [0, max). Production draws use node:crypto; tests may pass a seeded one. */
export type Rng = (max: number) => number;
export const cryptoRng: Rng = (max) => randomInt(max);

export const requireGame = (db: Db, projectId: string, gameId: string) => getItem(db, games, projectId, gameId);

/** A game as the widget shows it (SPEC 2, Game widget view), with its description, image and check-in points. */
export type GameView = Pick<Game, 'id' | 'name' | 'description' | 'imageUrl' | 'type' | 'pointsCost' | 'maxPlaysPerUser' | 'dailyPlaysLimit'
  | 'cooldownMinutes' | 'prizes' | 'checkinPoints' | 'streakBonuses' | 'showOdds'>;

/** The widget's GET /games: the games a member can play now (switched on, not archived), in catalog order. */
export function playableGames(db: Db, projectId: string): { games: GameView[] } {
  const live = liveItems(db, games, projectId).filter((game) => game.isActive);
  return {
    games: live.map(({ id, name, description, imageUrl, type, pointsCost, maxPlaysPerUser, dailyPlaysLimit, cooldownMinutes, prizes, checkinPoints, streakBonuses, showOdds }) =>
      ({ id, name, description, imageUrl, type, pointsCost, maxPlaysPerUser, dailyPlaysLimit, cooldownMinutes, prizes, checkinPoints, streakBonuses, showOdds })),
  };
}

/** 403 unless the game is live and switched on; 400 when the route does not fit the game's type. */
export function assertPlayable(game: Game, checkin: boolean): void {
  if (game.archivedAt !== null) throw forbidden(`The game "${game.id}" is archived.`);
  if (!game.isActive) throw forbidden(`The game "${game.id}" is not active.`);
  if (checkin && game.type !== 'DAILY_CHECKIN') throw badRequest(`The game "${game.id}" is a ${game.type}: play it with POST /games/${game.id}/play.`);
  if (!checkin && game.type === 'DAILY_CHECKIN') throw badRequest(`The game "${game.id}" is a DAILY_CHECKIN: use POST /games/${game.id}/checkin.`);
}

/** The index of the prize drawn, each prize with probability weight / total weight. */
export function drawPrize(prizes: Prize[], rng: Rng): number {
  const total = prizes.reduce((sum, prize) => sum + prize.weight, 0);
  let ticket = rng(total);
  for (const [index, prize] of prizes.entries()) {
    if (ticket < prize.weight) return index;
    ticket -= prize.weight;
  }
  throw new Error(`drawPrize: ticket beyond the total weight ${total}`);
}

/** Why a member may not play a game now, and when they may again (null: never, the lifetime maximum). */
export interface PlayLimit {
  reason: 'max' | 'daily' | 'cooldown';
  until: Date | null;
  message: string;
}

/**
 * The member's limit on the game now, or null when they may play: the lifetime maximum, today's
 * plays (until the next local midnight) or the cooldown since the last play.
 */
export function playLimit(db: Db, game: Game, member: MemberRow, now: Date): PlayLimit | null {
  const timeZone = projectTimeZone(db, member.project_id);
  const today = localDate(now, timeZone);
  // Each count reads only what its limit needs, so an unlimited game costs nothing however often it is played.
  const plays = (condition: string, ...params: unknown[]) =>
    stmt<number>(db, `SELECT count(*) FROM game_plays WHERE member_id = ? AND game_id = ? ${condition}`).pluck().get(member.id, game.id, ...params)!;
  if (game.maxPlaysPerUser !== null && plays('') >= game.maxPlaysPerUser) {
    return { reason: 'max', until: null, message: `The member "${member.external_id}" has played "${game.id}" ${game.maxPlaysPerUser} times, the most allowed (maxPlaysPerUser).` };
  }
  if (game.dailyPlaysLimit !== null && plays('AND local_day = ?', today) >= game.dailyPlaysLimit) {
    return { reason: 'daily', until: nextLocalMidnight(now, timeZone),
      message: `The member "${member.external_id}" has played "${game.id}" ${game.dailyPlaysLimit} times today, the daily limit (dailyPlaysLimit).` };
  }
  if (game.cooldownMinutes > 0) {
    const last = stmt<string>(db, `SELECT played_at FROM game_plays WHERE member_id = ? AND game_id = ?
      ORDER BY local_day DESC, played_at DESC LIMIT 1`).pluck().get(member.id, game.id);
    const readyAt = new Date(Date.parse(last ?? '') + game.cooldownMinutes * 60_000);
    if (last !== undefined && now < readyAt) return { reason: 'cooldown', until: readyAt, message: `The game "${game.id}" has a ${game.cooldownMinutes} min cooldown between plays.` };
  }
  return null;
}

/** 429 when the member may not play now; Retry-After unless the limit never frees up. */
function assertWithinLimits(db: Db, game: Game, member: MemberRow, now: Date): void {
  const limit = playLimit(db, game, member, now);
  if (limit === null) return;
  throw limit.until === null ? new AppError(429, 'Too Many Requests', limit.message) : tooSoon(limit.message, now, limit.until);
}

/** What the widget animates, decided here so the page cannot choose its own prize. Indexes point into the game's prizes. */
export type Animation =
  | { type: 'SPIN_WHEEL'; segmentIndex: number; segments: number }
  | { type: 'SLOTS'; reels: [number, number, number] }
  | { type: 'DICE'; dice: [number, number] }
  | { type: 'SCRATCH_CARD'; grid: (number | null)[] };

/** Fisher–Yates with the given RNG. */
function shuffle<T>(items: T[], rng: Rng): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = rng(i + 1);
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

/**
 * SPIN_WHEEL: the wheel has one segment per prize, in catalog order; it stops on the prize's.
 * SLOTS: three reels of prize symbols; a prize worth points lines up three of its symbol, a
 * prize worth nothing shows a mixed line (never three of a kind) when there is more than one symbol.
 * DICE: two dice faces (1–6) rolled for show; the prize is the weighted draw, shown with them.
 * SCRATCH_CARD: a 3×3 grid where the prize's symbol appears exactly three times and no other
 * symbol more than twice (null cells are blanks).
 */
export function animationFor(game: Game, prizeIndex: number, rng: Rng): Animation {
  const count = game.prizes.length;
  const others = [...game.prizes.keys()].filter((index) => index !== prizeIndex);
  switch (game.type) {
    case 'SPIN_WHEEL':
      return { type: 'SPIN_WHEEL', segmentIndex: prizeIndex, segments: count };
    case 'SLOTS': {
      if (game.prizes[prizeIndex]!.value > 0 || count === 1) return { type: 'SLOTS', reels: [prizeIndex, prizeIndex, prizeIndex] };
      const first = rng(count);
      const second = rng(count);
      // The third reel differs from the first, so the line is never three of a kind.
      const third = (first + 1 + rng(count - 1)) % count;
      return { type: 'SLOTS', reels: [first, second, third] };
    }
    case 'DICE':
      return { type: 'DICE', dice: [1 + rng(6), 1 + rng(6)] };
    case 'SCRATCH_CARD': {
      const fillers = shuffle([...others, ...others], rng).slice(0, 6);
      const blanks = Array.from({ length: 6 - fillers.length }, () => null);
      return { type: 'SCRATCH_CARD', grid: shuffle([prizeIndex, prizeIndex, prizeIndex, ...fillers, ...blanks], rng) };
    }
    default:
      throw new Error(`animationFor: ${game.type} has no animation`);
  }
}

export interface PlayResult {
  success: true;
  play: { id: string; gameId: string; gameType: string; playedAt: string };
  result: {
    prize: { name: string; value: number };
    prizeIndex: number;
    pointsAwarded: number;
    basePoints: number;
    multiplier: number;
    multiplierEventName: string | null;
    pointsSpent: number;
    animation: Animation;
  };
  member: { points: number };
}

/**
 * Plays a game once, in one transaction: checks it is live (403) and the member's limits (429),
 * spends pointsCost (SPENT, 400 Insufficient points when the balance is short), draws a prize by
 * weight, pays value × the active multiplier through earn() (source `game`) and records the play.
 * `rng` exists for tests that need a fixed draw; every caller in production leaves the default.
 */
export function playGame(db: Db, projectId: string, gameId: string, externalId: string, actor: string, now: Date, rng: Rng = cryptoRng): PlayResult {
  return atomically(db, () => {
    const game = requireGame(db, projectId, gameId);
    const member = requireMember(db, projectId, externalId);
    assertPlayable(game, false);
    const today = localDate(now, projectTimeZone(db, projectId));
    assertWithinLimits(db, game, member, now);

    const playId = newId('gpl');
    const reference = { referenceId: game.id, metadata: { gameId: game.id, playId } };
    if (game.pointsCost > 0) {
      postToLedger(db, member, { amount: -game.pointsCost, type: 'SPENT', source: 'game', actor, description: `Played ${game.name}`, ...reference }, now);
    }
    const prizeIndex = drawPrize(game.prizes, rng);
    const prize = game.prizes[prizeIndex]!;
    const earned = earn(db, memberById(db, member.id), {
      basePoints: prize.value, source: 'game', actor, description: `Won ${prize.name} in ${game.name}`, ...reference,
    }, now);
    const animation = animationFor(game, prizeIndex, rng);
    const playedAt = now.toISOString();
    stmt(db, `INSERT INTO game_plays (public_id, project_id, game_id, member_id, local_day, points_spent, prize_index, prize_name, prize_value,
      points_awarded, result, played_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(playId, projectId, game.id, member.id, today, game.pointsCost,
      prizeIndex, prize.name, prize.value, earned.pointsAwarded, JSON.stringify(animation), playedAt);
    return {
      success: true,
      play: { id: playId, gameId: game.id, gameType: game.type, playedAt },
      result: {
        prize: { name: prize.name, value: prize.value },
        prizeIndex,
        pointsAwarded: earned.pointsAwarded,
        basePoints: earned.basePoints,
        multiplier: earned.multiplier,
        multiplierEventName: earned.multiplierEvent?.name ?? null,
        pointsSpent: game.pointsCost,
        animation,
      },
      member: { points: memberById(db, member.id).points },
    };
  });
}
