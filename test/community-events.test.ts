import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import { localDayStart } from '../src/domain/community/events.ts';
import { configureCommunity, GUILD, linkDirectly, sendCommunityEvent } from './helpers/community.ts';
import { startTestServer, TestClock, type TestServer } from './helpers/server.ts';

// 2026-01-15 12:00 UTC is 21:00 in Tokyo: the project's day ends three hours later.
const clock = new TestClock(new Date('2026-01-15T12:00:00.000Z'));
let server: TestServer;
let secret: string;
let seq = 0;

const send = (body: Record<string, unknown>, options: Parameters<typeof sendCommunityEvent>[3] = {}) =>
  sendCommunityEvent(server, secret, { eventId: `ev-${++seq}`, ...body }, options);
const message = (user: string, extra: Record<string, unknown> = {}) =>
  send({ eventType: 'MESSAGE', communityUserId: user, communityUsername: user, channelId: 'general', messageId: `m${seq}`, ...extra });
const balance = async (externalId: string) => (await server.api.get(`/api/v1/members/${externalId}`)).body.points as number;
const SECOND = 1000;

async function linkedMember(user: string): Promise<void> {
  expect((await server.api.post('/api/v1/members', { externalId: user })).status).toBe(201);
  linkDirectly(server, server.projectId, user, user);
}

beforeAll(async () => {
  server = await startTestServer({ clock });
  expect((await server.api.patch('/api/v1/project', { timezone: 'Asia/Tokyo' })).status).toBe(200);
  secret = await configureCommunity(server);
});
afterAll(() => server.stop());

describe('POST /api/v1/community/events: the fields of each type', () => {
  const REQUIRED: Record<string, Record<string, unknown>> = {
    MESSAGE: { channelId: 'c', messageId: 'm' },
    REACTION: { channelId: 'c', messageId: 'm', emoji: '👍' },
    VOICE_SESSION: { channelId: 'c', voiceMinutes: 10 },
    THREAD_CREATE: { channelId: 'c', threadId: 't' },
    EVENT_ATTEND: {},
    SERVER_BOOST: {},
    MEMBER_JOIN: {},
    ACCOUNT_LINK: {},
  };

  it('accepts every type with its required fields, and refuses each one missing (400 naming it, nothing recorded as accepted)', async () => {
    for (const [eventType, fields] of Object.entries(REQUIRED)) {
      const ok = await send({ eventType, communityUserId: 'stranger', ...fields });
      expect(ok.status, `${eventType}: ${ok.text}`).toBe(200);
      expect(ok.body).toEqual({ success: true, pointsAwarded: 0, multiplier: 1, cooldownActive: false, dailyLimitReached: false, linked: false, outcome: 'not_linked' });
      for (const field of ['eventId', 'communityUserId', ...Object.keys(fields)]) {
        const body: Record<string, unknown> = { eventId: `missing-${field}`, eventType, communityUserId: 'stranger', ...fields };
        delete body[field];
        const res = await sendCommunityEvent(server, secret, body);
        expect(res.status, `${eventType} without ${field}`).toBe(400);
        expect(res.body.message).toContain(`"${field}"`);
      }
    }
    expect((await send({ eventType: 'DANCE', communityUserId: 'stranger' })).body.message).toMatch(/"eventType" must be one of MESSAGE/);
    expect((await send({ eventType: 'VOICE_SESSION', communityUserId: 'stranger', channelId: 'c', voiceMinutes: -3 })).status).toBe(400);
    expect((await send({ eventType: 'MEMBER_JOIN', communityUserId: 'stranger', inviterId: 5 })).body.message).toContain('"inviterId"');
    const notJson = await sendCommunityEvent(server, secret, null, { raw: '{"eventId": ' });
    expect(notJson.status).toBe(400);
  });
});

