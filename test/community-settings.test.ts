import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../src/db/store.ts';
import { createProject } from '../src/domain/project/projects.ts';
import { punchcard, punchcardJson } from './helpers/cli.ts';
import { GUILD, sendCommunityEvent } from './helpers/community.ts';
import { startTestServer, TEST_MASTER_KEY, type TestServer } from './helpers/server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

const SETTINGS = '/api/v1/community/settings';

describe('community settings', () => {
  it("start at the SPEC's defaults with nothing configured", async () => {
    const res = await server.api.get(SETTINGS);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      guildId: null, webhookSecretSet: false, oauthClientId: null, oauthClientSecretSet: false,
      messagePoints: 1, messageCooldownSecs: 60, maxMessagePointsDay: 100,
      reactionPoints: 1, reactionCooldownSecs: 30, maxReactionPointsDay: 50,
      voicePointsPerMinute: 1, voiceMinMinutes: 5, maxVoicePointsDay: 200,
      threadPoints: 10, threadCooldownSecs: 3600, maxThreadPointsDay: null,
      eventAttendPoints: 50, serverBoostPoints: 500, memberJoinPoints: 25, accountLinkPoints: 100,
      includedChannels: [], excludedChannels: [], bonusRoles: {}, applyMultipliers: true, updatedAt: null,
    });
  });

  it('generate the webhook secret with the guild, show it once, store it encrypted, and rotate it', async () => {
    const first = await server.api.patch(SETTINGS, { guildId: GUILD, oauthClientId: '1234', oauthClientSecret: 'client-secret', messagePoints: 2 });
    expect(first.status).toBe(200);
    expect(first.body.webhookSecret).toMatch(/^cws_[0-9a-f]{64}$/);
    expect(first.body).toMatchObject({ guildId: GUILD, webhookSecretSet: true, oauthClientId: '1234', oauthClientSecretSet: true, messagePoints: 2 });
    const secret: string = first.body.webhookSecret;

    const again = await server.api.patch(SETTINGS, { maxMessagePointsDay: null });
    expect(again.body.webhookSecret).toBeUndefined();
    expect(again.body).toMatchObject({ maxMessagePointsDay: null, messagePoints: 2 });
    expect((await server.api.get(SETTINGS)).body.webhookSecret).toBeUndefined();

    const stored = server.ctx.db.prepare('SELECT webhook_secret, oauth_client_secret FROM community_settings').get() as Record<string, string>;
    expect(stored.webhook_secret).toMatch(/^v1\./);
    expect(JSON.stringify(stored)).not.toContain(secret);
    expect(JSON.stringify(stored)).not.toContain('client-secret');

    const body = { eventId: 'e1', eventType: 'MESSAGE', communityUserId: 'u1', channelId: 'c', messageId: 'm' };
    expect((await sendCommunityEvent(server, secret, body)).status).toBe(200);
    const rotated = await server.api.post(`${SETTINGS}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.webhookSecret).not.toBe(secret);
    expect((await sendCommunityEvent(server, secret, { ...body, eventId: 'e2' })).status).toBe(401);
    expect((await sendCommunityEvent(server, rotated.body.webhookSecret, { ...body, eventId: 'e2' })).status).toBe(200);
    // A secret is never kept for a replay.
    expect((await server.api.post(`${SETTINGS}/rotate-secret`, {}, { headers: { 'idempotency-key': 'k1' } })).status).toBe(400);
  });

  it('refuse a guild another project configured, and invalid values, naming the field', async () => {
    const other = server.addProject('Other');
    const taken = await other.api.patch(SETTINGS, { guildId: GUILD });
    expect(taken.status).toBe(409);
    for (const [body, field] of [
      [{ messagePoints: -1 }, 'messagePoints'], [{ bonusRoles: { r: 0 } }, 'bonusRoles.r'], [{ includedChannels: ['a', 'a'] }, 'includedChannels'],
      [{ messageCooldownSecs: 1.5 }, 'messageCooldownSecs'], [{ unknownField: 1 }, 'unknownField'], [{ guildId: '' }, 'guildId'],
    ] as const) {
      const res = await server.api.patch(SETTINGS, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toContain(field);
    }
  });
});

describe('punchcard community', () => {
  const dir = mkdtempSync(join(tmpdir(), 'punchcard-community-cli-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('shows and sets settings, reveals the generated secret once, and rotates it', async () => {
    const db = join(dir, 'cli.db');
    const store = await openStore({ path: db, masterKey: TEST_MASTER_KEY });
    const { project } = createProject(store.db, store.box, { name: 'Shop' }, new Date());
    store.close();
    expect(punchcardJson(['--db', db, 'community', 'settings', '--project', project.id])).toMatchObject({ guildId: null, messagePoints: 1 });
    const set = punchcardJson(['--db', db, 'community', 'settings', '--project', project.id, '--set', `guildId=${GUILD}`, 'messagePoints=3',
      'includedChannels=["10"]']);
    expect(set).toMatchObject({ guildId: GUILD, messagePoints: 3, includedChannels: ['10'] });
    expect(set.webhookSecret).toMatch(/^cws_/);
    const text = punchcard(['--db', db, 'community', 'settings', '--project', project.id, '--set', 'reactionPoints=2']);
    expect(text.status).toBe(0);
    expect(text.stdout).not.toContain('cws_');
    const rotated = punchcardJson(['--db', db, 'community', 'rotate-secret', '--project', project.id]);
    expect(rotated.webhookSecret).not.toBe(set.webhookSecret);
    const bad = punchcard(['--db', db, 'community', 'settings', '--project', project.id, '--set', 'messagePoints=-2']);
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('messagePoints');
    // A field that takes text gets the digits as text, short or long (a client id, as docs/discord.md sets it); null clears it.
    const client = punchcardJson(['--db', db, 'community', 'settings', '--project', project.id, '--set', 'oauthClientId=555000111', 'oauthClientSecret=12345']);
    expect(client).toMatchObject({ oauthClientId: '555000111', oauthClientSecretSet: true });
    expect(punchcardJson(['--db', db, 'community', 'settings', '--project', project.id, '--set', 'oauthClientId=null'])).toMatchObject({ oauthClientId: null });
  }, 120_000); // eight runs of the command: slow when the machine is busy
});
