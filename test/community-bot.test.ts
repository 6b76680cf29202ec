import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { communityEventBody } from '../src/schemas/community.ts';
import { createBotState, rememberInvites, translate, type GatewayDispatch } from '../src/integrations/community/gateway-translate.ts';
import { httpSink, inProcessSink } from '../src/integrations/community/gateway-bot.ts';
import { createLogger } from '../src/shared/log.ts';
import { punchcard } from './helpers/cli.ts';
import { linkDirectly } from './helpers/community.ts';
import { startTestServer } from './helpers/server.ts';

// Gateway dispatches as Discord sends them (fields trimmed to a realistic subset of what arrives).
const GUILD = '1100000000000000001';
const ANN = { id: '1200000000000000001', username: 'ann', global_name: 'Ann', avatar: null, discriminator: '0' };
const BOT = { id: '1200000000000000009', username: 'punchcard', bot: true };
const T0 = Date.parse('2026-01-15T12:00:00Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);

const messageCreate: GatewayDispatch = {
  t: 'MESSAGE_CREATE',
  d: {
    type: 0, tts: false, timestamp: '2026-01-15T12:00:00.000000+00:00', pinned: false, mentions: [], mention_roles: [], mention_everyone: false,
    member: { roles: ['1300000000000000001'], premium_since: null, nick: null, mute: false, joined_at: '2025-06-01T10:00:00.000000+00:00', flags: 0, deaf: false },
    id: '1400000000000000001', flags: 0, embeds: [], edited_timestamp: null, content: '', components: [], channel_id: '1500000000000000001',
    author: ANN, attachments: [], guild_id: GUILD,
  },
};
const voice = (channelId: string | null, selfDeaf = false): GatewayDispatch => ({
  t: 'VOICE_STATE_UPDATE',
  d: {
    member: { user: ANN, roles: ['1300000000000000001'], mute: false, deaf: false, joined_at: '2025-06-01T10:00:00.000000+00:00' },
    user_id: ANN.id, suppress: false, session_id: 'a1b2c3', self_video: false, self_mute: selfDeaf, self_deaf: selfDeaf, request_to_speak_timestamp: null,
    mute: false, guild_id: GUILD, deaf: false, channel_id: channelId,
  },
});

describe("the bot's translation of gateway dispatches", () => {
  it('turns a guild message into MESSAGE (no content needed) and ignores bots, webhooks and direct messages', () => {
    const state = createBotState();
    const [event] = translate(state, messageCreate, at(0));
    expect(event).toEqual({
      guildId: GUILD,
      event: { eventId: 'msg:1400000000000000001', eventType: 'MESSAGE', communityUserId: ANN.id, communityUsername: 'ann', roles: ['1300000000000000001'],
        channelId: '1500000000000000001', messageId: '1400000000000000001' },
    });
    expect(v.is(communityEventBody, event!.event)).toBe(true);
    const d = messageCreate.d as Record<string, unknown>;
    expect(translate(state, { t: 'MESSAGE_CREATE', d: { ...d, author: BOT } }, at(0))).toEqual([]);
    expect(translate(state, { t: 'MESSAGE_CREATE', d: { ...d, webhook_id: '1' } }, at(0))).toEqual([]);
    expect(translate(state, { t: 'MESSAGE_CREATE', d: { ...d, guild_id: undefined } }, at(0))).toEqual([]);
  });

  it('turns a reaction into REACTION, one per user, message and emoji', () => {
    const [event] = translate(createBotState(), {
      t: 'MESSAGE_REACTION_ADD',
      d: {
        user_id: ANN.id, type: 0, message_id: '1400000000000000002', message_author_id: '1200000000000000002', burst: false,
        member: { user: ANN, roles: [], joined_at: '2025-06-01T10:00:00.000000+00:00' }, emoji: { name: '🔥', id: null }, channel_id: '1500000000000000001',
        guild_id: GUILD,
      },
    }, at(0));
    expect(event!.event).toEqual({ eventId: `react:1400000000000000002:${ANN.id}:🔥`, eventType: 'REACTION', communityUserId: ANN.id, communityUsername: 'ann',
      roles: [], channelId: '1500000000000000001', messageId: '1400000000000000002', emoji: '🔥' });
    expect(v.is(communityEventBody, event!.event)).toBe(true);
  });

  it('counts a voice session from join to leave, leaving out a self-deafened stretch, and ends it on a channel move', () => {
    const state = createBotState();
    expect(translate(state, voice('1600000000000000001'), at(0))).toEqual([]);
    expect(translate(state, voice('1600000000000000001', true), at(10))).toEqual([]); // deafened for 15 minutes
    expect(translate(state, voice('1600000000000000001', false), at(25))).toEqual([]);
    const [left] = translate(state, voice(null), at(42.5));
    expect(left!.event).toMatchObject({ eventType: 'VOICE_SESSION', communityUserId: ANN.id, channelId: '1600000000000000001', voiceMinutes: 27,
      eventId: `voice:${ANN.id}:${T0}` });
    expect(v.is(communityEventBody, left!.event)).toBe(true);
    // Moving channels ends one session and starts the next; deafened until leaving counts nothing after it.
    translate(state, voice('1600000000000000001'), at(50));
    const [moved] = translate(state, voice('1600000000000000002'), at(56));
    expect(moved!.event).toMatchObject({ channelId: '1600000000000000001', voiceMinutes: 6 });
    translate(state, voice('1600000000000000002', true), at(58));
    expect(translate(state, voice(null), at(90))[0]!.event).toMatchObject({ channelId: '1600000000000000002', voiceMinutes: 2 });
  });

  it('turns a newly created thread into THREAD_CREATE for its owner, and ignores threads the bot merely joined', () => {
    const thread = {
      type: 11, total_message_sent: 0, thread_metadata: { locked: false, create_timestamp: '2026-01-15T12:00:00.000000+00:00', auto_archive_duration: 4320, archived: false },
      rate_limit_per_user: 0, parent_id: '1500000000000000001', owner_id: ANN.id, newly_created: true, name: 'Ideas', message_count: 0,
      member_count: 1, last_message_id: null, id: '1700000000000000001', guild_id: GUILD, flags: 0,
    };
    expect(translate(createBotState(), { t: 'THREAD_CREATE', d: thread }, at(0))[0]!.event).toEqual({
      eventId: 'thread:1700000000000000001', eventType: 'THREAD_CREATE', communityUserId: ANN.id, channelId: '1500000000000000001', threadId: '1700000000000000001',
    });
    expect(translate(createBotState(), { t: 'THREAD_CREATE', d: { ...thread, newly_created: undefined } }, at(0))).toEqual([]);
    // Messages in a known thread count under its parent channel, for the include/exclude rules.
    const state = createBotState();
    translate(state, { t: 'THREAD_CREATE', d: thread }, at(0));
    const inThread = translate(state, { t: 'MESSAGE_CREATE', d: { ...(messageCreate.d as object), channel_id: '1700000000000000001' } }, at(1));
    expect(inThread[0]!.event).toMatchObject({ channelId: '1500000000000000001' });
  });

  it('turns premium_since on a member update into SERVER_BOOST, and a member without it into nothing', () => {
    const update = { guild_id: GUILD, user: ANN, roles: ['1300000000000000002'], premium_since: '2026-01-15T11:59:00.000000+00:00', nick: null,
      joined_at: '2025-06-01T10:00:00.000000+00:00', pending: false, flags: 0 };
    expect(translate(createBotState(), { t: 'GUILD_MEMBER_UPDATE', d: update }, at(0))[0]!.event).toEqual({
      eventId: `boost:${ANN.id}:2026-01-15T11:59:00.000000+00:00`, eventType: 'SERVER_BOOST', communityUserId: ANN.id, communityUsername: 'ann',
      roles: ['1300000000000000002'] });
    expect(translate(createBotState(), { t: 'GUILD_MEMBER_UPDATE', d: { ...update, premium_since: null } }, at(0))).toEqual([]);
  });

  it('turns a join into MEMBER_JOIN, naming the inviter whose invite count grew by one', () => {
    const state = createBotState();
    rememberInvites(state, GUILD, [{ code: 'abc', uses: 3, inviterId: '1200000000000000005' }, { code: 'xyz', uses: 0, inviterId: '1200000000000000006' }]);
    translate(state, { t: 'INVITE_CREATE', d: { guild_id: GUILD, code: 'new', uses: 0, inviter: { id: '1200000000000000007' }, max_uses: 0 } }, at(0));
    const join = { guild_id: GUILD, user: ANN, roles: [], joined_at: '2026-01-15T12:00:00.000000+00:00', pending: false, flags: 0, premium_since: null };
    const after = [{ code: 'abc', uses: 3, inviterId: '1200000000000000005' }, { code: 'xyz', uses: 0, inviterId: '1200000000000000006' },
      { code: 'new', uses: 1, inviterId: '1200000000000000007' }];
    const [event] = translate(state, { t: 'GUILD_MEMBER_ADD', d: join }, at(0), { invites: after });
    expect(event!.event).toEqual({ eventId: `join:${ANN.id}:2026-01-15T12:00:00.000000+00:00`, eventType: 'MEMBER_JOIN', communityUserId: ANN.id,
      communityUsername: 'ann', inviterId: '1200000000000000007' });
    // Without invite access, the join still counts, naming no inviter.
    expect(translate(createBotState(), { t: 'GUILD_MEMBER_ADD', d: join }, at(0))[0]!.event).not.toHaveProperty('inviterId');
  });

  it('counts attendance: voice presence in a scheduled event\'s channel while it runs', () => {
    const state = createBotState();
    translate(state, voice('1600000000000000003'), at(0));
    const scheduled = { id: '1800000000000000001', guild_id: GUILD, channel_id: '1600000000000000003', entity_type: 2, status: 1, name: 'Town hall' };
    expect(translate(state, { t: 'GUILD_SCHEDULED_EVENT_CREATE', d: scheduled }, at(1))).toEqual([]);
    const started = translate(state, { t: 'GUILD_SCHEDULED_EVENT_UPDATE', d: { ...scheduled, status: 2 } }, at(5));
    expect(started.map((e) => e.event)).toEqual([{ eventId: '1800000000000000001', eventType: 'EVENT_ATTEND', communityUserId: ANN.id,
      communityUsername: 'ann', roles: ['1300000000000000001'] }]);
    translate(state, { t: 'GUILD_SCHEDULED_EVENT_UPDATE', d: { ...scheduled, status: 3 } }, at(60));
    translate(state, voice(null), at(61));
    expect(translate(state, voice('1600000000000000003'), at(62))).toEqual([]);
  });
});

describe('where translated events go', () => {
  it('in the server, through the same validation and domain function; from `punchcard community bot`, signed to the endpoint', async () => {
    const server = await startTestServer();
    try {
      await server.api.patch('/api/v1/community/settings', { guildId: GUILD });
      const secret = (await server.api.post('/api/v1/community/settings/rotate-secret')).body.webhookSecret as string;
      await server.api.post('/api/v1/members', { externalId: 'ann' });
      linkDirectly(server, server.projectId, ANN.id, 'ann', GUILD);
      const state = createBotState();
      const sinkIn = inProcessSink(server.ctx.db, server.ctx.write, server.ctx.clock);
      for (const { guildId, event } of translate(state, messageCreate, server.clock.now())) await sinkIn(guildId, event);
      expect((await server.api.get('/api/v1/members/ann')).body.points).toBe(1);
      const sinkHttp = httpSink(server.url, GUILD, secret, createLogger('silent'));
      const d = messageCreate.d as Record<string, unknown>;
      for (const { guildId, event } of translate(state, { t: 'MESSAGE_CREATE', d: { ...d, id: '1400000000000000003' } }, server.clock.now())) {
        await sinkHttp(guildId, event);
      }
      const logs = (await server.api.get('/api/community/events/logs')).body.events;
      expect(logs.map((e: { eventId: string; outcome: string }) => [e.eventId, e.outcome])).toEqual([
        ['msg:1400000000000000003', 'cooldown'], ['msg:1400000000000000001', 'awarded']]);
    } finally {
      await server.stop();
    }
  });

  it('`punchcard community bot` says what it needs before connecting', () => {
    const result = punchcard(['community', 'bot', '--guild', GUILD], { PUNCHCARD_DISCORD_BOT_TOKEN: '' });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('PUNCHCARD_DISCORD_BOT_TOKEN');
  });
});
