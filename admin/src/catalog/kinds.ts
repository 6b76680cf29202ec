// The seven catalog kinds as the admin's forms show them: one field description per kind, from
// which the list, the form, the request body and the preview are made. Names and choices are the
// API's (test/admin-forms.test.ts checks them against the server's schemas); the words are in
// the catalogue (i18n/en.ts, `catalog.fields`).

export type FieldType = 'text' | 'textarea' | 'url' | 'int' | 'number' | 'bool' | 'select' | 'datetime' | 'multi' | 'ref' | 'object' | 'rows';

export interface FieldSpec {
  name: string;
  type: FieldType;
  /** The API refuses the item without it. */
  required?: boolean;
  /** An empty field is sent as null (else left out, and the server's default applies). */
  nullable?: boolean;
  /** A select's or a multiple choice's values. */
  options?: readonly string[];
  /** `ref`: the kind whose items are chosen from (a quest's badge, a promo code's reward). */
  ref?: KindPath;
  /** `object` (sent as one object, null when every part is empty) and `rows` (a list of objects): their parts. */
  fields?: FieldSpec[];
  /** Shown only when another field has one of these values (a coupon's discount, a check-in's points). */
  when?: { field: string; is: readonly string[] };
  /** The value of a new item's field. */
  initial?: string | boolean;
}

export const KIND_PATHS = ['rewards', 'quests', 'badges', 'levels', 'games', 'promo-codes', 'multipliers'] as const;
export type KindPath = (typeof KIND_PATHS)[number];

export interface KindSpec {
  path: KindPath;
  /** The list's key in the API's answer (`promoCodes`). */
  listKey: string;
  /** The field that names an item in lists. */
  title: string;
  /** The other fields the list shows. */
  columns: string[];
  fields: FieldSpec[];
}

const text = (name: string, extra: Partial<FieldSpec> = {}): FieldSpec => ({ name, type: 'text', nullable: true, ...extra });
const int = (name: string, extra: Partial<FieldSpec> = {}): FieldSpec => ({ name, type: 'int', ...extra });
const select = (name: string, options: readonly string[], extra: Partial<FieldSpec> = {}): FieldSpec => ({ name, type: 'select', options, ...extra });
const time = (name: string, extra: Partial<FieldSpec> = {}): FieldSpec => ({ name, type: 'datetime', nullable: true, ...extra });
const active: FieldSpec = { name: 'isActive', type: 'bool', initial: true };
const key = text('key');
const name = text('name', { required: true, nullable: false });
const description: FieldSpec = { name: 'description', type: 'textarea', nullable: true };
const image: FieldSpec = { name: 'imageUrl', type: 'url', nullable: true };

export const BADGE_CRITERIA = ['totalPointsEarned', 'currentStreak', 'questsCompleted', 'referralsConverted'] as const;
export const EARNING_SOURCES = ['quest', 'event', 'game', 'checkin', 'share', 'order', 'community', 'referral', 'promo', 'welcome'] as const;

