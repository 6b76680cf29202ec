import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../helpers/http.ts';
import { startTestServer, TestClock, type TestServer } from '../helpers/server.ts';
import { widgetHeader } from '../helpers/widget.ts';

/**
 * An attacker against widget sessions and the guest view, with the production rate limits: forged
 * and altered tokens, another member's or project's, and guessing keys and tokens in bulk.
 */

let server: TestServer;
let anon: ReturnType<typeof client>;

beforeAll(async () => {
  server = await startTestServer({ clock: new TestClock(new Date('2026-03-01T10:00:00Z')), guard: {} });
  anon = client(server.url);
});
afterAll(() => server.stop());

const session = async (externalId: string) => {
  const ticket = widgetHeader({ publicKey: server.publishableKey, widgetSecret: server.widgetSecret }, externalId, server.clock.now().getTime());
  const res = await anon.post('/api/widget/init', {}, { headers: { 'x-widget-auth': ticket } });
  expect(res.status, res.text).toBe(200);
  return res.body.session.token as string;
};
const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
const forge = (token: string, change: Record<string, unknown>) => {
  const [payload, mac] = token.slice(4).split('.') as [string, string];
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
  return `pcs_${Buffer.from(JSON.stringify({ ...claims, ...change })).toString('base64url')}.${mac}`;
};

describe('widget sessions under attack', () => {
  it('refuses a token changed in any way: another member, a later expiry, another project; nothing leaks in the answer', async () => {
    const mallory = await session('mallory');
    await session('victim');
    const other = server.addProject('Other shop');
    for (const token of [forge(mallory, { e: 'victim' }), forge(mallory, { x: Date.parse('2030-01-01') }), forge(mallory, { p: other.projectId }),
      `${mallory}x`, 'pcs_nonsense', `pcs_${'a'.repeat(2000)}.b`, mallory.replace(/\.[\w-]+$/, `.${'A'.repeat(43)}`)]) {
      const res = await anon.get('/api/widget/profile', bearer(token));
      expect(res.status, token.slice(0, 40)).toBe(401);
      expect(res.body.error).toBe('session_expired');
      expect(res.text).not.toMatch(/victim|mallory|whsk_/);
    }
    expect((await anon.get('/api/widget/profile', bearer(mallory))).body.externalId).toBe('mallory');
  });

  it('every refused token spends the address\'s failed-check budget, after which a wrong one gets 429 and a valid one still passes', async () => {
    const good = await session('patient');
    let status = 0;
    let refused = 0;
    for (; refused < 100; refused++) {
      status = (await anon.get('/api/widget/profile', bearer(`pcs_guess${refused}.x`))).status;
      if (status === 429) break;
    }
    expect(status).toBe(429);
    expect(refused).toBeLessThanOrEqual(60);
    // Someone else's failures from the address never refuse a right credential (test/security/lockout.test.ts).
    expect((await anon.get('/api/widget/profile', bearer(good))).status).toBe(200);
    const wrong = await anon.get('/api/widget/profile', bearer('pcs_guess-again.x'));
    expect(wrong.status).toBe(429);
    expect(Number(wrong.headers['retry-after'])).toBeGreaterThan(0);
    // Guessing publishable keys on the guest view draws on the same budget.
    expect((await anon.get('/api/widget/guest?publicKey=pk_live_guessed')).status).toBe(429);
    expect((await anon.get(`/api/widget/guest?publicKey=${server.publishableKey}`)).status).toBe(200);
  });
});
