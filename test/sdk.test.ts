import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_TYPES_FILE, apiTypes } from '../sdk/generate.ts';
import { createPunchcardClient, signWidgetAuth, verifyWebhook, WebhookVerificationError } from '../sdk/index.ts';
import { client } from './helpers/http.ts';
import { startReceiver, type Receiver } from './helpers/receiver.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

// The SDK against a real server: a signed widget ticket opens the widget, a delivery received on
// a local receiver verifies, and the typed client awards points.

let server: TestServer;
let receiver: Receiver;

beforeAll(async () => {
  server = await startTestServer({ webhooks: { runner: false } });
  receiver = await startReceiver();
});
afterAll(async () => {
  await server.stop();
  await receiver.close();
});

describe('punchcard/sdk', () => {
  it('is the package\'s sdk subpath export', () => {
    const names = execFileSync(process.execPath, ['--input-type=module', '-e', "const sdk = await import('punchcard/sdk'); console.log(Object.keys(sdk).sort().join(','))"],
      { cwd: new URL('..', import.meta.url), encoding: 'utf8' });
    expect(names.trim()).toBe('WebhookVerificationError,createPunchcardClient,signWidgetAuth,verifyWebhook');
  });

  it('has types generated from the current OpenAPI document (npm run sdk:types)', async () => {
    expect(readFileSync(API_TYPES_FILE, 'utf8') === await apiTypes(), 'sdk/api.ts is stale: run npm run sdk:types').toBe(true);
  });

  it('signs X-Widget-Auth the widget API accepts, profile fields included', async () => {
    const header = signWidgetAuth({
      publishableKey: server.publishableKey, widgetSecret: server.widgetSecret, externalId: 'sdk-shopper', member: { name: 'Ada Lovelace' },
      timestamp: server.clock.now().getTime(),
    });
    const init = await client(server.url).post('/api/widget/init', {}, { headers: { 'x-widget-auth': header } });
    expect(init.status).toBe(200);
    expect(init.body.member).toMatchObject({ externalId: 'sdk-shopper', name: 'Ada Lovelace' });
    expect(init.body.session.token).toMatch(/^pcs_/);
    const forged = signWidgetAuth({ publishableKey: server.publishableKey, widgetSecret: 'not-the-secret', externalId: 'sdk-shopper', timestamp: server.clock.now().getTime() });
    expect((await client(server.url).post('/api/widget/init', {}, { headers: { 'x-widget-auth': forged } })).status).toBe(401);
  });

  it('awards points through the typed client and verifies the delivery that follows', async () => {
    const punchcard = createPunchcardClient({ baseUrl: server.url, secretKey: server.secretKey });
    const hook = await punchcard.POST('/api/v1/webhooks', { body: { url: receiver.url, events: ['points.awarded'] } });
    expect(hook.response.status).toBe(201);
    const secret = hook.data!.secret;

    const member = await punchcard.POST('/api/v1/members', { body: { externalId: 'sdk-buyer', name: 'Grace' } });
    expect(member.data?.externalId).toBe('sdk-buyer');
    const award = await punchcard.POST('/api/v1/members/{externalId}/points', {
      params: { path: { externalId: 'sdk-buyer' } }, body: { amount: 150, description: 'Order 1042', idempotencyKey: 'order-1042' },
    });
    expect(award.error).toBeUndefined();
    expect(award.data?.member.points).toBe(150);
    expect(award.data?.transaction.type).toBe('EARNED');
    const summary = await punchcard.GET('/api/v1/members/{externalId}/points', { params: { path: { externalId: 'sdk-buyer' }, query: { history: 'true' } } });
    expect(summary.data?.transactions?.[0]?.amount).toBe(150);
    const missing = await punchcard.GET('/api/v1/members/{externalId}', { params: { path: { externalId: 'nobody' } } });
    expect(missing.response.status).toBe(404);
    expect(missing.error).toMatchObject({ error: 'Not Found', message: expect.any(String) });

    await server.deliveries.runDue();
    expect(receiver.received).toHaveLength(1);
    const [delivery] = receiver.received;
    const now = server.clock.now().getTime();
    const event = verifyWebhook(delivery!.headers, delivery!.raw, secret, now);
    expect(event).toMatchObject({ type: 'points.awarded', data: { externalId: 'sdk-buyer', pointsAwarded: 150 } });
    // Each scheme on its own, and what must fail.
    const { 'webhook-signature': _standard, ...oursOnly } = delivery!.headers;
    expect(verifyWebhook(oursOnly, delivery!.raw, secret, now).id).toBe(event.id);
    const { 'x-punchcard-signature': _ours, ...standardOnly } = delivery!.headers;
    expect(verifyWebhook(new Headers(standardOnly as Record<string, string>), Buffer.from(delivery!.raw), secret, now).id).toBe(event.id);
    expect(() => verifyWebhook(delivery!.headers, delivery!.raw.replace('150', '999'), secret, now)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(delivery!.headers, delivery!.raw, `whsec_${Buffer.alloc(32).toString('base64')}`, now)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(standardOnly, delivery!.raw, secret, now + 10 * 60_000)).toThrow(/too far from now/);
    expect(() => verifyWebhook({}, delivery!.raw, secret, now)).toThrow(/No X-Punchcard-Signature/);
  });
});
