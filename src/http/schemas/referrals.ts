import * as v from 'valibot';
import { email, externalId, text } from './common.ts';

export const referralApplyBody = v.strictObject({
  externalId,
  referralCode: v.pipe(text(32), v.minLength(1, 'must not be empty')),
  email: v.optional(v.nullable(email)),
  name: v.optional(v.nullable(text(200))),
});
