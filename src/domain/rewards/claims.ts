import type { Db } from '../../db/connection.ts';
import { stmt } from '../../db/statements.ts';
import { atomically } from '../../db/transaction.ts';
import { getItem, liveItems } from '../catalog/catalog-items.ts';
import { rewards, type Reward, type RewardType } from '../catalog/reward-kind.ts';
import { pickRandomly, readableCode, uniqueCode } from '../../shared/codes.ts';
import { badRequest, conflict, forbidden, insufficientPoints, notFound } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { levelFor } from '../levels/member-level.ts';
import { projectContext } from '../project/project-context.ts';
import { postToLedger } from '../ledger/ledger.ts';
import { memberById, memberView, requireMember, type Member, type MemberRow } from '../members/members.ts';
import { emit } from '../events/record-event.ts';
import { couponStore, enqueueCoupon, newCouponCode } from '../commerce/coupons.ts';
import { countClaim } from '../analytics/figures.ts';
import { pageOf, type Page } from '../../shared/page.ts';

/** A reward as one member sees it (SPEC 2, Reward widget view). `stockRemaining` null = unlimited. */
export interface RewardView {
  id: string;
  name: string;
  description: string | null;
  imageUrl: string | null;
  type: RewardType;
  pointsCost: number;
  stockRemaining: number | null;
  userClaims: number;
  maxClaimsPerUser: number | null;
  minLevel: number;
  levelRequired: boolean;
  canClaim: boolean;
  affordableIn: number;
}

export type ClaimStatus = 'COMPLETED' | 'PENDING' | 'SHIPPED' | 'DELIVERED' | 'ENTERED' | 'WON' | 'LOST';

export interface Claim {
  id: string;
  reward: { id: string; name: string; description: string | null; imageUrl: string | null; type: RewardType; pointsCost: number };
  pointsSpent: number;
  status: ClaimStatus;
  /** COUPON claims only. */
  couponCode?: string;
  /** DIGITAL claims only: what the reward reveals once claimed. */
  digitalContent?: string | null;
  externalId: string;
  createdAt: string;
  updatedAt: string;
}

export const requireReward = (db: Db, projectId: string, rewardId: string) => getItem(db, rewards, projectId, rewardId);

const claimsOf = (db: Db, memberId: number, rewardId: string) =>
  stmt<number>(db, 'SELECT count(*) FROM reward_claims WHERE member_id = ? AND reward_id = ?').pluck().get(memberId, rewardId)!;

/** Why the reward cannot be claimed at all right now (403), or null. */
function unavailable(db: Db, reward: Reward, now: Date): string | null {
  if (reward.archivedAt !== null) return `The reward "${reward.id}" is archived.`;
  if (!reward.isActive) return `The reward "${reward.id}" is not active.`;
  if (reward.expiresAt !== null && now.toISOString() >= reward.expiresAt) return `The reward "${reward.id}" expired at ${reward.expiresAt}.`;
  if (reward.type === 'RAFFLE' && drawnAt(db, reward.id) !== null) return `The raffle "${reward.id}" has been drawn.`;
  return null;
}

/** drawn_at is bookkeeping of the draw, not a catalog field, so the catalog item does not carry it. */
const drawnAt = (db: Db, rewardId: string) => stmt<string | null>(db, 'SELECT drawn_at FROM rewards WHERE id = ?').pluck().get(rewardId) ?? null;

/**
 * The one place a member's view of a reward is computed (server API and widget). `canClaim`
 * needs the reward available, the level reached, stock left, claims left and the balance.
 */
export function rewardView(db: Db, reward: Reward, member: MemberRow, now: Date): RewardView {
  const userClaims = claimsOf(db, member.id, reward.id);
  const level = levelFor(projectContext(db, member.project_id).levels, member.total_points_earned, member.level_floor).level;
  const levelRequired = level < reward.minLevel;
  const affordableIn = Math.max(reward.pointsCost - member.points, 0);
  const canClaim = unavailable(db, reward, now) === null && !levelRequired && reward.stock !== 0 && affordableIn === 0
    && (reward.maxClaimsPerUser === null || userClaims < reward.maxClaimsPerUser);
  return {
    id: reward.id, name: reward.name, description: reward.description, imageUrl: reward.imageUrl, type: reward.type, pointsCost: reward.pointsCost,
    stockRemaining: reward.stock, userClaims, maxClaimsPerUser: reward.maxClaimsPerUser, minLevel: reward.minLevel, levelRequired, canClaim, affordableIn,
  };
}

/** GET /members/{externalId}/rewards: the live, unexpired rewards as the member sees them. */
export function memberRewards(db: Db, projectId: string, externalId: string, now: Date): { rewards: RewardView[] } {
  const member = requireMember(db, projectId, externalId);
  const live = liveItems(db, rewards, projectId).filter((reward) => unavailable(db, reward, now) === null);
  return { rewards: live.map((reward) => rewardView(db, reward, member, now)) };
}