describe('signatures', () => {
  const body = { eventId: 'sig-1', eventType: 'MESSAGE', communityUserId: 'stranger', channelId: 'c', messageId: 'm' };
  const now = () => Math.floor(clock.now().getTime() / 1000);

  it('refuses a bad signature, an unknown guild, a stale or future timestamp and missing headers (401); accepts the good one', async () => {
    const cases: [string, Parameters<typeof sendCommunityEvent>[3]][] = [
      ['bad signature', { signature: 'a'.repeat(64) }],
      ['signature of another body', { signature: 'ab' }],
      ['wrong guild', { guildId: '123' }],
      ['stale timestamp', { timestampSecs: now() - 301 }],
      ['future timestamp', { timestampSecs: now() + 301 }],
    ];
    for (const [label, options] of cases) {
      const res = await sendCommunityEvent(server, secret, body, options);
      expect(res.status, label).toBe(401);
      expect(Object.keys(res.body).sort()).toEqual(['error', 'message']);
    }
    const wrongKey = await sendCommunityEvent(server, 'cws_wrong', body);
    expect(wrongKey.status).toBe(401);
    const unsigned = await server.api.post('/api/v1/community/events', body, { key: '' });
    expect(unsigned.status).toBe(401);
    expect((await sendCommunityEvent(server, secret, body, { timestampSecs: now() - 299 })).status).toBe(200);
    expect((await sendCommunityEvent(server, secret, body, { timestampSecs: (now() + 299) * 1000 })).status).toBe(200);
  });
});

