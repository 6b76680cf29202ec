import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { atomically } from '../src/db/transaction.ts';
import { openStore, type Store } from '../src/db/store.ts';
import { createItem } from '../src/domain/catalog/catalog-items.ts';
import { levels } from '../src/domain/catalog/level-kind.ts';
import { adjustPoints } from '../src/domain/ledger/ledger.ts';
import { issueKey, listKeys, revokeKey } from '../src/domain/project/api-keys.ts';
import { rotateWidgetSecret, updateProject } from '../src/domain/project/projects.ts';
import { dataVersionThisTurn } from '../src/db/cache-version.ts';
import { client } from './helpers/http.ts';
import { widgetClient } from './helpers/widget.ts';
import { updateSettings } from '../src/domain/project/settings.ts';
import { createWebhook, updateWebhook } from '../src/webhooks/subscriptions.ts';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import { startTestServer, TEST_MASTER_KEY, TestClock, type TestServer } from './helpers/server.ts';

// The server keeps each project's settings, hot catalog and webhook subscriptions in memory. These
// tests change them every way there is (the server's own routes, a second connection as the CLI
// has, a rolled-back change) and check that the very next award sees the change.
let server: TestServer;
let cli: Store;
const clock = new TestClock(new Date('2026-04-01T10:00:00.000Z'));
const DAY = 86_400_000;

beforeAll(async () => {
  server = await startTestServer({ clock, webhooks: { runner: false } });
  // What `punchcard` commands open while the server runs: another connection to the same file.
  cli = await openStore({ path: server.dbPath, masterKey: TEST_MASTER_KEY });
  for (const externalId of ['ann', 'ben', 'cy']) expect((await server.api.post('/api/v1/members', { externalId })).status).toBe(201);
});
afterAll(async () => {
  cli.close();
  expect(checkLedger(server.ctx.db)).toEqual([]);
  await server.stop();
});

const award = async (externalId: string, amount = 10) => {
  const res = await server.api.post(`/api/v1/members/${externalId}/points`, { amount });
  expect(res.status, res.text).toBe(200);
  return res.body as { transaction: { expiresAt: string | null }; member: { level: number; levelName: string | null } };
};
const count = (sql: string, ...params: unknown[]) => server.ctx.db.prepare(sql).pluck().get(...params) as number;
const eventRows = (type: string) => count('SELECT count(*) FROM events WHERE type = ?', type);