interface ClaimRow {
  id: number;
  public_id: string;
  reward_id: string;
  member_id: number;
  points_spent: number;
  coupon_code: string | null;
  status: ClaimStatus;
  created_at: string;
  updated_at: string;
}

const CLAIM_SELECT = 'SELECT id, public_id, reward_id, member_id, points_spent, coupon_code, status, created_at, updated_at FROM reward_claims';
/** Claims with their member's externalId, for the operator's views across members. */
const CLAIM_WITH_MEMBER = `SELECT c.id, c.public_id, c.reward_id, c.member_id, c.points_spent, c.coupon_code, c.status, c.created_at, c.updated_at,
  m.external_id FROM reward_claims c JOIN members m ON m.id = c.member_id`;

function toClaim(row: ClaimRow, reward: Reward, externalId: string): Claim {
  const { id, name, description, imageUrl, type, pointsCost } = reward;
  return {
    id: row.public_id,
    reward: { id, name, description, imageUrl, type, pointsCost },
    pointsSpent: row.points_spent,
    status: row.status,
    ...(row.coupon_code !== null ? { couponCode: row.coupon_code } : {}),
    ...(type === 'DIGITAL' ? { digitalContent: reward.digitalContent } : {}),
    externalId,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** A CUSTOM reward is the shop's to deliver, its own way: pending until the shop marks it fulfilled, like a PHYSICAL one. */
const INITIAL_STATUS: Record<RewardType, ClaimStatus> = { COUPON: 'COMPLETED', DIGITAL: 'COMPLETED', CUSTOM: 'PENDING', PHYSICAL: 'PENDING', RAFFLE: 'ENTERED' };

/** The rewards whose claims the shop fulfils (`fulfilClaim`). */
const FULFILLED_TYPES: readonly RewardType[] = ['PHYSICAL', 'CUSTOM'];

/** A coupon code: 12 readable characters (60 random bits), shown as XXXX-XXXX-XXXX. */
const couponCode = (db: Db, projectId: string) => uniqueCode(
  () => readableCode(12).replace(/(.{4})(?=.)/g, '$1-'),
  (code) => stmt(db, 'SELECT 1 FROM reward_claims WHERE project_id = ? AND coupon_code = ?').pluck().get(projectId, code) !== undefined,
);

/**
 * Claims the reward for the member, in the caller's transaction: checks availability (403),
 * level (403), stock and the member's claims (409), then spends the cost (REDEEMED, 400 when the
 * balance is too low), takes one from the stock and records the claim. `spend: false` gives the
 * reward without spending points (a REWARD promo code). Emits reward.redeemed.
 */
export function claimReward(db: Db, reward: Reward, member: MemberRow, options: { spend: boolean; via: 'redeem' | 'promo'; actor: string }, now: Date):
  { claim: Claim; member: Member } {
  return atomically(db, () => {
    const view = rewardView(db, reward, member, now);
    const reason = unavailable(db, reward, now);
    if (reason !== null) throw forbidden(reason);
    if (view.levelRequired) throw forbidden(`The reward "${reward.id}" needs level ${reward.minLevel}; the member is level ${levelFor(projectContext(db, member.project_id).levels, member.total_points_earned, member.level_floor).level}.`);
    if (reward.stock === 0) throw conflict(`The reward "${reward.id}" is out of stock.`);
    if (reward.maxClaimsPerUser !== null && view.userClaims >= reward.maxClaimsPerUser) {
      throw conflict(`The member "${member.external_id}" has claimed the reward "${reward.id}" ${view.userClaims} times, the most allowed.`);
    }
    const pointsSpent = options.spend ? reward.pointsCost : 0;
    if (member.points < pointsSpent) throw insufficientPoints(`The reward costs ${pointsSpent} points; the member has ${member.points}.`);
    const publicId = newId('clm');
    const spent = pointsSpent > 0
      ? postToLedger(db, member, { amount: -pointsSpent, type: 'REDEEMED', source: 'reward', actor: options.actor, description: `Reward claimed: ${reward.name}`,
        referenceId: reward.id, metadata: { rewardId: reward.id, claimId: publicId } }, now)
      : null;
    const at = now.toISOString();
    if (reward.stock !== null) stmt(db, 'UPDATE rewards SET stock = stock - 1, updated_at = ? WHERE id = ?').run(at, reward.id);
    // With a connected store, a coupon reward's code is the store's, created after the commit (src/domain/commerce/coupons.ts).
    const store = reward.type === 'COUPON' && reward.discountConfig ? couponStore(db, member.project_id) : undefined;
    const code = reward.type === 'COUPON' && !store ? couponCode(db, member.project_id) : null;
    const { lastInsertRowid } = stmt(db, `INSERT INTO reward_claims (public_id, project_id, reward_id, member_id, points_spent, via, coupon_code, status,
      transaction_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
      .run(publicId, member.project_id, reward.id, member.id, pointsSpent, options.via, code, INITIAL_STATUS[reward.type], spent?.transaction.id ?? null, at, at);
    countClaim(db, member.project_id, reward.id, pointsSpent, now);
    if (store && reward.discountConfig) {
      const { type, value } = reward.discountConfig;
      enqueueCoupon(db, { store, claimRowId: Number(lastInsertRowid), code: newCouponCode(), discountType: type, discountCents: Math.round(value * 100), member }, now);
    }
    const claim = toClaim(stmt<ClaimRow>(db, `${CLAIM_SELECT} WHERE id = ?`).get(lastInsertRowid)!, reward, member.external_id);
    emit(db, member.project_id, 'reward.redeemed', {
      memberId: member.public_id, externalId: member.external_id, rewardId: reward.id, rewardName: reward.name, rewardType: reward.type,
      pointsSpent, claimId: publicId, ...(code !== null ? { couponCode: code } : {}),
    }, now);
    return { claim, member: spent?.member ?? memberView(db, memberById(db, member.id)) };
  });
}

/** POST /rewards/{id}/redeem (and the widget's POST /rewards). */
export function redeemReward(db: Db, projectId: string, rewardId: string, externalId: string, actor: string, now: Date) {
  return atomically(db, () => {
    const reward = requireReward(db, projectId, rewardId);
    const member = requireMember(db, projectId, externalId);
    return { success: true, ...claimReward(db, reward, member, { spend: true, via: 'redeem', actor }, now) };
  });
}

/** GET /members/{externalId}/claims: newest first. */
export function memberClaims(db: Db, projectId: string, externalId: string): { claims: Claim[] } {
  const member = requireMember(db, projectId, externalId);
  const rows = stmt<ClaimRow>(db, `${CLAIM_SELECT} WHERE member_id = ? ORDER BY id DESC`).all(member.id);
  return { claims: rows.map((row) => toClaim(row, requireReward(db, projectId, row.reward_id), member.external_id)) };
}

/** The operator's list (`punchcard claims list`): optionally one reward's, or one status. */
export function listClaims(db: Db, projectId: string, filter: { rewardId?: string | undefined; status?: string | undefined; limit: number }): { claims: Claim[] } {
  const rows = stmt<ClaimRow & { external_id: string }>(db, `${CLAIM_WITH_MEMBER} WHERE c.project_id = @projectId AND (@rewardId IS NULL OR c.reward_id = @rewardId) AND (@status IS NULL OR c.status = @status)
    ORDER BY c.id DESC LIMIT @limit`).all({ projectId, rewardId: filter.rewardId ?? null, status: filter.status ?? null, limit: filter.limit });
  return { claims: rows.map((row) => toClaim(row, requireReward(db, projectId, row.reward_id), row.external_id)) };
}

export const FULFILMENT_STATUSES = ['PENDING', 'SHIPPED', 'DELIVERED'] as const;

/** `punchcard claims fulfil`: moves a PHYSICAL or CUSTOM claim's fulfilment status. */
export function fulfilClaim(db: Db, projectId: string, claimId: string, status: (typeof FULFILMENT_STATUSES)[number], now: Date): Claim {
  return atomically(db, () => {
    const row = stmt<ClaimRow & { external_id: string }>(db, `${CLAIM_WITH_MEMBER} WHERE c.public_id = ? AND c.project_id = ?`)
      .get(claimId, projectId);
    if (!row) throw notFound(`No claim with id "${claimId}" in this project`);
    const reward = requireReward(db, projectId, row.reward_id);
    if (!FULFILLED_TYPES.includes(reward.type)) throw badRequest(`The claim "${claimId}" is for a ${reward.type} reward; only PHYSICAL and CUSTOM claims are fulfilled.`);
    stmt(db, 'UPDATE reward_claims SET status = ?, updated_at = ? WHERE id = ?').run(status, now.toISOString(), row.id);
    return toClaim({ ...row, status, updated_at: now.toISOString() }, reward, row.external_id);
  });
}

/**
 * `punchcard rewards draw`: picks up to `winners` winning entries of a RAFFLE with the CSPRNG,
 * at most one win per member; every other entry loses. A raffle is drawn once (409 after).
 */
export function drawRaffle(db: Db, projectId: string, rewardId: string, winners: number, now: Date) {
  return atomically(db, () => {
    const reward = requireReward(db, projectId, rewardId);
    if (reward.type !== 'RAFFLE') throw badRequest(`The reward "${rewardId}" is a ${reward.type} reward, not a RAFFLE.`);
    const drawn = drawnAt(db, reward.id);
    if (drawn !== null) throw conflict(`The raffle "${rewardId}" was drawn at ${drawn}; a raffle is drawn once.`);
    const entries = stmt<{ id: number; public_id: string; member_id: number; external_id: string }>(db, `SELECT c.id, c.public_id, c.member_id, m.external_id
      FROM reward_claims c JOIN members m ON m.id = c.member_id WHERE c.reward_id = ? AND c.status = 'ENTERED'`).all(reward.id);
    const won = new Map<number, (typeof entries)[number]>();
    for (const entry of pickRandomly(entries, entries.length)) {
      if (won.size === winners) break;
      if (!won.has(entry.member_id)) won.set(entry.member_id, entry);
    }
    const at = now.toISOString();
    const winning = new Set([...won.values()].map((entry) => entry.id));
    const mark = stmt(db, 'UPDATE reward_claims SET status = ?, updated_at = ? WHERE id = ?');
    for (const entry of entries) mark.run(winning.has(entry.id) ? 'WON' : 'LOST', at, entry.id);
    stmt(db, 'UPDATE rewards SET drawn_at = ?, updated_at = ? WHERE id = ?').run(at, at, reward.id);
    return {
      rewardId: reward.id, drawnAt: at, entries: entries.length,
      winners: [...won.values()].map((entry) => ({ claimId: entry.public_id, externalId: entry.external_id })),
    };
  });
}

/** The admin's claim lists: pending waits for the shop (a parcel, a raffle draw); fulfilled is done. */
export const CLAIM_GROUPS = {
  pending: ['PENDING', 'SHIPPED', 'ENTERED'],
  fulfilled: ['COMPLETED', 'DELIVERED', 'WON', 'LOST'],
  all: ['COMPLETED', 'PENDING', 'SHIPPED', 'DELIVERED', 'ENTERED', 'WON', 'LOST'],
} as const satisfies Record<string, readonly ClaimStatus[]>;

/** A claim as the admin lists it: the reward and member named, when it was fulfilled. */
export interface ClaimListing {
  id: string;
  reward: { id: string; name: string; type: RewardType };
  member: { externalId: string };
  pointsSpent: number;
  couponCode?: string;
  status: ClaimStatus;
  createdAt: string;
  /** Delivered, drawn or (for rewards that need nothing more) claimed; null while pending. */
  fulfilledAt: string | null;
}

type ListingRow = ClaimRow & { external_id: string; reward_name: string; reward_type: RewardType };

const LISTING_SELECT = `SELECT c.id, c.public_id, c.reward_id, c.member_id, c.points_spent, c.coupon_code, c.status, c.created_at, c.updated_at,
  m.external_id, r.name AS reward_name, r.type AS reward_type FROM reward_claims c JOIN members m ON m.id = c.member_id JOIN rewards r ON r.id = c.reward_id`;

const toListing = (row: ListingRow): ClaimListing => ({
  id: row.public_id,
  reward: { id: row.reward_id, name: row.reward_name, type: row.reward_type },
  member: { externalId: row.external_id },
  pointsSpent: row.points_spent,
  ...(row.coupon_code !== null ? { couponCode: row.coupon_code } : {}),
  status: row.status,
  createdAt: row.created_at,
  fulfilledAt: row.status === 'COMPLETED' ? row.created_at : (CLAIM_GROUPS.fulfilled as readonly string[]).includes(row.status) ? row.updated_at : null,
});

/** GET /claims of the admin: a project's claims in a group, optionally of one reward, newest first, a page at a time. */
export function claimsPage(db: Db, projectId: string, filter: { group: keyof typeof CLAIM_GROUPS; rewardId?: string | undefined; limit: number; offset: number }):
  { claims: ClaimListing[]; pagination: Page } {
  const statuses = CLAIM_GROUPS[filter.group].map((status) => `'${status}'`).join(', ');
  const where = `WHERE c.project_id = @projectId AND c.status IN (${statuses}) AND (@rewardId IS NULL OR c.reward_id = @rewardId)`;
  const params = { projectId, rewardId: filter.rewardId ?? null, limit: filter.limit, offset: filter.offset };
  const total = stmt<number>(db, `SELECT count(*) FROM reward_claims c ${where}`).pluck().get(params)!;
  const rows = stmt<ListingRow>(db, `${LISTING_SELECT} ${where} ORDER BY c.id DESC LIMIT @limit OFFSET @offset`).all(params);
  return { claims: rows.map(toListing), pagination: pageOf(total, filter, rows.length) };
}

/** One claim as the admin lists it, or 404. */
export function claimListing(db: Db, projectId: string, claimId: string): ClaimListing {
  const row = stmt<ListingRow>(db, `${LISTING_SELECT} WHERE c.public_id = ? AND c.project_id = ?`).get(claimId, projectId);
  if (!row) throw notFound(`No claim with id "${claimId}" in this project`);
  return toListing(row);
}