describe('awards, walked with the clock', () => {
  it('pays a linked member; messages have a 60 s cooldown reported with 200', async () => {
    await linkedMember('ann');
    const first = await message('ann');
    expect(first.body).toEqual({ success: true, pointsAwarded: 1, multiplier: 1, cooldownActive: false, dailyLimitReached: false, linked: true, outcome: 'awarded' });
    clock.advance(59 * SECOND);
    expect((await message('ann')).body).toMatchObject({ pointsAwarded: 0, cooldownActive: true, outcome: 'cooldown' });
    clock.advance(1 * SECOND);
    expect((await message('ann')).body).toMatchObject({ pointsAwarded: 1, cooldownActive: false });
    expect(await balance('ann')).toBe(2);
    // Reactions have their own cooldown (30 s), independent of messages'.
    expect((await send({ eventType: 'REACTION', communityUserId: 'ann', channelId: 'c', messageId: 'x', emoji: '🎉' })).body.pointsAwarded).toBe(1);
    clock.advance(29 * SECOND);
    expect((await send({ eventType: 'REACTION', communityUserId: 'ann', channelId: 'c', messageId: 'y', emoji: '🎉' })).body.cooldownActive).toBe(true);
  });

  it('answers a replayed eventId with its first result and pays nothing again', async () => {
    await linkedMember('rex');
    const body = { eventId: 'replayed-1', eventType: 'MESSAGE', communityUserId: 'rex', channelId: 'c', messageId: 'm' };
    const first = await sendCommunityEvent(server, secret, body);
    clock.advance(120 * SECOND);
    const again = await sendCommunityEvent(server, secret, body);
    expect(first.body.pointsAwarded).toBe(1);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await balance('rex')).toBe(1);
  });

  it('caps the day in the project time zone, paying a partial award up to the cap, and starts again after local midnight', async () => {
    await server.api.patch('/api/v1/community/settings', { messagePoints: 3, messageCooldownSecs: null, maxMessagePointsDay: 10 });
    await linkedMember('cap');
    const paid = [];
    for (let i = 0; i < 5; i++) paid.push((await message('cap')).body);
    expect(paid.map((answer) => answer.pointsAwarded)).toEqual([3, 3, 3, 1, 0]);
    expect(paid.map((answer) => answer.dailyLimitReached)).toEqual([false, false, false, true, true]);
    expect(paid[3].outcome).toBe('partial');
    expect(paid[4].outcome).toBe('daily_limit');
    // 12:02 UTC is 21:02 in Tokyo; UTC midnight is far, Tokyo's is 3 h away.
    const untilTokyoMidnight = Date.parse('2026-01-15T15:00:00Z') - clock.now().getTime();
    clock.advance(untilTokyoMidnight - SECOND);
    expect((await message('cap')).body.pointsAwarded).toBe(0);
    clock.advance(SECOND);
    expect((await message('cap')).body).toMatchObject({ pointsAwarded: 3, dailyLimitReached: false });
    expect(await balance('cap')).toBe(13);
    await server.api.patch('/api/v1/community/settings', { messagePoints: 1, messageCooldownSecs: 60, maxMessagePointsDay: 100 });
  });

  it('earns only in included channels when some are set (included wins), else everywhere but the excluded', async () => {
    await linkedMember('chan');
    await server.api.patch('/api/v1/community/settings', { messageCooldownSecs: null, excludedChannels: ['off-topic', 'both'] });
    expect((await message('chan', { channelId: 'off-topic' })).body).toMatchObject({ pointsAwarded: 0, outcome: 'channel_not_eligible' });
    expect((await message('chan', { channelId: 'general' })).body.pointsAwarded).toBe(1);
    await server.api.patch('/api/v1/community/settings', { includedChannels: ['both', 'news'] });
    expect((await message('chan', { channelId: 'both' })).body.pointsAwarded).toBe(1);
    expect((await message('chan', { channelId: 'news' })).body.pointsAwarded).toBe(1);
    expect((await message('chan', { channelId: 'general' })).body.outcome).toBe('channel_not_eligible');
    await server.api.patch('/api/v1/community/settings', { includedChannels: [], excludedChannels: [], messageCooldownSecs: 60 });
  });

  it('applies the highest bonus role the user holds, and the multiplier events when the project allows them', async () => {
    await linkedMember('vip');
    await server.api.patch('/api/v1/community/settings', { bonusRoles: { booster: 1.5, mod: 3, member: 1.2 }, threadPoints: 10 });
    const thread = await send({ eventType: 'THREAD_CREATE', communityUserId: 'vip', channelId: 'c', threadId: 't1', roles: ['member', 'mod', 'other'] });
    expect(thread.body).toMatchObject({ pointsAwarded: 30, multiplier: 3 });
    // Threads: 60 minutes of cooldown.
    clock.advance(59 * 60 * SECOND);
    expect((await send({ eventType: 'THREAD_CREATE', communityUserId: 'vip', channelId: 'c', threadId: 't2' })).body.cooldownActive).toBe(true);
    clock.advance(60 * SECOND);
    const created = await server.api.post('/api/v1/multipliers', {
      name: 'Double community', multiplier: 2, startsAt: new Date(clock.now().getTime() - 1000).toISOString(),
      endsAt: new Date(clock.now().getTime() + 3_600_000).toISOString(), sources: ['community'],
    });
    expect(created.status, created.text).toBe(201);
    const doubled = await send({ eventType: 'THREAD_CREATE', communityUserId: 'vip', channelId: 'c', threadId: 't3', roles: ['booster'] });
    expect(doubled.body).toMatchObject({ pointsAwarded: 30, multiplier: 3 });
    await server.api.patch('/api/v1/community/settings', { applyMultipliers: false });
    clock.advance(3600 * SECOND);
    const plain = await send({ eventType: 'EVENT_ATTEND', communityUserId: 'vip', roles: ['booster'] });
    expect(plain.body).toMatchObject({ pointsAwarded: 75, multiplier: 1.5 });
    expect(await balance('vip')).toBe(135);
    await server.api.patch('/api/v1/community/settings', { applyMultipliers: true, bonusRoles: {} });
    await server.api.delete(`/api/v1/multipliers/${created.body.id}`);
  });

  it('pays one-time events once per community user', async () => {
    await linkedMember('once');
    for (const eventType of ['SERVER_BOOST', 'MEMBER_JOIN', 'ACCOUNT_LINK']) {
      expect((await send({ eventType, communityUserId: 'once' })).body.pointsAwarded, eventType).toBeGreaterThan(0);
      clock.advance(86_400 * SECOND);
      expect((await send({ eventType, communityUserId: 'once' })).body, eventType).toMatchObject({ pointsAwarded: 0, outcome: 'already_awarded' });
    }
    expect(await balance('once')).toBe(500 + 25 + 100);
  });

  it('pays voice per minute from the minimum session, within the daily cap', async () => {
    await linkedMember('talk');
    const voice = (minutes: number) => send({ eventType: 'VOICE_SESSION', communityUserId: 'talk', channelId: 'v', voiceMinutes: minutes });
    expect((await voice(4)).body).toMatchObject({ pointsAwarded: 0, outcome: 'session_too_short' });
    expect((await voice(5)).body.pointsAwarded).toBe(5);
    expect((await voice(190)).body.pointsAwarded).toBe(190);
    expect((await voice(30)).body).toMatchObject({ pointsAwarded: 5, dailyLimitReached: true, outcome: 'partial' });
    expect(await balance('talk')).toBe(200);
  });

  it('lists deliveries, refused ones with their error, newest first and paginated', async () => {
    await sendCommunityEvent(server, secret, { eventId: 'refused-1' }, { signature: 'f'.repeat(64) });
    const first = await server.api.get('/api/community/events/logs?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.events[0]).toMatchObject({ eventId: 'refused-1', status: 401, outcome: 'rejected', error: expect.stringContaining('Signature') });
    expect(first.body.events[1]).toMatchObject({ eventType: 'VOICE_SESSION', externalId: 'talk', status: 200, outcome: 'partial', pointsAwarded: 5 });
    expect(first.body.pagination).toMatchObject({ limit: 2, offset: 0, hasMore: true });
    const second = await server.api.get('/api/community/events/logs?limit=2&offset=2');
    expect(second.body.events[0].eventType).toBe('VOICE_SESSION');
    expect((await server.api.get('/api/community/events/logs?limit=0')).status).toBe(400);
    expect((await server.api.get('/api/community/events/logs', { key: '' })).status).toBe(401);
    expect(checkLedger(server.ctx.db)).toEqual([]);
  });
});