export const KINDS: KindSpec[] = [
  {
    path: 'rewards', listKey: 'rewards', title: 'name', columns: ['type', 'pointsCost', 'stock'],
    fields: [
      name, description, image,
      select('type', ['COUPON', 'PHYSICAL', 'DIGITAL', 'RAFFLE', 'CUSTOM'], { required: true, initial: 'COUPON' }),
      int('pointsCost', { required: true }),
      int('stock', { nullable: true }), int('maxClaimsPerUser', { nullable: true }), int('minLevel'),
      { name: 'discountConfig', type: 'object', nullable: true, when: { field: 'type', is: ['COUPON'] }, fields: [
        select('type', ['', 'PERCENTAGE', 'FIXED_CART', 'FIXED_PRODUCT']), { name: 'value', type: 'number' },
      ] },
      { name: 'digitalContent', type: 'textarea', nullable: true, when: { field: 'type', is: ['DIGITAL'] } },
      time('expiresAt'), active, key,
    ],
  },
  {
    path: 'quests', listKey: 'quests', title: 'name', columns: ['completionMode', 'points'],
    fields: [
      name, description,
      select('completionMode', ['MANUAL', 'AUTOMATED', 'SELF_REPORT'], { required: true, initial: 'MANUAL' }),
      text('action', { when: { field: 'completionMode', is: ['AUTOMATED'] } }),
      int('targetCount'), int('points'),
      { name: 'badgeId', type: 'ref', ref: 'badges', nullable: true },
      { name: 'repeatable', type: 'bool', initial: false }, int('cooldownMinutes'),
      image, { name: 'linkUrl', type: 'url', nullable: true }, time('startsAt'), time('endsAt'), active, key,
    ],
  },
  {
    path: 'badges', listKey: 'badges', title: 'name', columns: ['rarity'],
    fields: [
      name, description, image,
      select('rarity', ['COMMON', 'UNCOMMON', 'RARE', 'EPIC', 'LEGENDARY'], { initial: 'COMMON' }),
      { name: 'criteria', type: 'object', nullable: true, fields: [select('type', ['', ...BADGE_CRITERIA]), int('threshold')] },
      key,
    ],
  },
  {
    path: 'levels', listKey: 'levels', title: 'name', columns: ['level', 'minTotalPointsEarned'],
    fields: [int('level', { required: true }), name, description, int('minTotalPointsEarned', { required: true }), key],
  },
  {
    path: 'games', listKey: 'games', title: 'name', columns: ['type', 'pointsCost'],
    fields: [
      name, description, image,
      select('type', ['SPIN_WHEEL', 'SLOTS', 'DICE', 'SCRATCH_CARD', 'DAILY_CHECKIN'], { required: true, initial: 'SPIN_WHEEL' }),
      int('pointsCost'), int('maxPlaysPerUser', { nullable: true }), int('dailyPlaysLimit', { nullable: true }), int('cooldownMinutes'),
      { name: 'prizes', type: 'rows', fields: [text('name', { nullable: false }), int('value'), int('weight')],
        when: { field: 'type', is: ['SPIN_WHEEL', 'SLOTS', 'DICE', 'SCRATCH_CARD'] } },
      int('checkinPoints', { when: { field: 'type', is: ['DAILY_CHECKIN'] } }),
      { name: 'streakBonuses', type: 'rows', fields: [int('day'), int('bonus')], when: { field: 'type', is: ['DAILY_CHECKIN'] } },
      { name: 'showOdds', type: 'bool', initial: true, when: { field: 'type', is: ['SPIN_WHEEL', 'SLOTS', 'DICE', 'SCRATCH_CARD'] } },
      active, key,
    ],
  },
  {
    path: 'promo-codes', listKey: 'promoCodes', title: 'code', columns: ['rewardType', 'points'],
    fields: [
      text('code', { required: true, nullable: false }), description,
      select('rewardType', ['POINTS', 'REWARD'], { required: true, initial: 'POINTS' }),
      int('points', { nullable: true, when: { field: 'rewardType', is: ['POINTS'] } }),
      { name: 'rewardId', type: 'ref', ref: 'rewards', nullable: true, when: { field: 'rewardType', is: ['REWARD'] } },
      int('maxRedemptions', { nullable: true }), time('startsAt'), time('expiresAt'), active, key,
    ],
  },
  {
    path: 'multipliers', listKey: 'multipliers', title: 'name', columns: ['multiplier', 'startsAt', 'endsAt'],
    fields: [
      name, description, { name: 'multiplier', type: 'number', required: true },
      time('startsAt', { required: true, nullable: false }), time('endsAt', { required: true, nullable: false }),
      { name: 'sources', type: 'multi', options: EARNING_SOURCES, nullable: true }, active, key,
    ],
  },
];

export const kindOf = (path: string | undefined) => KINDS.find((kind) => kind.path === path);
