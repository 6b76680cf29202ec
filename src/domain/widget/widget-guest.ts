import type { Db } from '../../db/connection.ts';
import { listItems, liveItems } from '../catalog/catalog-items.ts';
import { hotCatalog } from '../catalog/hot-catalog.ts';
import { quests } from '../catalog/quest-kind.ts';
import { rewards } from '../catalog/reward-kind.ts';
import { checkKey } from '../project/api-keys.ts';
import { activeMultipliers } from '../multipliers/earn.ts';
import { playableGames } from '../games/play.ts';
import { getSettings } from '../project/settings.ts';
import { widgetUnauthorized } from './widget-auth.ts';
import type { WidgetProjectConfig, WidgetSettings } from './widget-config.ts';

/** The project a publishable key belongs to; 401 for any other key, as the signed routes answer. */
export function guestProject(db: Db, publicKey: string, now: Date): string {
  const key = publicKey.startsWith('pk_') ? checkKey(db, publicKey, now) : { problem: 'unknown' as const };
  if ('problem' in key || key.type !== 'publishable') {
    throw widgetUnauthorized('"publicKey" must be a live publishable key (pk_live_…) of the project.');
  }
  return key.projectId;
}

/** The programme as a visitor who is not signed in sees it: no member data at all. */
export interface GuestView {
  project: { name: string; widgetSettings: Omit<WidgetSettings, 'allowedOrigins'> };
  signUpUrl: string | null;
  signInUrl: string | null;
  welcomeBonus: number;
  levels: { level: number; name: string; minTotalPointsEarned: number }[];
  rewards: { id: string; name: string; description: string | null; imageUrl: string | null; type: string; pointsCost: number; minLevel: number }[];
  waysToEarn: {
    quests: { id: string; name: string; description: string | null; points: number; endsAt: string | null }[];
    games: { id: string; name: string; type: string; pointsCost: number }[];
    checkin: { points: number } | null;
    share: { pointsPerShare: number; maxSharesPerDay: number } | null;
    referral: { referrerReward: number; refereeReward: number } | null;
  };
  activeMultipliers: { name: string; multiplier: number; endsAt: string }[];
}

/** Each part appears only when its widget feature is on; a part that is off is empty (or null). */
export function guestView(db: Db, projectId: string, config: WidgetProjectConfig, now: Date): GuestView {
  const { allowedOrigins: _origins, ...widgetSettings } = config.widgetSettings;
  const on = widgetSettings.features;
  const settings = getSettings(db, projectId);
  const at = now.toISOString();
  const live = on.rewards ? liveItems(db, rewards, projectId)
    .filter((reward) => reward.isActive && (reward.expiresAt === null || at < reward.expiresAt)) : [];
  const games = on.games || on.checkin ? playableGames(db, projectId).games : [];
  const checkin = on.checkin ? games.find((game) => game.type === 'DAILY_CHECKIN') : undefined;
  return {
    project: { name: config.name, widgetSettings },
    signUpUrl: widgetSettings.signUpUrl,
    signInUrl: widgetSettings.signInUrl,
    welcomeBonus: config.welcomeBonus,
    levels: [...hotCatalog(db, projectId).levels].reverse().map(({ level, name, minTotalPointsEarned }) => ({ level, name, minTotalPointsEarned })),
    rewards: live.map(({ id, name, description, imageUrl, type, pointsCost, minLevel }) => ({ id, name, description, imageUrl, type, pointsCost, minLevel })),
    waysToEarn: {
      quests: on.quests ? listItems(db, quests, projectId, { limit: 100, offset: 0, active: true }, now).items
        .map(({ id, name, description, points, endsAt }) => ({ id, name, description, points, endsAt })) : [],
      games: on.games ? games.filter((game) => game.type !== 'DAILY_CHECKIN').map(({ id, name, type, pointsCost }) => ({ id, name, type, pointsCost })) : [],
      checkin: checkin ? { points: checkin.checkinPoints ?? 0 } : null,
      share: on.share ? { pointsPerShare: settings.socialShare.pointsPerShare, maxSharesPerDay: settings.socialShare.maxSharesPerDay } : null,
      referral: on.referrals ? { referrerReward: settings.referral.referrerReward, refereeReward: settings.referral.refereeReward } : null,
    },
    activeMultipliers: activeMultipliers(db, projectId, now).map(({ name, multiplier, endsAt }) => ({ name, multiplier, endsAt })),
  };
}
