import * as v from 'valibot';
import { storeSettingsSchema } from '../domain/commerce/store-settings.ts';
import { httpUrl, identifier, text } from './common.ts';

// WooCommerce keys are `ck_` / `cs_` and 40 hex characters; other lengths are accepted so a store
// with another generator still connects, but never control characters or spaces.
const consumerPart = (prefix: string) => v.pipe(
  identifier(255),
  v.regex(new RegExp(`^${prefix}_[A-Za-z0-9]+$`), `must be a WooCommerce key starting with ${prefix}_ (WooCommerce → Settings → Advanced → REST API)`),
);

export const connectBody = v.strictObject({
  siteUrl: httpUrl,
  consumerKey: consumerPart('ck'),
  consumerSecret: consumerPart('cs'),
  /** Your own label for the store (the WordPress plugin sends the project's id, the default); Punchcard keeps it and answers it, nothing depends on it. */
  organizationId: v.optional(identifier(255)),
});

/** PATCH settings: any of the settings, at least one; an unknown one is refused by name. */
export const settingsPatchBody = v.pipe(
  v.strictObject(Object.fromEntries(Object.entries(storeSettingsSchema.entries).map(([name, field]) => [name, v.optional(field.wrapped)])) as {
    [K in keyof typeof storeSettingsSchema.entries]: v.OptionalSchema<(typeof storeSettingsSchema.entries)[K]['wrapped'], undefined>
  }),
  v.check((body) => Object.keys(body).length > 0, `must change at least one of ${Object.keys(storeSettingsSchema.entries).join(', ')}`),
);

export const DISCOUNT_TYPES = ['PERCENTAGE', 'FIXED_CART', 'FIXED_PRODUCT'] as const;

export const couponBody = v.pipe(
  v.strictObject({
    storeId: identifier(64),
    rewardClaimId: identifier(64),
    discountType: v.picklist(DISCOUNT_TYPES, `must be one of ${DISCOUNT_TYPES.join(', ')}`),
    discountValue: v.pipe(
      v.number('must be a number'), v.finite('must be a finite number'), v.minValue(0.01, 'must be at least 0.01'), v.maxValue(1_000_000, 'must be at most 1000000'),
      v.check((value) => Math.abs(value * 100 - Math.round(value * 100)) < 1e-6, 'must have at most 2 decimals'),
    ),
  }),
  v.check((body) => body.discountType !== 'PERCENTAGE' || body.discountValue <= 100, '"discountValue" must be at most 100 for a PERCENTAGE discount'),
);

// Answers, for the OpenAPI document.
const webhookList = v.array(v.object({ id: v.number(), topic: v.string() }));
export const storeAnswer = v.object({ id: v.string(), siteUrl: v.string(), organizationId: v.string(), webhooks: webhookList, createdAt: v.string() });
export const disconnectAnswer = v.object({ id: v.string(), deleted: v.literal(true) });
export const settingsAnswer = v.object({ storeId: v.string(), settings: storeSettingsSchema });
export const deliveryAnswer = v.object({ received: v.literal(true), outcome: text(64) });
export const couponAnswer = v.object({
  id: v.string(), storeId: v.string(), rewardClaimId: v.string(), code: v.nullable(v.string()), status: v.picklist(['PENDING', 'CREATED', 'FAILED']),
  discountType: v.picklist(DISCOUNT_TYPES), discountValue: v.number(), storeCouponId: v.nullable(v.number()),
});
