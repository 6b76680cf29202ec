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

/**
 * How far into a member listing one page may reach (`offset + limit`): a page never reads more
 * than this many members, however deep it asks. Past it, a listing pages on with its `next`
 * cursor (newest first, each page as cheap as the first); a search is narrowed instead.
 */
export const MEMBER_PAGE_REACH = 10_000;

export const memberListQuery = v.pipe(
  v.strictObject({
    search: v.optional(text(200)),
    limit: v.optional(queryInt(1, 100), '50'),
    offset: v.optional(queryInt(0, MEMBER_PAGE_REACH), '0'),
    cursor: v.optional(text(200)),
  }),
  v.check((q) => q.offset + q.limit <= MEMBER_PAGE_REACH,
    `offset + limit must be at most ${MEMBER_PAGE_REACH}: page on with pagination.next (the cursor), or narrow the search`),
  v.check((q) => q.cursor === undefined || (q.search === undefined && q.offset === 0), 'cursor continues a listing without search: give it without search or offset'),
);

export const memberLookupQuery = v.pipe(
  v.strictObject({ email: v.optional(text(254)), externalId: v.optional(externalId) }),
  v.check((q) => (q.email === undefined) !== (q.externalId === undefined), 'must give exactly one of email or externalId'),
);

/** `/members/lookup` for export and erasure: by externalId only (emails are not unique), whatever it is. */
export const memberByExternalIdQuery = v.strictObject({ externalId });
