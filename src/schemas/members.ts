import * as v from 'valibot';
import { calendarDate, email, externalId, httpUrl, metadata, queryInt, text } from './common.ts';

const profile = {
  email: v.optional(v.nullable(email)),
  name: v.optional(v.nullable(text(200))),
  avatarUrl: v.optional(v.nullable(httpUrl)),
  phone: v.optional(v.nullable(text(32))),
  dateOfBirth: v.optional(v.nullable(calendarDate)),
  metadata: v.optional(metadata),
};

export const memberCreateBody = v.strictObject({ externalId, ...profile });
export const memberUpdateBody = v.strictObject(profile);

export const memberListQuery = v.strictObject({
  search: v.optional(text(200)),
  limit: v.optional(queryInt(1, 100), '50'),
  offset: v.optional(queryInt(0, Number.MAX_SAFE_INTEGER), '0'),
});

export const memberLookupQuery = v.pipe(
  v.strictObject({ email: v.optional(text(254)), externalId: v.optional(externalId) }),
  v.check((q) => (q.email === undefined) !== (q.externalId === undefined), 'must give exactly one of email or externalId'),
);

/** `/members/lookup` for export and erasure: by externalId only (emails are not unique), whatever it is. */
export const memberByExternalIdQuery = v.strictObject({ externalId });
