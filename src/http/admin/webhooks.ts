import * as v from 'valibot';
import { createWebhook, deleteWebhook, listWebhooks, requireWebhook, updateWebhook } from '../../webhooks/subscriptions.ts';
import { replayDelivery, webhookDeliveries, type Delivery } from '../../webhooks/deliveries.ts';
import { emptyBody } from '../../schemas/common.ts';
import { deliveryFilter } from '../../schemas/admin.ts';
import { webhookCreateBody } from '../../schemas/webhooks.ts';
import * as admin from '../../schemas/answers/admin.ts';
import * as server from '../../schemas/answers/server.ts';
import { created } from '../route.ts';
import { webhookUrlCheck } from '../v1/webhooks.ts';
import type { ProjectApi } from './api.ts';
import { formatQuery, listAnswer, listFields, tableAnswer } from './lists.ts';

const WEBHOOK_COLUMNS = ['id', 'url', 'events', 'state', 'isActive', 'createdAt', 'failingSince', 'failedAt', 'lastError'];
const DELIVERY_COLUMNS = ['id', 'eventType', 'state', 'attempts', 'lastStatus', 'lastError', 'createdAt', 'nextAttemptAt', 'deliveredAt'];

/** A delivery as the admin lists it. */
const deliveryView = ({ id, type, status, attempts, lastStatus, lastError, createdAt, nextAttemptAt, deliveredAt }: Delivery) =>
  ({ id, eventType: type, state: status, attempts, lastStatus, lastError, createdAt, nextAttemptAt, deliveredAt });

/** Webhook endpoints, their deliveries and state; replaying a delivery, re-enabling an endpoint. The secret is in the answer that creates it only. */
export function webhookRoutes({ route, ctx }: ProjectApi): void {
  route('GET', '/webhooks', { query: formatQuery, csv: true, responses: { 200: server.webhookList } }, ({ projectId, query }) =>
    tableAnswer(query, 'webhooks', WEBHOOK_COLUMNS, listWebhooks(ctx.db, projectId).webhooks));

  route('POST', '/webhooks', { body: webhookCreateBody, write: true, secret: true, around: webhookUrlCheck(ctx), responses: { 201: server.webhookCreated } },
    ({ projectId, body, now }) => created(createWebhook(ctx.db, ctx.box, projectId, body, now)));

  route('DELETE', '/webhooks/:webhookId', { body: emptyBody, optionalBody: true, write: true, responses: { 200: server.deleted } }, ({ projectId, param }) =>
    deleteWebhook(ctx.db, projectId, param('webhookId')));

  route('GET', '/webhooks/:webhookId/deliveries', {
    query: v.strictObject({ ...deliveryFilter, ...listFields }), csv: true, responses: { 200: admin.deliveryList },
  }, ({ projectId, param, query }) => {
    const webhook = requireWebhook(ctx.db, projectId, param('webhookId'));
    return listAnswer(query, {
      key: 'deliveries', columns: DELIVERY_COLUMNS,
      page: (limit, offset) => {
        const { deliveries, pagination } = webhookDeliveries(ctx.db, projectId, webhook.id, { status: query.state === 'all' ? undefined : query.state, limit, offset });
        return { items: deliveries.map(deliveryView), pagination };
      },
    });
  });

  route('POST', '/webhooks/:webhookId/deliveries/:deliveryId/replay', { body: emptyBody, optionalBody: true, write: true, responses: { 200: admin.delivery } },
    ({ projectId, param, now }) => deliveryView(replayDelivery(ctx.db, param('deliveryId'), now, { projectId, webhookId: param('webhookId') })));

  route('POST', '/webhooks/:webhookId/enable', { body: emptyBody, optionalBody: true, write: true, responses: { 200: server.webhookUpdated } },
    ({ projectId, param, now }) => updateWebhook(ctx.db, projectId, param('webhookId'), { isActive: true }, now));
}
