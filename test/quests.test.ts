import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import { MATCHING_QUESTS } from '../src/domain/quests/quest-progress.ts';
import { startTestServer, TestClock, tableCounts, type TestServer } from './helpers/server.ts';

let server: TestServer;
const clock = new TestClock(new Date('2026-05-01T10:00:00.000Z'));
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const iso = (offsetMs: number) => new Date(clock.current.getTime() + offsetMs).toISOString();

beforeAll(async () => {
  server = await startTestServer({ clock });
  // A subscriber to every event, so the outbox records what each change emits.
  server.ctx.db.prepare(`INSERT INTO webhooks (id, project_id, url, events, secret, created_at, updated_at)
    VALUES ('whk_test', ?, 'https://hooks.example/in', ?, 'x', ?, ?)`)
    .run(server.projectId, JSON.stringify(['member.created', 'points.awarded', 'quest.completed', 'badge.awarded']), iso(0), iso(0));
});
afterAll(async () => {
  expect(checkLedger(server.ctx.db)).toEqual([]);
  await server.stop();
});

const create = async (path: string, body: Record<string, unknown>) => {
  const res = await server.api.post(`/api/v1/${path}`, body);
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string } & Record<string, unknown>;
};
const member = async (externalId: string) => {
  const res = await server.api.post('/api/v1/members', { externalId });
  expect(res.status).toBeLessThan(300);
};
const events = (type: string) => (server.ctx.db.prepare('SELECT data FROM events WHERE type = ? ORDER BY id').all(type) as { data: string }[])
  .map((row) => JSON.parse(row.data) as Record<string, unknown>);

