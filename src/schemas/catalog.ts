import * as v from 'valibot';
import type { CatalogKind } from '../domain/catalog/catalog-items.ts';
import { badges } from '../domain/catalog/badge-kind.ts';
import { games } from '../domain/catalog/game-kind.ts';
import { CATALOG_KINDS } from '../domain/catalog/kinds.ts';
import { levels } from '../domain/catalog/level-kind.ts';
import { multipliers } from '../domain/catalog/multiplier-kind.ts';
import { promoCodes } from '../domain/catalog/promo-code-kind.ts';
import { quests } from '../domain/catalog/quest-kind.ts';
import { rewards } from '../domain/catalog/reward-kind.ts';
import { EARNING_SOURCES } from '../domain/multipliers/earn.ts';
import { MAX_POSTING } from '../domain/ledger/ledger.ts';
import { httpUrl, identifier, multilineText, queryBool, queryInt, text, timestamp } from './common.ts';

type Schema = v.GenericSchema<unknown, unknown>;

/** A field of a catalog item: required, optional with a default, or optional and nullable (null clears it). */
interface FieldSpec {
  schema: Schema;
  required?: boolean;
  default?: unknown;
}

const required = (schema: Schema): FieldSpec => ({ schema, required: true });
const withDefault = (schema: Schema, value: unknown): FieldSpec => ({ schema, default: value });
const nullable = (schema: Schema): FieldSpec => ({ schema });

const int = (min: number, max = MAX_POSTING) => v.pipe(
  v.number('must be a number'),
  v.integer('must be a whole number'),
  v.minValue(min, `must be at least ${min}`),
  v.maxValue(max, `must be at most ${max}`),
);
const enumOf = <T extends string>(values: readonly T[]) => v.picklist(values, `must be one of ${values.join(', ')}`);
const name = text(200);
const label = v.pipe(text(200), v.minLength(1, 'must not be empty'));
const slug = (max: number) => v.pipe(v.string('must be a string'), v.regex(new RegExp(`^[A-Za-z0-9][A-Za-z0-9._:-]{0,${max - 1}}$`),
  `must be 1 to ${max} letters, digits, ".", "_", ":" or "-", starting with a letter or digit`));
const minutes = int(0, 525_600);

/** The stable key `punchcard seed --file` matches items by. */
const itemKey = slug(100);

