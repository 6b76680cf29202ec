import * as v from 'valibot';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../domain/operators/passwords.ts';
import { ROLES } from '../domain/operators/roles.ts';
import { multilineText } from '../shared/value-schemas.ts';
import { pointsAmount } from './points.ts';
import { calendarDate, email, identifier, text, timestamp } from './common.ts';

// The web admin's request schemas (docs/admin.md). Lists add listFields (src/http/admin/lists.ts).

/** A password: 12 to 256 characters, any characters at all (spaces, emoji): its strength is its length. */
const password = v.pipe(
  v.string('must be a string'),
  // Stated for the OpenAPI document (JSON Schema counts characters); the check below counts them the same way.
  v.minLength(MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters`),
  v.check((value) => [...value].length >= MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters`),
  v.check((value) => [...value].length <= MAX_PASSWORD_LENGTH, `must be at most ${MAX_PASSWORD_LENGTH} characters`),
);

/** A code of an authenticator app: six digits. */
const totpCode = v.pipe(v.string('must be a string'), v.regex(/^\d{6}$/, 'must be the 6 digits your authenticator app shows'));

/** Sign-in takes any text as a password: a wrong one is a 401 like any other, never a 400 that says something about the account. */
export const signInBody = v.strictObject({
  email: v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'), v.maxLength(254, 'must be at most 254 characters')),
  password: v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'), v.maxLength(MAX_PASSWORD_LENGTH, `must be at most ${MAX_PASSWORD_LENGTH} characters`)),
  totpCode: v.optional(totpCode),
});

export const inviteAcceptBody = v.strictObject({
  password,
  name: v.optional(v.pipe(text(200), v.minLength(1, 'must not be empty'))),
});

export const meBody = v.pipe(
  v.strictObject({
    name: v.optional(v.nullable(v.pipe(text(200), v.minLength(1, 'must not be empty')))),
    currentPassword: v.optional(v.pipe(v.string('must be a string'), v.maxLength(MAX_PASSWORD_LENGTH, `must be at most ${MAX_PASSWORD_LENGTH} characters`))),
    newPassword: v.optional(password),
  }),
  v.check((body) => body.newPassword === undefined || body.currentPassword !== undefined, '"newPassword" needs "currentPassword"'),
);

export const totpCodeBody = v.strictObject({ code: totpCode });

/** Adjusting points from the admin: one ledger posting with the operator's reason as its description. */
export const adjustBody = v.strictObject({
  amount: pointsAmount,
  reason: v.pipe(multilineText(500), v.check((value) => value.trim().length > 0, 'must not be empty: say why the points change')),
});

/** Erasing a member: `confirm` is their externalId, typed again. */
export const eraseBody = v.strictObject({ confirm: v.string('must be a string') });

export const fulfilBody = v.strictObject({ note: v.optional(multilineText(500)) });

export const drawBody = v.strictObject({
  winners: v.pipe(v.number('must be a number'), v.integer('must be a whole number'), v.minValue(1, 'must be at least 1'), v.maxValue(10_000, 'must be at most 10000')),
});

export const keyCreateBody = v.strictObject({
  type: v.picklist(['secret', 'publishable'], 'must be secret or publishable'),
  expiresInDays: v.optional(v.pipe(v.number('must be a number'), v.integer('must be a whole number'), v.minValue(1, 'must be at least 1'),
    v.maxValue(3650, 'must be at most 3650'))),
});

const role = v.picklist(ROLES, `must be one of ${ROLES.join(', ')}`);

export const operatorInviteBody = v.strictObject({ email, role });
export const operatorRoleBody = v.strictObject({ role });

export const claimFilter = {
  status: v.optional(v.picklist(['pending', 'fulfilled', 'all'], 'must be pending, fulfilled or all'), 'pending'),
  rewardId: v.optional(identifier(255)),
};

export const deliveryFilter = {
  state: v.optional(v.picklist(['pending', 'delivered', 'dead', 'all'], 'must be pending, delivered, dead or all'), 'all'),
};

/** A day of the project's calendar (the admin's date fields) or an instant; neither names the day's form, as the admin sends. */
const dayOrInstant = v.union([calendarDate, timestamp]);

export const auditFilter = {
  actor: v.optional(text(254)),
  action: v.optional(text(200)),
  target: v.optional(text(255)),
  /** From this day's start or this instant; `to`: through this day, or until this instant (excluded). */
  from: v.optional(dayOrInstant),
  to: v.optional(dayOrInstant),
};

export const memberSearch = { search: v.optional(text(200)) };