describe('POST /events', () => {
  it('creates an unknown member, advances matching AUTOMATED quests by one, completes at the target', async () => {
    const badge = await create('badges', { name: 'Shopper', rarity: 'RARE', imageUrl: 'https://cdn.example/shopper.png' });
    const quest = await create('quests', { name: 'Three purchases', completionMode: 'AUTOMATED', action: 'purchase', targetCount: 3, points: 30, badgeId: badge.id });
    const other = await create('quests', { name: 'One purchase', completionMode: 'AUTOMATED', action: 'purchase', points: 5 });
    await create('quests', { name: 'Other action', completionMode: 'AUTOMATED', action: 'review', points: 99 });
    await create('quests', { name: 'Manual with the same action', completionMode: 'MANUAL', action: 'purchase', points: 99 });

    const first = await server.api.post('/api/v1/events', { externalId: 'newbie', event: 'purchase', properties: { orderId: 'o-1' } });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ tracked: true, event: 'purchase', externalId: 'newbie', questsTriggered: 2 });
    expect(first.body.questsCompleted).toEqual([{
      id: expect.stringMatching(/^qcp_/), questId: other.id, questName: 'One purchase', pointsAwarded: 5, basePoints: 5, multiplier: 1,
      multiplierEventName: null, completedAt: clock.current.toISOString(),
    }]);
    expect(events('member.created').map((e) => e.externalId)).toContain('newbie');

    const second = await server.api.post('/api/v1/events', { externalId: 'newbie', event: 'purchase' });
    expect(second.body).toMatchObject({ questsTriggered: 1, questsCompleted: [] });
    // Progress is visible through the progress route: 2 of 3.
    const third = await server.api.post('/api/v1/events', { externalId: 'newbie', event: 'purchase' });
    expect(third.body.questsTriggered).toBe(1);
    expect(third.body.questsCompleted).toMatchObject([{ questId: quest.id, questName: 'Three purchases', pointsAwarded: 30, basePoints: 30 }]);
    const fourth = await server.api.post('/api/v1/events', { externalId: 'newbie', event: 'purchase' });
    expect(fourth.body).toMatchObject({ questsTriggered: 0, questsCompleted: [] });

    const profile = await server.api.get('/api/v1/members/newbie');
    expect(profile.body).toMatchObject({ points: 35, totalPointsEarned: 35 });
    const held = await server.api.get('/api/v1/members/newbie/badges');
    expect(held.body.badges).toEqual([{
      id: expect.stringMatching(/^mbg_/), badgeId: badge.id, name: 'Shopper', description: null, imageUrl: 'https://cdn.example/shopper.png',
      rarity: 'RARE', earnedAt: clock.current.toISOString(),
    }]);
    expect(events('quest.completed').filter((e) => e.externalId === 'newbie')).toMatchObject([
      { questId: other.id, pointsAwarded: 5 }, { questId: quest.id, questName: 'Three purchases', pointsAwarded: 30, basePoints: 30, multiplier: 1 },
    ]);
    expect(events('badge.awarded')).toMatchObject([{ externalId: 'newbie', badgeId: badge.id, badgeName: 'Shopper', rarity: 'RARE', source: 'quest' }]);
    const exported = (await server.api.get('/api/v1/members/newbie/export')).body;
    expect(exported.badges).toMatchObject([{ badgeId: badge.id }]);
    expect(exported.quests).toMatchObject([
      { questId: quest.id, status: 'COMPLETED', progress: 3, targetCount: 3, metadata: { event: 'purchase' } },
      { questId: other.id, status: 'COMPLETED', pointsAwarded: 5, metadata: { event: 'purchase', properties: { orderId: 'o-1' } } },
    ]);
    const history = await server.api.get('/api/v1/members/newbie/points?history=true');
    expect(history.body.transactions.map((t: { source: string; referenceId: string }) => [t.source, t.referenceId])).toEqual([['quest', quest.id], ['quest', other.id]]);
    // Erasure also clears what events and progress calls recorded.
    expect((await server.api.delete('/api/v1/members/newbie')).status).toBe(200);
    expect(server.ctx.db.prepare('SELECT count(*) AS n FROM quest_progress WHERE metadata IS NOT NULL AND quest_id IN (?, ?)').get(quest.id, other.id)).toEqual({ n: 0 });
  });

  it('ignores quests outside their window, switched off or archived, and an event no quest matches', async () => {
    await create('quests', { name: 'Future', completionMode: 'AUTOMATED', action: 'visit', startsAt: iso(HOUR), points: 1 });
    await create('quests', { name: 'Past', completionMode: 'AUTOMATED', action: 'visit', endsAt: iso(-1), points: 1 });
    await create('quests', { name: 'Off', completionMode: 'AUTOMATED', action: 'visit', isActive: false, points: 1 });
    const archived = await create('quests', { name: 'Archived', completionMode: 'AUTOMATED', action: 'visit', points: 1 });
    await server.api.delete(`/api/v1/quests/${archived.id}`);
    const res = await server.api.post('/api/v1/events', { externalId: 'visitor', event: 'visit' });
    expect(res.body).toEqual({ tracked: true, event: 'visit', externalId: 'visitor', questsTriggered: 0, questsCompleted: [] });
    expect((await server.api.post('/api/v1/events', { externalId: 'visitor', event: 'nothing-listens' })).body.questsTriggered).toBe(0);
  });
});

describe('event matching uses the index, not a scan of the catalog', () => {
  it('plans the POST /events quest lookup on quests_automated_action', () => {
    const plan = server.ctx.db.prepare(`EXPLAIN QUERY PLAN ${MATCHING_QUESTS}`)
      .all('p', 'a') as { detail: string }[];
    expect(plan.map((row) => row.detail).join('; ')).toMatch(/USING INDEX quests_automated_action \(project_id=\? AND action=\?\)/);
  });
});

