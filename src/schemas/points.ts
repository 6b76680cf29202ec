import * as v from 'valibot';
import { MAX_POSTING } from '../shared/value-schemas.ts';
import { idempotencyKey, metadata, queryBool, queryInt, text, timestamp } from './common.ts';

/** An award (positive) or a deduction (negative): the server API's and the admin's. */
export const pointsAmount = v.pipe(
  v.number('must be a number'),
  v.integer('must be a whole number of points'),
  v.notValue(0, 'must not be zero: positive awards, negative deducts'),
  v.minValue(-MAX_POSTING, `must be at least -${MAX_POSTING}`),
  v.maxValue(MAX_POSTING, `must be at most ${MAX_POSTING}`),
);

export const pointsBody = v.strictObject({
  amount: pointsAmount,
  description: v.optional(text(500)),
  referenceId: v.optional(text(255)),
  metadata: v.optional(metadata),
  expiresAt: v.optional(timestamp),
  idempotencyKey: v.optional(idempotencyKey),
});

export const pointsQuery = v.strictObject({
  history: v.optional(queryBool, 'false'),
  limit: v.optional(queryInt(1, 100), '20'),
});