describe('the log stays bounded', () => {
  it('deletes rows past the retention as new ones arrive, keeping one-time awards one-time', async () => {
    const count = () => (server.ctx.db.prepare('SELECT count(*) AS n FROM community_events').get() as { n: number }).n;
    const before = count();
    clock.advance(8 * 86_400 * SECOND);
    for (let i = 0; i < before; i++) await send({ eventType: 'MESSAGE', communityUserId: 'stranger', channelId: 'c', messageId: 'x' });
    expect(count()).toBeLessThanOrEqual(before);
    expect((await send({ eventType: 'SERVER_BOOST', communityUserId: 'once' })).body.outcome).toBe('already_awarded');
  });
});

describe('the local day of the daily caps', () => {
  it('begins at local midnight, on 23- and 25-hour days too', () => {
    const start = (iso: string, zone: string) => localDayStart(new Date(iso), zone).toISOString();
    expect(start('2026-01-15T23:59:59Z', 'UTC')).toBe('2026-01-15T00:00:00.000Z');
    expect(start('2026-01-15T15:00:00Z', 'Asia/Tokyo')).toBe('2026-01-15T15:00:00.000Z');
    expect(start('2026-01-15T14:59:59Z', 'Asia/Tokyo')).toBe('2026-01-14T15:00:00.000Z');
    // Paris: 29 March 2026 has 23 hours (starts 23:00Z the day before), 25 October 2026 has 25 (starts 22:00Z the day before).
    expect(start('2026-03-29T21:59:00Z', 'Europe/Paris')).toBe('2026-03-28T23:00:00.000Z');
    expect(start('2026-03-29T22:00:00Z', 'Europe/Paris')).toBe('2026-03-29T22:00:00.000Z');
    expect(start('2026-10-25T22:30:00Z', 'Europe/Paris')).toBe('2026-10-24T22:00:00.000Z');
    expect(start('2026-10-25T23:00:00Z', 'Europe/Paris')).toBe('2026-10-25T23:00:00.000Z');
  });
});

void GUILD;