describe('POST /quests/{id}/progress and /complete', () => {
  it('accumulates progress across calls and events, and completes automatically at the target', async () => {
    await member('pat');
    const quest = await create('quests', { name: 'Read 5 articles', completionMode: 'AUTOMATED', action: 'read', targetCount: 5, points: 50 });
    const step = await server.api.post(`/api/v1/quests/${quest.id}/progress`, { externalId: 'pat', progress: 2, metadata: { via: 'api' } });
    expect(step.status).toBe(200);
    expect(step.body).toMatchObject({ completion: { progress: 2, targetCount: 5, progressPercentage: 40, status: 'IN_PROGRESS' }, completed: false });
    expect(step.body.member.externalId).toBe('pat');
    await server.api.post('/api/v1/events', { externalId: 'pat', event: 'read' });
    const next = await server.api.post(`/api/v1/quests/${quest.id}/progress`, { externalId: 'pat' });
    expect(next.body.completion).toMatchObject({ id: step.body.completion.id, progress: 4, progressPercentage: 80 });
    const done = await server.api.post(`/api/v1/quests/${quest.id}/progress`, { externalId: 'pat', progress: 10 });
    expect(done.body).toMatchObject({ completion: { progress: 5, progressPercentage: 100, status: 'COMPLETED' }, completed: true });
    expect(done.body.member).toMatchObject({ points: 50, totalPointsEarned: 50 });
    const again = await server.api.post(`/api/v1/quests/${quest.id}/progress`, { externalId: 'pat' });
    expect(again.status).toBe(409);
    expect(again.body.message).toMatch(/already completed/);
  });

  it('completes MANUAL and SELF_REPORT quests; AUTOMATED ones answer 403; a second completion 409', async () => {
    await member('max');
    const manual = await create('quests', { name: 'Visit the store', completionMode: 'MANUAL', points: 40 });
    const self = await create('quests', { name: 'Follow us', completionMode: 'SELF_REPORT', points: 15 });
    const automated = await create('quests', { name: 'Auto', completionMode: 'AUTOMATED', action: 'x', points: 1 });
    const res = await server.api.post(`/api/v1/quests/${manual.id}/complete`, { externalId: 'max', metadata: { staff: 'ann' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      completion: {
        id: expect.stringMatching(/^qcp_/), questId: manual.id, questName: 'Visit the store', pointsAwarded: 40, basePoints: 40, multiplier: 1,
        multiplierEventName: null, completedAt: clock.current.toISOString(),
      },
      member: expect.objectContaining({ externalId: 'max', points: 40 }),
      multiplierApplied: null,
    });
    expect((await server.api.post(`/api/v1/quests/${self.id}/complete`, { externalId: 'max' })).body.member.points).toBe(55);
    const auto = await server.api.post(`/api/v1/quests/${automated.id}/complete`, { externalId: 'max' });
    expect(auto.status).toBe(403);
    expect(auto.body.message).toMatch(/AUTOMATED/);
    const twice = await server.api.post(`/api/v1/quests/${manual.id}/complete`, { externalId: 'max' });
    expect(twice.status).toBe(409);
    expect(twice.body.error).toBe('Conflict');
  });

  it('answers 403 for a quest that is not active now, and 404 for unknown quests and members', async () => {
    await member('ivy');
    const later = await create('quests', { name: 'Later', completionMode: 'MANUAL', startsAt: iso(HOUR) });
    const ended = await create('quests', { name: 'Ended', completionMode: 'MANUAL', endsAt: iso(-1) });
    const off = await create('quests', { name: 'Off', completionMode: 'MANUAL', isActive: false });
    const archived = await create('quests', { name: 'Archived', completionMode: 'MANUAL' });
    await server.api.delete(`/api/v1/quests/${archived.id}`);
    for (const quest of [later, ended, off, archived]) {
      for (const route of ['complete', 'progress']) {
        const res = await server.api.post(`/api/v1/quests/${quest.id}/${route}`, { externalId: 'ivy' });
        expect(res.status, `${quest.name} ${route}`).toBe(403);
        expect(res.body.error).toBe('Forbidden');
      }
    }
    expect((await server.api.post('/api/v1/quests/qst_nope/complete', { externalId: 'ivy' })).status).toBe(404);
    expect((await server.api.post(`/api/v1/quests/${later.id}/progress`, { externalId: 'nobody' })).status).toBe(404);
    // The window opens: the same quest now completes.
    clock.advance(HOUR);
    expect((await server.api.post(`/api/v1/quests/${later.id}/complete`, { externalId: 'ivy' })).status).toBe(200);
  });

  it('lets a repeatable quest be done again only after its cooldown (429 with Retry-After)', async () => {
    await member('rita');
    const quest = await create('quests', { name: 'Daily tip', completionMode: 'MANUAL', points: 10, repeatable: true, cooldownMinutes: 60 });
    const first = await server.api.post(`/api/v1/quests/${quest.id}/complete`, { externalId: 'rita' });
    expect(first.status).toBe(200);
    clock.advance(20 * MINUTE);
    const early = await server.api.post(`/api/v1/quests/${quest.id}/complete`, { externalId: 'rita' });
    expect(early.status).toBe(429);
    expect(early.body.error).toBe('Too Many Requests');
    expect(early.headers['retry-after']).toBe(String(40 * 60));
    clock.advance(40 * MINUTE - 1000);
    expect((await server.api.post(`/api/v1/quests/${quest.id}/complete`, { externalId: 'rita' })).headers['retry-after']).toBe('1');
    clock.advance(1000);
    const again = await server.api.post(`/api/v1/quests/${quest.id}/complete`, { externalId: 'rita' });
    expect(again.status).toBe(200);
    expect(again.body.completion.id).not.toBe(first.body.completion.id);
    expect(again.body.member.points).toBe(20);
  });
});

describe('multiplier events', () => {
  it('apply the highest active event to quest awards while their window is open, never stacked, and never to API adjustments', async () => {
    await member('mia');
    const quest = await create('quests', { name: 'Repeatable 7', completionMode: 'MANUAL', points: 7, repeatable: true });
    const double = await create('multipliers', { name: 'Double days', multiplier: 2, startsAt: iso(HOUR), endsAt: iso(3 * HOUR) });
    await create('multipliers', { name: 'Triple hour', multiplier: 3, startsAt: iso(2 * HOUR), endsAt: iso(3 * HOUR) });
    await create('multipliers', { name: 'Games only', multiplier: 10, startsAt: iso(0), endsAt: iso(4 * HOUR), sources: ['game'] });
    const complete = () => server.api.post(`/api/v1/quests/${quest.id}/complete`, { externalId: 'mia' });

    const before = await complete();
    expect(before.body).toMatchObject({ completion: { pointsAwarded: 7, basePoints: 7, multiplier: 1, multiplierEventName: null }, multiplierApplied: null });

    clock.advance(HOUR);
    const doubled = await complete();
    expect(doubled.body.completion).toMatchObject({ pointsAwarded: 14, basePoints: 7, multiplier: 2, multiplierEventName: 'Double days' });
    expect(doubled.body.multiplierApplied).toEqual({ id: double.id, name: 'Double days', multiplier: 2 });
    const manual = await server.api.post('/api/v1/members/mia/points', { amount: 5 });
    expect(manual.body.transaction.amount).toBe(5);

    clock.advance(HOUR);
    const tripled = await complete();
    expect(tripled.body.completion).toMatchObject({ pointsAwarded: 21, multiplier: 3, multiplierEventName: 'Triple hour' });

    clock.advance(HOUR);
    const after = await complete();
    expect(after.body.completion).toMatchObject({ pointsAwarded: 7, multiplier: 1, multiplierEventName: null });

    const history = await server.api.get('/api/v1/members/mia/points?history=true');
    const awards = history.body.transactions.filter((t: { source: string }) => t.source === 'quest').reverse();
    expect(awards.map((t: { amount: number }) => t.amount)).toEqual([7, 14, 21, 7]);
    expect(awards[1].metadata).toMatchObject({ basePoints: 7, multiplier: 2, multiplierEventName: 'Double days', multiplierEventId: double.id });
    expect(awards[0].metadata).not.toHaveProperty('multiplier');
    expect(history.body.points).toBe(7 + 14 + 5 + 21 + 7);
  });

  it('rounds base × multiplier to the nearest point, halves up', async () => {
    await member('ron');
    const quest = await create('quests', { name: 'Odd', completionMode: 'MANUAL', points: 5 });
    await create('multipliers', { name: 'One and a half', multiplier: 1.5, startsAt: iso(-1), endsAt: iso(HOUR) });
    const res = await server.api.post(`/api/v1/quests/${quest.id}/complete`, { externalId: 'ron' });
    expect(res.body.completion).toMatchObject({ basePoints: 5, multiplier: 1.5, pointsAwarded: 8 });
  });
});

describe('levels', () => {
  it('follow lifetime earnings, and move when the levels change', async () => {
    await create('levels', { level: 1, name: 'Bronze', minTotalPointsEarned: 100 });
    await create('levels', { level: 2, name: 'Silver', minTotalPointsEarned: 300 });
    await member('leo');
    expect((await server.api.get('/api/v1/members/leo')).body).toMatchObject({ level: 0, levelName: null });
    expect((await server.api.post('/api/v1/members/leo/points', { amount: 150 })).body.member).toMatchObject({ level: 1, levelName: 'Bronze' });
    await server.api.post('/api/v1/members/leo/points', { amount: -150 });
    const spent = await server.api.get('/api/v1/members/leo');
    expect(spent.body).toMatchObject({ points: 0, totalPointsEarned: 150, level: 1, levelName: 'Bronze' });
    const gold = await create('levels', { level: 3, name: 'Gold', minTotalPointsEarned: 400 });
    expect((await server.api.post('/api/v1/members/leo/points', { amount: 300 })).body.member).toMatchObject({ level: 3, levelName: 'Gold' });
    await server.api.delete(`/api/v1/levels/${gold.id}`);
    expect((await server.api.get('/api/v1/members/leo')).body).toMatchObject({ level: 2, levelName: 'Silver' });
    const listed = await server.api.get('/api/v1/members?search=leo');
    expect(listed.body.members[0]).toMatchObject({ level: 2, levelName: 'Silver' });
  });
});

describe('member badges', () => {
  it('awards (201), lists, refuses a second award (409), removes, and 404s what is unknown', async () => {
    await member('bea');
    const badge = await create('badges', { name: 'Founder', description: 'Was here first', rarity: 'LEGENDARY' });
    const res = await server.api.post('/api/v1/members/bea/badges', { badgeId: badge.id });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      badge: { id: badge.id, name: 'Founder', description: 'Was here first', imageUrl: null, rarity: 'LEGENDARY', awardedAt: clock.current.toISOString() },
    });
    expect((await server.api.get('/api/v1/members/bea/badges')).body.badges).toMatchObject([{ badgeId: badge.id, name: 'Founder', earnedAt: clock.current.toISOString() }]);
    const twice = await server.api.post('/api/v1/members/bea/badges', { badgeId: badge.id });
    expect(twice.status).toBe(409);
    expect(twice.body.message).toMatch(/already holds/);
    expect(events('badge.awarded').filter((e) => e.externalId === 'bea')).toHaveLength(1);

    expect((await server.api.post('/api/v1/members/bea/badges', { badgeId: 'bdg_nope' })).status).toBe(404);
    expect((await server.api.post('/api/v1/members/nobody/badges', { badgeId: badge.id })).status).toBe(404);
    expect((await server.api.get('/api/v1/members/nobody/badges')).status).toBe(404);

    const removed = await server.api.delete('/api/v1/members/bea/badges', { body: { badgeId: badge.id } });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ success: true, removed: badge.id });
    expect((await server.api.get('/api/v1/members/bea/badges')).body.badges).toEqual([]);
    expect((await server.api.delete('/api/v1/members/bea/badges', { body: { badgeId: badge.id } })).status).toBe(404);

    await server.api.delete(`/api/v1/badges/${badge.id}`);
    const archived = await server.api.post('/api/v1/members/bea/badges', { badgeId: badge.id });
    expect(archived.status).toBe(403);
  });

  it('awards a criteria badge exactly once under 50 concurrent awards', async () => {
    const badge = await create('badges', { name: 'Hundred club', rarity: 'UNCOMMON', criteria: { type: 'totalPointsEarned', threshold: 100 } });
    await member('crowd');
    const results = await Promise.all(Array.from({ length: 50 }, () => server.api.post('/api/v1/members/crowd/points', { amount: 10 })));
    expect(results.every((r) => r.status === 200)).toBe(true);
    const held = (await server.api.get('/api/v1/members/crowd/badges')).body.badges;
    expect(held).toHaveLength(1);
    expect(held[0].badgeId).toBe(badge.id);
    expect(server.ctx.db.prepare('SELECT count(*) AS n FROM member_badges WHERE badge_id = ?').get(badge.id)).toEqual({ n: 1 });
    expect(events('badge.awarded').filter((e) => e.badgeId === badge.id)).toHaveLength(1);
  });

  it('awards questsCompleted criteria on the completion that reaches the threshold', async () => {
    const badge = await create('badges', { name: 'Questor', criteria: { type: 'questsCompleted', threshold: 2 } });
    await member('quinn');
    const q1 = await create('quests', { name: 'Q1', completionMode: 'MANUAL' });
    const q2 = await create('quests', { name: 'Q2', completionMode: 'MANUAL' });
    await server.api.post(`/api/v1/quests/${q1.id}/complete`, { externalId: 'quinn' });
    expect((await server.api.get('/api/v1/members/quinn/badges')).body.badges).toEqual([]);
    await server.api.post(`/api/v1/quests/${q2.id}/complete`, { externalId: 'quinn' });
    expect((await server.api.get('/api/v1/members/quinn/badges')).body.badges.map((b: { badgeId: string }) => b.badgeId)).toEqual([badge.id]);
  });
});

