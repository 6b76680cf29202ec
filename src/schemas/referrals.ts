import * as v from 'valibot';
import { email, externalId, identifier, text } from './common.ts';

export const referralApplyBody = v.strictObject({
  externalId,
  referralCode: identifier(32),
  email: v.optional(v.nullable(email)),
  name: v.optional(v.nullable(text(200))),
});
