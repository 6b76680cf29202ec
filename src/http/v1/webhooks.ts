import {
  createWebhook, deleteWebhook, listWebhooks, requireWebhook, rotateWebhookSecret, testEvent, updateWebhook, webhookSecret, webhookView,
} from '../../webhooks/subscriptions.ts';
import { checkWebhookUrl } from '../../webhooks/url-policy.ts';
import { signMessage } from '../../webhooks/signing.ts';
import { attemptDelivery } from '../../webhooks/dispatcher.ts';
import { emptyBody } from '../../schemas/common.ts';
import { webhookCreateBody, webhookUpdateBody } from '../../schemas/webhooks.ts';
import { created } from '../route.ts';
import type { ServerApi } from './api.ts';
import type { AppContext } from '../context.ts';
import * as answers from '../../schemas/answers/server.ts';

/** The URL policy with its DNS lookup, before the transaction: a write never waits on the network. */
export const webhookUrlCheck = (ctx: AppContext) => async ({ body }: { body: { url?: string | undefined } }, run: () => Promise<unknown>) => {
  if (body.url !== undefined) await checkWebhookUrl(body.url, ctx.webhooks, ctx.webhooks.resolve);
  return run();
};

export function webhookRoutes({ route, ctx }: ServerApi): void {
  const checkUrl = webhookUrlCheck(ctx);

  route('GET', '/webhooks', { responses: { 200: answers.webhookList } }, ({ key }) => listWebhooks(ctx.db, key.projectId));

  // The answers that carry a secret are never stored (`secret`): an Idempotency-Key there would keep the secret in clear for 24 hours.
  route('POST', '/webhooks', { body: webhookCreateBody, write: true, secret: true, around: checkUrl, responses: { 201: answers.webhookCreated } }, ({ key, body, now }) =>
    created(createWebhook(ctx.db, ctx.box, key.projectId, body, now)));

  route('GET', '/webhooks/:webhookId', { responses: { 200: answers.webhook } }, ({ key, param }) => webhookView(ctx.db, key.projectId, param('webhookId')));

  route('PATCH', '/webhooks/:webhookId', { body: webhookUpdateBody, write: true, around: checkUrl, responses: { 200: answers.webhookUpdated } }, ({ key, body, param, now }) =>
    updateWebhook(ctx.db, key.projectId, param('webhookId'), body, now));

  route('DELETE', '/webhooks/:webhookId', { body: emptyBody, optionalBody: true, write: true, responses: { 200: answers.deleted } }, ({ key, param }) =>
    deleteWebhook(ctx.db, key.projectId, param('webhookId')));

  route('POST', '/webhooks/:webhookId/rotate-secret', { body: emptyBody, optionalBody: true, write: true, secret: true, responses: { 200: answers.webhookSecretRotated } }, ({ key, param, now }) =>
    rotateWebhookSecret(ctx.db, ctx.box, key.projectId, param('webhookId'), now));

  // One synchronous attempt, recorded nowhere: it answers whether the endpoint works right now.
  route('POST', '/webhooks/:webhookId/test', { body: emptyBody, optionalBody: true, responses: { 200: answers.webhookTested } }, async ({ key, param, now }) => {
    const webhook = requireWebhook(ctx.db, key.projectId, param('webhookId'));
    const message = signMessage(testEvent(webhook.id, now), webhookSecret(ctx.box, webhook), now);
    const { success, statusCode, durationMs, error } = await attemptDelivery(webhook.url, message, ctx.webhooks);
    return { success, statusCode, durationMs, error };
  });
}