describe('quest and badge routes: bad input answers 400 naming the field and writes nothing', () => {
  const cases: [string, string, unknown, RegExp][] = [
    ['/api/v1/events', 'POST', { event: 'x' }, /"externalId" is required/],
    ['/api/v1/events', 'POST', { externalId: 'a' }, /"event" is required/],
    ['/api/v1/events', 'POST', { externalId: 'a', event: '' }, /"event" must not be empty/],
    ['/api/v1/events', 'POST', { externalId: 'a', event: 'x', properties: [1] }, /"properties" must be a JSON object/],
    ['/api/v1/events', 'POST', { externalId: 'a', event: 'x', extra: 1 }, /Unknown field "extra"/],
    ['/api/v1/quests/qst_x/progress', 'POST', { externalId: 'a', progress: 0 }, /"progress" must be at least 1/],
    ['/api/v1/quests/qst_x/progress', 'POST', { externalId: 'a', progress: 1.5 }, /"progress" must be a whole number/],
    ['/api/v1/quests/qst_x/progress', 'POST', { progress: 1 }, /"externalId" is required/],
    ['/api/v1/quests/qst_x/complete', 'POST', { externalId: 'a', progress: 1 }, /Unknown field "progress"/],
    ['/api/v1/quests/qst_x/complete', 'POST', { externalId: 'a', metadata: 'x' }, /"metadata" must be a JSON object/],
    ['/api/v1/members/bea/badges', 'POST', {}, /"badgeId" is required/],
    ['/api/v1/members/bea/badges', 'POST', { badgeId: 7 }, /"badgeId" must be a string/],
    ['/api/v1/members/bea/badges', 'DELETE', { badgeId: '' }, /"badgeId" must not be empty/],
  ];
  it.each(cases)('%s %s %j', async (path, method, body, message) => {
    const before = tableCounts(server);
    const res = await server.api.call(method, path, { body });
    expect(res.status, res.text).toBe(400);
    expect(res.body.message).toMatch(message);
    expect(tableCounts(server)).toEqual(before);
  });
});