describe('the cached project context', () => {
  it('sees settings and catalog items written by another connection on the next award', async () => {
    expect((await award('ann')).transaction.expiresAt).toBeNull();
    updateProject(cli.db, server.projectId, { pointsExpiryDays: 30 });
    expect((await award('ann')).transaction.expiresAt).toBe(new Date(clock.current.getTime() + 30 * DAY).toISOString());

    expect((await award('ann')).member).toMatchObject({ level: 0, levelName: null });
    createItem(cli.db, levels, server.projectId, { level: 1, name: 'Bronze', minTotalPointsEarned: 20, key: null, description: null }, clock.now());
    expect((await award('ann')).member).toMatchObject({ level: 1, levelName: 'Bronze' });

    // 10:00 UTC on 1 April is already 2 April on Kiritimati (UTC+14): today's board follows the new time zone.
    const dayBoard = () => count("SELECT day_board FROM members WHERE external_id = 'ann'") - 300_000_000;
    expect(dayBoard()).toBe(20260401);
    updateSettings(cli.db, server.projectId, { pointsExpiryDays: null, timezone: 'Pacific/Kiritimati' });
    expect((await award('ann')).transaction.expiresAt).toBeNull();
    expect(dayBoard()).toBe(20260402);
  });

  it('sees a change made through the server at once, and forgets one that rolled back', async () => {
    expect((await server.api.post('/api/v1/levels', { level: 2, name: 'Silver', minTotalPointsEarned: 60 })).status).toBe(201);
    expect((await award('ann')).member).toMatchObject({ level: 2, levelName: 'Silver' });

    const rollBack = new Error('roll back');
    expect(() => atomically(server.ctx.db, () => {
      updateProject(server.ctx.db, server.projectId, { pointsExpiryDays: 7 });
      // Read inside the change: the award in the same transaction already sees it...
      expect(adjustPoints(server.ctx.db, server.projectId, 'ben', { amount: 1 }, 'test', clock.now()).transaction.expiresAt).not.toBeNull();
      throw rollBack;
    })).toThrow(rollBack);
    // ...and after the rollback nothing of it is left in the cache.
    expect((await award('ben')).transaction.expiresAt).toBeNull();
  });

  it('writes no event row for an event nobody subscribes to, and rows again once a webhook subscribes', async () => {
    const before = eventRows('points.awarded');
    await award('cy');
    expect(eventRows('points.awarded')).toBe(before);
    expect(count('SELECT count(*) FROM events')).toBe(0);

    const hook = await server.api.post('/api/v1/webhooks', { url: 'https://93.184.215.14/hooks', events: ['points.awarded'] });
    expect(hook.status, hook.text).toBe(201);
    await award('cy');
    expect(eventRows('points.awarded')).toBe(1);
    expect(count('SELECT count(*) FROM webhook_deliveries WHERE webhook_id = ?', hook.body.id)).toBe(1);
    // Only what it subscribed to: a member.created of now has no row.
    expect((await server.api.post('/api/v1/members', { externalId: 'dee' })).status).toBe(201);
    expect(eventRows('member.created')).toBe(0);

    // Paused: nothing more is recorded for it; re-enabled: awards are recorded again.
    expect((await server.api.patch(`/api/v1/webhooks/${hook.body.id}`, { isActive: false })).status).toBe(200);
    await award('cy');
    expect(eventRows('points.awarded')).toBe(1);
    updateWebhook(cli.db, server.projectId, hook.body.id, { isActive: true }, clock.now());
    await award('cy');
    expect(eventRows('points.awarded')).toBe(2);
  });

  it('sees a webhook another connection created on the next event', async () => {
    expect(eventRows('member.created')).toBe(0);
    createWebhook(cli.db, cli.box, server.projectId, { url: 'https://93.184.215.14/members', events: ['member.created'] }, clock.now());
    expect((await server.api.post('/api/v1/members', { externalId: 'eve' })).status).toBe(201);
    expect(eventRows('member.created')).toBe(1);
  });
});

// API keys and widget secrets are cached too, checked against SQLite's data_version outside any
// transaction at most once per turn of the event loop (src/db/cache-version.ts).
describe('keys and widget secrets changed by another connection', () => {
  it('a key the CLI issues works, and one it revokes is refused, on the next request', async () => {
    const issued = issueKey(cli.db, { projectId: server.projectId, type: 'secret' }, clock.now());
    const api = client(server.url, issued.key);
    expect((await api.get('/api/v1/members/ann')).status).toBe(200);
    revokeKey(cli.db, listKeys(cli.db, server.projectId).find((k) => k.prefix === issued.key.slice(0, 12))!.id, clock.now());
    expect((await api.get('/api/v1/members/ann')).status).toBe(401);
  });

  it('a widget secret the CLI rotates takes over on the next request', async () => {
    const signedWith = (widgetSecret: string) => widgetClient(server.url, { publicKey: server.publishableKey, widgetSecret }, 'ann', clock.now);
    expect((await signedWith(server.widgetSecret).post('/init', {})).status).toBe(200);
    const rotated = rotateWidgetSecret(cli.db, cli.box, server.projectId);
    expect((await signedWith(server.widgetSecret).post('/init', {})).status).toBe(401);
    expect((await signedWith(rotated).post('/init', {})).status).toBe(200);
  });

  it('reads data_version once per turn outside transactions, and afresh in the next turn', async () => {
    const db = server.ctx.db;
    const before = dataVersionThisTurn(db);
    updateProject(cli.db, server.projectId, { name: 'Renamed by the CLI' });
    expect(dataVersionThisTurn(db)).toBe(before); // the same turn: the read is shared
    await new Promise((resolve) => setImmediate(resolve));
    expect(dataVersionThisTurn(db)).not.toBe(before);
  });
});
