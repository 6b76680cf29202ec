// punchcard/sdk: what a shop's Node server needs beside the HTTP API.
export { signWidgetAuth, type WidgetAuthInput } from './widget-auth.ts';
export { verifyWebhook, WebhookVerificationError, type WebhookEvent, type WebhookHeaders } from './webhooks.ts';
export { createPunchcardClient, type PunchcardClient, type paths } from './client.ts';
