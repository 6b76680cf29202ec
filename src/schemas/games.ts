import * as v from 'valibot';
import { externalId } from './common.ts';

/** POST /games/{id}/play and POST /games/{id}/checkin: who plays. */
export const gameMemberBody = v.strictObject({ externalId });

/** GET /games/{id}/checkin?externalId=… */
export const gameMemberQuery = v.strictObject({ externalId });
