import type { Db } from '../../db/connection.ts';
import { cachedRowsChanged } from '../../db/cache-version.ts';
import { stmt } from '../../db/statements.ts';
import { atomically } from '../../db/transaction.ts';
import { isPlainObject } from '../../shared/objects.ts';
import { badRequest } from '../../shared/errors.ts';
import { getProject, type Project } from './projects.ts';
import { projectContext, type ProjectContext } from './project-context.ts';
import { rebuildFigures } from '../analytics/recount.ts';

export const LANGUAGES = ['en', 'es', 'fr', 'de', 'it', 'pt', 'nl', 'pl', 'ja', 'ko', 'zh-CN', 'ar', 'he'] as const;
export const FEATURES = ['points', 'rewards', 'quests', 'badges', 'games', 'checkin', 'referrals', 'promo', 'share', 'leaderboard'] as const;
export const SHARE_PLATFORMS = ['facebook', 'x', 'linkedin', 'whatsapp', 'telegram', 'pinterest', 'reddit', 'email'] as const;

/** A project's own rate limits (`600/min`, `10/h`, `off`); null = the server's setting (docs/api.md, Limits). */
export interface ProjectRateLimits {
  apiKey: string | null;
  member: string | null;
  memberWrites: string | null;
  promoFailures: string | null;
}

/** Everything a project can configure beyond its name, time zone and expiry policy. */
export interface Settings {
  /** Points a member gets once, when the widget first creates them. 0 = none. */
  welcomeBonus: number;
  referral: {
    referrerReward: number;
    refereeReward: number;
    /** When a referral converts (and the referrer is paid): at the referee's sign-up, or their first store order. */
    conversion: 'SIGNUP' | 'FIRST_ORDER';
    /** The page a share link points at (`?ref=CODE` is appended); null = the project has none yet. */
    referralUrl: string | null;
    /** Referrer rewards per member: per calendar month and in total; null = unlimited. */
    limits: { perMonth: number | null; total: number | null };
  };
  socialShare: {
    pointsPerShare: number;
    maxSharesPerDay: number;
    cooldownMinutes: number;
    platforms: string[];
  };
  widget: {
    languages: string[];
    defaultLanguage: string;
    features: Record<(typeof FEATURES)[number], boolean>;
    displayMode: 'floating' | 'custom';
    position: 'left' | 'right';
    theme: { primaryColor: string; backgroundColor: string; textColor: string; borderRadius: number; fontFamily: string | null };
    /** Origins (scheme://host[:port]) whose pages may call the widget API besides this server's own; `*` allows any. */
    allowedOrigins: string[];
    /** How long a widget session (init's token) lasts, in hours. */
    sessionHours: number;
    /** The shop's sign-up and sign-in pages, linked from the guest view; null = not shown. */
    signUpUrl: string | null;
    signInUrl: string | null;
    /** The programme's name shoppers see in the widget's header; null shows the project's name. */
    programName: string | null;
    /** The floating launcher's text, one for every language; null shows the default ("Open rewards" translated, the balance for a member). */
    launcherText: string | null;
  };
  rateLimits: ProjectRateLimits;
  /** The web admin: owners must sign in with a second factor (TOTP) to act on this project. */
  admin: { ownerTotpRequired: boolean };
  /** What one point is worth to the shop (an ISO 4217 currency): the Overview shows points outstanding in money with it; null = not set. */
  valuePerPoint: { amount: number; currency: string } | null;
}

export const DEFAULT_SETTINGS: Settings = {
  welcomeBonus: 0,
  referral: { referrerReward: 100, refereeReward: 50, conversion: 'SIGNUP', referralUrl: null, limits: { perMonth: null, total: null } },
  socialShare: { pointsPerShare: 10, maxSharesPerDay: 3, cooldownMinutes: 60, platforms: ['facebook', 'x', 'linkedin', 'whatsapp', 'email'] },
  widget: {
    languages: [...LANGUAGES],
    defaultLanguage: 'en',
    features: { points: true, rewards: true, quests: true, badges: true, games: true, checkin: true, referrals: true, promo: true, share: true, leaderboard: false },
    displayMode: 'floating',
    position: 'right',
    theme: { primaryColor: '#4F46E5', backgroundColor: '#FFFFFF', textColor: '#111827', borderRadius: 12, fontFamily: null },
    allowedOrigins: [],
    sessionHours: 12,
    signUpUrl: null,
    signInUrl: null,
    programName: null,
    launcherText: null,
  },
  rateLimits: { apiKey: null, member: null, memberWrites: null, promoFailures: null },
  admin: { ownerTotpRequired: false },
  valuePerPoint: null,
};

/** Objects merge key by key; anything else (arrays included) replaces. */
function deepMerge<T>(base: T, patch: unknown): T {
  if (!isPlainObject(base) || !isPlainObject(patch)) return (patch === undefined ? base : patch) as T;
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(patch)) if (value !== undefined) merged[key] = deepMerge(merged[key], value);
  return merged as T;
}

export type ProjectView = Project & Settings;

export type SettingsPatch = {
  name?: string;
  timezone?: string;
  pointsExpiryDays?: number | null;
} & Record<string, unknown>;

/** Freezes `value` and everything in it: cached settings are shared by every caller. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/** Settings read once per loaded project context (which is replaced, never changed, when they change). */
const readSettings = new WeakMap<ProjectContext, Settings>();

/** The project's settings; what the operator never set reads as its default. Frozen: copy to change. */
export function getSettings(db: Db, projectId: string): Settings {
  const context = projectContext(db, projectId);
  let settings = readSettings.get(context);
  if (!settings) {
    settings = deepFreeze(deepMerge(DEFAULT_SETTINGS, JSON.parse(context.settingsJson)));
    readSettings.set(context, settings);
  }
  return settings;
}

export const projectView = (db: Db, projectId: string): ProjectView => ({ ...getProject(db, projectId), ...getSettings(db, projectId) });

/** PATCH /project: changes only what the patch names; nested objects merge, arrays replace. */
export function updateSettings(db: Db, projectId: string, patch: SettingsPatch): ProjectView {
  return atomically(db, () => {
    const current = projectView(db, projectId);
    const { name, timezone, pointsExpiryDays, ...rest } = patch;
    const settings = deepMerge(getSettings(db, projectId), rest);
    if (!settings.widget.languages.includes(settings.widget.defaultLanguage)) {
      throw badRequest(`"widget.defaultLanguage" "${settings.widget.defaultLanguage}" must be one of "widget.languages".`);
    }
    stmt(db, 'UPDATE projects SET name = ?, timezone = ?, points_expiry_days = ?, settings = ? WHERE id = ?').run(
      name ?? current.name,
      timezone ?? current.timezone,
      pointsExpiryDays === undefined ? current.pointsExpiryDays : pointsExpiryDays,
      JSON.stringify(settings),
      projectId,
    );
    cachedRowsChanged(db);
    // The daily figures count days in the project's time zone: recounted in the new one, in this transaction.
    if (timezone !== undefined && timezone !== current.timezone) rebuildFigures(db, projectId);
    return projectView(db, projectId);
  });
}
