import * as v from 'valibot';
import { externalId, text } from './common.ts';

export const promoRedeemBody = v.strictObject({ externalId, code: v.pipe(text(64), v.minLength(1, 'must not be empty')) });
