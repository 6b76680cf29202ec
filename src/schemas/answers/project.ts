import * as v from 'valibot';
import { FEATURES } from '../../domain/project/settings.ts';
import { bool, int, nullable, str } from './common.ts';

// The project's settings as GET and PATCH /project answer them, and the widget's share of them.

const features = v.object(Object.fromEntries(FEATURES.map((feature) => [feature, bool])) as Record<(typeof FEATURES)[number], typeof bool>);

/** The widget's settings as the widget sees them (init, guest view): every one but allowedOrigins. */
export const widgetSettings = v.object({
  languages: v.array(str),
  defaultLanguage: str,
  features,
  displayMode: v.picklist(['floating', 'custom']),
  position: v.picklist(['left', 'right']),
  theme: v.object({ primaryColor: str, backgroundColor: str, textColor: str, borderRadius: int, fontFamily: nullable(str) }),
  sessionHours: v.number(),
  signUpUrl: nullable(str),
  signInUrl: nullable(str),
  programName: nullable(str),
  launcherText: nullable(str),
});

const limit = nullable(str);

export const projectAnswer = v.pipe(v.object({
  id: str,
  name: str,
  pointsExpiryDays: nullable(int),
  timezone: str,
  createdAt: str,
  welcomeBonus: int,
  referral: v.object({
    referrerReward: int, refereeReward: int, conversion: v.picklist(['SIGNUP', 'FIRST_ORDER']), referralUrl: nullable(str),
    limits: v.object({ perMonth: nullable(int), total: nullable(int) }),
  }),
  socialShare: v.object({ pointsPerShare: int, maxSharesPerDay: int, cooldownMinutes: int, platforms: v.array(str) }),
  widget: v.object({ ...widgetSettings.entries, allowedOrigins: v.array(str) }),
  rateLimits: v.object({ apiKey: limit, member: limit, memberWrites: limit, promoFailures: limit }),
  admin: v.object({ ownerTotpRequired: bool }),
  valuePerPoint: nullable(v.object({ amount: v.number(), currency: str })),
}), v.title('Project'));
