import * as v from 'valibot';
import { externalId, identifier } from './common.ts';

export const promoRedeemBody = v.strictObject({ externalId, code: identifier(64) });