const FIELDS: Record<string, Record<string, FieldSpec>> = {
  [quests.path]: {
    name: required(label),
    description: nullable(multilineText(2000)),
    action: nullable(slug(100)),
    completionMode: required(enumOf(['MANUAL', 'AUTOMATED', 'SELF_REPORT'])),
    targetCount: withDefault(int(1, 1_000_000), 1),
    points: withDefault(int(0), 0),
    badgeId: nullable(identifier(64)),
    repeatable: withDefault(v.boolean('must be true or false'), false),
    cooldownMinutes: withDefault(minutes, 0),
    imageUrl: nullable(httpUrl),
    linkUrl: nullable(httpUrl),
    startsAt: nullable(timestamp),
    endsAt: nullable(timestamp),
    isActive: withDefault(v.boolean('must be true or false'), true),
  },
  [rewards.path]: {
    name: required(label),
    description: nullable(multilineText(2000)),
    imageUrl: nullable(httpUrl),
    type: required(enumOf(['COUPON', 'PHYSICAL', 'DIGITAL', 'RAFFLE', 'CUSTOM'])),
    pointsCost: required(int(0)),
    stock: nullable(int(0)),
    maxClaimsPerUser: nullable(int(1)),
    minLevel: withDefault(int(0, 1000), 0),
    discountConfig: nullable(v.strictObject({
      type: enumOf(['PERCENTAGE', 'FIXED_CART', 'FIXED_PRODUCT']),
      value: v.pipe(v.number('must be a number'), v.minValue(0, 'must be at least 0'), v.maxValue(1_000_000, 'must be at most 1000000')),
    })),
    digitalContent: nullable(multilineText(10_000)),
    expiresAt: nullable(timestamp),
    isActive: withDefault(v.boolean('must be true or false'), true),
  },
  [badges.path]: {
    name: required(label),
    description: nullable(multilineText(2000)),
    imageUrl: nullable(httpUrl),
    rarity: withDefault(enumOf(['COMMON', 'UNCOMMON', 'RARE', 'EPIC', 'LEGENDARY']), 'COMMON'),
    criteria: nullable(v.strictObject({
      type: enumOf(['totalPointsEarned', 'currentStreak', 'questsCompleted', 'referralsConverted']),
      threshold: int(1),
    })),
  },
  [games.path]: {
    name: required(label),
    description: nullable(multilineText(2000)),
    imageUrl: nullable(httpUrl),
    type: required(enumOf(['SPIN_WHEEL', 'SLOTS', 'DICE', 'SCRATCH_CARD', 'DAILY_CHECKIN'])),
    pointsCost: withDefault(int(0), 0),
    maxPlaysPerUser: nullable(int(1)),
    dailyPlaysLimit: nullable(int(1)),
    cooldownMinutes: withDefault(minutes, 0),
    prizes: withDefault(v.pipe(v.array(v.strictObject({ name: label, value: int(0), weight: int(0, 1_000_000) }), 'must be an array'),
      v.maxLength(100, 'must hold at most 100 prizes')), []),
    checkinPoints: withDefault(int(0), 0),
    streakBonuses: withDefault(v.pipe(v.array(v.strictObject({ day: int(1, 3660), bonus: int(0) }), 'must be an array'),
      v.maxLength(366, 'must hold at most 366 bonuses')), []),
    isActive: withDefault(v.boolean('must be true or false'), true),
  },
  [promoCodes.path]: {
    code: required(slug(64)),
    description: nullable(multilineText(2000)),
    rewardType: required(enumOf(['POINTS', 'REWARD'])),
    points: nullable(int(1)),
    rewardId: nullable(identifier(64)),
    maxRedemptions: nullable(int(1)),
    startsAt: nullable(timestamp),
    expiresAt: nullable(timestamp),
    isActive: withDefault(v.boolean('must be true or false'), true),
  },
  [multipliers.path]: {
    name: required(label),
    description: nullable(multilineText(2000)),
    multiplier: required(v.pipe(v.number('must be a number'), v.check((n) => n > 1, 'must be greater than 1'), v.maxValue(100, 'must be at most 100'))),
    startsAt: required(timestamp),
    endsAt: required(timestamp),
    sources: nullable(v.pipe(v.array(enumOf(EARNING_SOURCES), 'must be an array'), v.minLength(1, 'must name at least one source'))),
    isActive: withDefault(v.boolean('must be true or false'), true),
  },
  [levels.path]: {
    level: required(int(0, 1000)),
    name: required(label),
    description: nullable(multilineText(2000)),
    minTotalPointsEarned: required(int(0)),
  },
};

function createShape(fields: Record<string, FieldSpec>): Record<string, Schema> {
  const shape: Record<string, Schema> = { key: v.optional(v.nullable(itemKey), null) };
  for (const [field, spec] of Object.entries(fields)) {
    shape[field] = spec.required ? spec.schema : spec.default !== undefined ? v.optional(spec.schema, spec.default) : v.optional(v.nullable(spec.schema), null);
  }
  return shape;
}

function updateShape(fields: Record<string, FieldSpec>): Record<string, Schema> {
  const shape: Record<string, Schema> = { key: v.optional(v.nullable(itemKey)) };
  for (const [field, spec] of Object.entries(fields)) {
    shape[field] = spec.required || spec.default !== undefined ? v.optional(spec.schema) : v.optional(v.nullable(spec.schema));
  }
  return shape;
}

export interface CatalogSchemas {
  kind: CatalogKind;
  /** Every field present after parsing, defaults applied. */
  create: v.GenericSchema<unknown, Record<string, unknown>>;
  /** Only the fields to change; null clears an optional field. */
  update: v.GenericSchema<unknown, Record<string, unknown>>;
}

/** Each catalog kind with the valibot schemas its routes, the CLI and seed files validate with. */
export const CATALOGS: CatalogSchemas[] = CATALOG_KINDS.map((kind) => ({
  kind,
  create: v.strictObject(createShape(FIELDS[kind.path]!)) as unknown as v.GenericSchema<unknown, Record<string, unknown>>,
  update: v.strictObject(updateShape(FIELDS[kind.path]!)) as unknown as v.GenericSchema<unknown, Record<string, unknown>>,
}));

export const catalogListQuery = v.strictObject({
  limit: v.optional(queryInt(1, 100), '50'),
  offset: v.optional(queryInt(0, Number.MAX_SAFE_INTEGER), '0'),
  active: v.optional(queryBool),
  includeArchived: v.optional(queryBool, 'false'),
});
