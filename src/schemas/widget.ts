import * as v from 'valibot';
import { calendarDate, email, externalId, httpUrl, identifier, queryInt, text } from './common.ts';
import { promoRedeemBody } from './promo.ts';

// X-Widget-Auth claims. A `member` string (signed profile fields) is parsed and checked only once
// the signature holds; a `member` object is unsigned and ignored.
export const widgetAuthClaims = v.object({
  publicKey: v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'), v.maxLength(200, 'must be at most 200 characters')),
  externalId,
  timestamp: v.pipe(v.number('must be a number (milliseconds since 1970)'), v.integer('must be whole milliseconds'), v.safeInteger('must be whole milliseconds')),
  signature: v.pipe(v.string('must be a string'), v.maxLength(200, 'must be at most 200 characters')),
  member: v.optional(v.union([v.string(), v.looseObject({})], 'must be the signed JSON text of the profile fields')),
});

/** Profile data a shop's page may pass to init; metadata stays with the server API. */
export const widgetMember = v.object({
  member: v.strictObject({
    email: v.optional(v.nullable(email)),
    name: v.optional(v.nullable(text(200))),
    avatarUrl: v.optional(v.nullable(httpUrl)),
    phone: v.optional(v.nullable(text(32))),
    dateOfBirth: v.optional(v.nullable(calendarDate)),
  }, 'must be a JSON object'),
});

/** The visitor's language wishes, most wanted first (init's `language`, then the browser's): init answers with the strings of one. */
export const widgetLanguages = v.pipe(v.array(text(35), 'must be an array of language codes'), v.maxLength(10, 'must hold at most 10 languages'));

export const widgetInitBody = v.strictObject({ origin: v.optional(text(2048)), languages: v.optional(widgetLanguages) });

export const widgetProfileBody = v.strictObject({
  name: v.optional(v.nullable(text(200))),
  avatarUrl: v.optional(v.nullable(httpUrl)),
});

export const widgetHistoryQuery = v.strictObject({
  limit: v.optional(queryInt(1, 100), '20'),
  offset: v.optional(queryInt(0, Number.MAX_SAFE_INTEGER), '0'),
});

/** POST /rewards: which reward to claim; the member is the signed one. */
export const widgetClaimBody = v.strictObject({ rewardId: identifier(64) });

/** POST /promo-code: the server API's body without externalId, which the signature gives. */
export const widgetPromoBody = v.omit(promoRedeemBody, ['externalId']);

/** GET /claims: how many of the newest claims. */
export const widgetClaimsQuery = v.strictObject({ limit: v.optional(queryInt(1, 100), '50') });

/** GET /guest: the project's publishable key, which is all a visitor who is not signed in has. */
export const guestQuery = v.strictObject({
  publicKey: v.pipe(v.string('must be the publishable key (pk_live_…)'), v.minLength(1, 'must not be empty'), v.maxLength(200, 'must be at most 200 characters')),
  /** The visitor's language wishes, comma-separated: the answer carries the strings of the one picked, as init's does. */
  languages: v.optional(v.pipe(v.string('must be language codes separated by commas'), v.maxLength(400, 'must be at most 400 characters'))),
});
