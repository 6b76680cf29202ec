import * as v from 'valibot';
import { EVENT_TYPES } from '../domain/events/record-event.ts';

/** The URL's rules beyond its length (https, no private addresses) are checked by checkWebhookUrl. */
const url = v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'), v.maxLength(2048, 'must be at most 2048 characters'));

const events = v.pipe(
  v.array(v.picklist(EVENT_TYPES, (issue) => `is ${issue.received}, not an event; use one of ${EVENT_TYPES.join(', ')}`), 'must be an array of event names'),
  v.minLength(1, 'must name at least one event'),
  v.maxLength(EVENT_TYPES.length * 2, `must have at most ${EVENT_TYPES.length * 2} entries`),
);

export const webhookCreateBody = v.strictObject({ url, events });

export const webhookUpdateBody = v.pipe(
  v.strictObject({
    url: v.optional(url), events: v.optional(events), isActive: v.optional(v.boolean('must be true or false')),
    resendFailed: v.optional(v.boolean('must be true or false')),
  }),
  v.check((body) => Object.keys(body).length > 0, 'must change at least one of url, events or isActive'),
  v.check((body) => body.resendFailed === undefined || body.isActive === true, '"resendFailed" goes only with "isActive": true'),
);
