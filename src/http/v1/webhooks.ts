import type { H3Event } from 'h3';
import {
  createWebhook, deleteWebhook, listWebhooks, requireWebhook, rotateWebhookSecret, testEvent, updateWebhook, webhookSecret, webhookView,
} from '../../webhooks/subscriptions.ts';
import { checkWebhookUrl } from '../../webhooks/url-policy.ts';
import { signMessage } from '../../webhooks/signing.ts';
import { attemptDelivery } from '../../webhooks/dispatcher.ts';
import { badRequest } from '../../shared/errors.ts';
import { pathParam, readJson, validate } from '../request.ts';
import { emptyBody } from '../../schemas/common.ts';
import { webhookCreateBody, webhookUpdateBody } from '../../schemas/webhooks.ts';
import { created, mutate, ok, type ServerApi } from './api.ts';

/**
 * The answers that carry a secret are never stored, so they cannot be replayed: an Idempotency-Key
 * there would keep the secret in clear for 24 hours.
 */
function refuseIdempotencyKey(event: H3Event): void {
  if (event.req.headers.has('idempotency-key')) {
    throw badRequest('Idempotency-Key is not accepted here: the answer carries a secret, which is never stored for a replay.');
  }
}

export function webhookRoutes({ route, ctx }: ServerApi): void {
  const checkUrl = (url: string | undefined) => (url === undefined ? undefined : checkWebhookUrl(url, ctx.webhooks, ctx.webhooks.resolve));

  route('GET', '/webhooks', (_event, key) => listWebhooks(ctx.db, key.projectId));

  route('POST', '/webhooks', async (event, key, now) => {
    const rawBody = await readJson(event);
    const body = validate(webhookCreateBody, rawBody);
    refuseIdempotencyKey(event);
    await checkUrl(body.url);
    return mutate(event, ctx, key, now, { rawBody }, () => created(createWebhook(ctx.db, ctx.box, key.projectId, body, now)));
  });

  route('GET', '/webhooks/:webhookId', (event, key) => webhookView(ctx.db, key.projectId, pathParam(event, 'webhookId')));

  route('PATCH', '/webhooks/:webhookId', async (event, key, now) => {
    const rawBody = await readJson(event);
    const body = validate(webhookUpdateBody, rawBody);
    await checkUrl(body.url);
    return mutate(event, ctx, key, now, { rawBody }, () => ok(updateWebhook(ctx.db, key.projectId, pathParam(event, 'webhookId'), body, now)));
  });

  route('DELETE', '/webhooks/:webhookId', async (event, key, now) => {
    const rawBody = await readJson(event, { emptyAllowed: true });
    validate(emptyBody, rawBody);
    return mutate(event, ctx, key, now, { rawBody }, () => ok(deleteWebhook(ctx.db, key.projectId, pathParam(event, 'webhookId'))));
  });

  route('POST', '/webhooks/:webhookId/rotate-secret', async (event, key, now) => {
    const rawBody = await readJson(event, { emptyAllowed: true });
    validate(emptyBody, rawBody);
    refuseIdempotencyKey(event);
    return mutate(event, ctx, key, now, { rawBody }, () => ok(rotateWebhookSecret(ctx.db, ctx.box, key.projectId, pathParam(event, 'webhookId'), now)));
  });

  // One synchronous attempt, recorded nowhere: it answers whether the endpoint works right now.
  route('POST', '/webhooks/:webhookId/test', async (event, key, now) => {
    const rawBody = await readJson(event, { emptyAllowed: true });
    validate(emptyBody, rawBody);
    const webhook = requireWebhook(ctx.db, key.projectId, pathParam(event, 'webhookId'));
    const message = signMessage(testEvent(webhook.id, now), webhookSecret(ctx.box, webhook), now);
    const { success, statusCode, durationMs, error } = await attemptDelivery(webhook.url, message, ctx.webhooks);
    return { success, statusCode, durationMs, error };
  });
}
