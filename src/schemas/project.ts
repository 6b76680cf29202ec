import * as v from 'valibot';
import { FEATURES, LANGUAGES, SHARE_PLATFORMS } from '../domain/project/settings.ts';
import { RATE_PATTERN } from '../shared/rates.ts';
import { httpUrl, text } from './common.ts';

const count = (max: number) => v.pipe(v.number('must be a number'), v.integer('must be a whole number'), v.minValue(0, 'must be at least 0'),
  v.maxValue(max, `must be at most ${max}`));
const bool = v.boolean('must be true or false');
const enumOf = <T extends string>(values: readonly T[]) => v.picklist(values, `must be one of ${values.join(', ')}`);
const uniqueList = <T extends string>(values: readonly T[]) => v.pipe(v.array(enumOf(values), 'must be an array'),
  v.check((list) => new Set(list).size === list.length, 'must not repeat a value'));
const color = v.pipe(v.string('must be a string'), v.regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, 'must be a hex color such as #4F46E5'));

const isTimeZone = (zone: string) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
};

// `*` lets any page use the widget; otherwise an exact origin.
const origin = v.pipe(text(255), v.check((value) => {
  if (value === '*') return true;
  try {
    const url = new URL(value);
    return /^https?:$/.test(url.protocol) && url.origin === value;
  } catch {
    return false;
  }
}, 'must hold origins such as https://shop.example (scheme, host and port only), or "*"'));

// null: back to the server's setting.
const rate = v.optional(v.nullable(v.pipe(v.string('must be a string'), v.regex(RATE_PATTERN, 'must be a rate such as 600/min, 10/h or 100000/s, or "off"'))));

/** PATCH /project: every field optional; nested objects merge into what is stored. */
export const projectPatchBody = v.strictObject({
  name: v.optional(v.pipe(text(200), v.minLength(1, 'must not be empty'))),
  timezone: v.optional(v.pipe(text(64), v.check(isTimeZone, 'must be an IANA time zone such as Europe/Paris or UTC'))),
  pointsExpiryDays: v.optional(v.nullable(v.pipe(count(36_500), v.minValue(1, 'must be at least 1 (null turns expiry off)')))),
  welcomeBonus: v.optional(count(1_000_000)),
  referral: v.optional(v.strictObject({
    referrerReward: v.optional(count(1_000_000)),
    refereeReward: v.optional(count(1_000_000)),
    conversion: v.optional(enumOf(['SIGNUP', 'FIRST_ORDER'])),
    referralUrl: v.optional(v.nullable(httpUrl)),
    limits: v.optional(v.strictObject({
      perMonth: v.optional(v.nullable(count(1_000_000))),
      total: v.optional(v.nullable(count(1_000_000))),
    })),
  })),
  socialShare: v.optional(v.strictObject({
    pointsPerShare: v.optional(count(1_000_000)),
    maxSharesPerDay: v.optional(count(1000)),
    cooldownMinutes: v.optional(count(525_600)),
    platforms: v.optional(uniqueList(SHARE_PLATFORMS)),
  })),
  widget: v.optional(v.strictObject({
    languages: v.optional(v.pipe(uniqueList(LANGUAGES), v.minLength(1, 'must name at least one language'))),
    defaultLanguage: v.optional(enumOf(LANGUAGES)),
    features: v.optional(v.strictObject(Object.fromEntries(FEATURES.map((feature) => [feature, v.optional(bool)])))),
    displayMode: v.optional(enumOf(['floating', 'custom'])),
    position: v.optional(enumOf(['left', 'right'])),
    theme: v.optional(v.strictObject({
      primaryColor: v.optional(color),
      backgroundColor: v.optional(color),
      textColor: v.optional(color),
      borderRadius: v.optional(count(64)),
      fontFamily: v.optional(v.nullable(text(200))),
    })),
    allowedOrigins: v.optional(v.pipe(v.array(origin, 'must be an array'), v.maxLength(100, 'must hold at most 100 origins'))),
    sessionHours: v.optional(v.pipe(count(720), v.minValue(1, 'must be at least 1 hour'))),
    signUpUrl: v.optional(v.nullable(httpUrl)),
    signInUrl: v.optional(v.nullable(httpUrl)),
    programName: v.optional(v.nullable(v.pipe(text(100), v.minLength(1, 'must not be empty')))),
    // Blank would draw an empty launcher.
    launcherText: v.optional(v.nullable(v.pipe(text(40), v.check((value) => value.trim() !== '', 'must not be empty or blank')))),
  })),
  rateLimits: v.optional(v.strictObject({ apiKey: rate, member: rate, memberWrites: rate, promoFailures: rate })),
  admin: v.optional(v.strictObject({ ownerTotpRequired: v.optional(bool) })),
  valuePerPoint: v.optional(v.nullable(v.strictObject({
    // Counted to 6 decimals (src/domain/analytics/money.ts).
    amount: v.pipe(v.number('must be a number'), v.finite('must be a finite number'), v.gtValue(0, 'must be more than 0'),
      v.maxValue(1_000_000, 'must be at most 1000000')),
    currency: v.picklist(Intl.supportedValuesOf('currency'), 'must be an ISO 4217 currency code such as USD or EUR'),
  }, 'must be an object {amount, currency} or null'))),
});
