import * as v from 'valibot';
import { externalId } from './common.ts';

export const redeemBody = v.strictObject({ externalId });
