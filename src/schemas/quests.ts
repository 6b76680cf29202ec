import * as v from 'valibot';
import { externalId, identifier, metadata, text } from './common.ts';

export const eventBody = v.strictObject({
  externalId,
  event: v.pipe(text(100), v.minLength(1, 'must not be empty')),
  properties: v.optional(metadata),
});

export const questProgressBody = v.strictObject({
  externalId,
  progress: v.optional(v.pipe(
    v.number('must be a number'),
    v.integer('must be a whole number'),
    v.minValue(1, 'must be at least 1'),
    v.maxValue(1_000_000, 'must be at most 1000000'),
  ), 1),
  metadata: v.optional(metadata),
});

export const questCompleteBody = v.strictObject({ externalId, metadata: v.optional(metadata) });

export const memberBadgeBody = v.strictObject({ badgeId: identifier(64) });
