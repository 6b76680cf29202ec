import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import { fulfilClaim } from '../src/domain/rewards/claims.ts';
import { EN, KEYS } from '../widget/src/strings.ts';
import { TRANSLATIONS } from '../widget/src/translations.ts';
import { client } from './helpers/http.ts';
import { startTestServer, tableCounts, TestClock, type TestServer } from './helpers/server.ts';
import { type WidgetSigner, shopperHelpers } from './helpers/widget.ts';

// Issue 25 through the widget API, for the shopper UI: init returns the level (item 5) and the
// strings of the visitor's language (speed), the programme's name (item 14), Arabic and Hebrew
// (item 11), and quests the shopper acts on: "I did it" and links (item 8).

let server: TestServer;
let signer: WidgetSigner;
const DAY = 86_400_000;

beforeAll(async () => {
  server = await startTestServer({ clock: new TestClock(new Date('2026-06-01T10:00:00Z')) });
  signer = { publicKey: server.publishableKey, widgetSecret: server.widgetSecret };
});
afterAll(() => {
  expect(checkLedger(server.ctx.db)).toEqual([]);
  return server.stop();
});

const { shopper, create } = shopperHelpers(() => server, () => signer);
const wordsOf = (language: string) => Object.fromEntries(KEYS.map((key, i) => [key, (language === 'en' ? EN : TRANSLATIONS[language]!).split('|')[i]]));

describe('POST /api/widget/init for the home', () => {
  it('returns the member\'s level and the next one; without levels, level 0 and no next', async () => {
    const w = await shopper('leveller', 700);
    expect((await w.post('/init')).body.level).toEqual({ level: 0, name: null, minTotalPointsEarned: 0, next: null });
    await create('levels', { level: 1, name: 'Silver', minTotalPointsEarned: 500 });
    await create('levels', { level: 2, name: 'Gold', minTotalPointsEarned: 1500 });
    expect((await w.post('/init')).body.level).toEqual({ level: 1, name: 'Silver', minTotalPointsEarned: 500, next: { level: 2, name: 'Gold', minTotalPointsEarned: 1500 } });
    const newcomer = await shopper('newcomer');
    expect((await newcomer.post('/init')).body.level).toEqual({ level: 0, name: null, minTotalPointsEarned: 0, next: { level: 1, name: 'Silver', minTotalPointsEarned: 500 } });
    await server.api.post('/api/v1/members/leveller/points', { amount: 1000 });
    expect((await w.post('/init')).body.level).toMatchObject({ level: 2, name: 'Gold', next: null });
  });

  it('answers with the strings of the first wished language the project offers, by base language too, else its default', async () => {
    const w = await shopper('polyglot');
    const answer = async (languages: string[]) => {
      const res = await w.post('/init', { languages });
      expect(res.status, res.text).toBe(200);
      return res.body as { language: string; strings: Record<string, string> };
    };
    const german = await answer(['de-AT', 'en']);
    expect(german.language).toBe('de');
    expect(german.strings).toEqual(wordsOf('de'));
    expect((await answer(['ar-EG'])).strings.open).toBe('افتح المكافآت');
    expect((await answer(['he'])).language).toBe('he');
    expect((await answer(['zh-TW'])).language).toBe('zh-CN');
    expect((await answer(['xx', 'sv'])).language).toBe('en');
    expect((await server.api.patch('/api/v1/project', { widget: { languages: ['fr', 'de'], defaultLanguage: 'fr' } })).status).toBe(200);
    expect((await answer(['ja'])).language).toBe('fr');
    expect((await answer(['__proto__'])).language).toBe('fr');
    expect((await server.api.patch('/api/v1/project', { widget: { languages: [...Object.keys(TRANSLATIONS)], defaultLanguage: 'en' } })).status).toBe(200);
    // Without languages (a server's own call), init answers no strings.
    expect(Object.keys((await w.post('/init', {})).body)).not.toContain('strings');
    for (const languages of ['de', [1], Array(11).fill('de')]) {
      const bad = await w.post('/init', { languages });
      expect(bad.status, JSON.stringify(languages)).toBe(400);
      expect(bad.body.message).toMatch(/"languages/);
    }
  });

  it('names the programme as the shop set it (programName), and the guest view speaks the visitor\'s language too', async () => {
    const w = await shopper('named');
    expect((await w.post('/init')).body.project.widgetSettings.programName).toBeNull();
    expect((await server.api.patch('/api/v1/project', { widget: { programName: 'Bean Club' } })).status).toBe(200);
    expect((await w.post('/init')).body.project.widgetSettings.programName).toBe('Bean Club');
    expect((await server.api.patch('/api/v1/project', { widget: { programName: '' } })).status).toBe(400);

    const anon = client(server.url);
    const guest = await anon.get(`/api/widget/guest?publicKey=${server.publishableKey}&languages=he-IL,en`);
    expect(guest.status, guest.text).toBe(200);
    expect(guest.body).toMatchObject({ language: 'he', strings: wordsOf('he') });
    expect(guest.body.project.widgetSettings.programName).toBe('Bean Club');
    expect(Object.keys((await anon.get(`/api/widget/guest?publicKey=${server.publishableKey}`)).body)).not.toContain('strings');
    expect((await server.api.patch('/api/v1/project', { widget: { programName: null } })).status).toBe(200);
  });
});

describe('POST /api/widget/quests/{id}/report ("I did it")', () => {
  it('advances a SELF_REPORT quest one step per report and pays on the last, with base and multiplier', async () => {
    const quest = await create('quests', {
      name: 'Visit three days', completionMode: 'SELF_REPORT', targetCount: 3, points: 30, linkUrl: 'https://shop.example/visit', endsAt: new Date(server.clock.now().getTime() + 5 * DAY).toISOString(),
    });
    const w = await shopper('reporter', 10);
    const board = (await w.get('/quests')).body.quests.find((q: { id: string }) => q.id === quest);
    expect(board).toMatchObject({ linkUrl: 'https://shop.example/visit', completionMode: 'SELF_REPORT', targetCount: 3, progress: 0, status: null });
    const first = await w.post(`/quests/${quest}/report`);
    expect(first.status, first.text).toBe(200);
    expect(first.body).toEqual({
      progress: { id: expect.stringMatching(/^qcp_/), progress: 1, targetCount: 3, progressPercentage: 33.33, status: 'IN_PROGRESS' },
      completed: false, pointsAwarded: 0, basePoints: 0, multiplier: 1, member: { points: 10 },
    });
    expect((await w.post(`/quests/${quest}/report`, {})).body.progress.progress).toBe(2);
    const now = server.clock.now().getTime();
    await create('multipliers', { name: 'Double', multiplier: 2, startsAt: new Date(now - 1000).toISOString(), endsAt: new Date(now + DAY).toISOString() });
    const last = await w.post(`/quests/${quest}/report`);
    expect(last.body).toMatchObject({ progress: { progress: 3, status: 'COMPLETED' }, completed: true, pointsAwarded: 60, basePoints: 30, multiplier: 2, member: { points: 70 } });
    expect((await w.get('/history?limit=1')).body.transactions[0]).toMatchObject({ amount: 60, entry: { kind: 'quest_completed', params: { quest: 'Visit three days' } } });
    // Not repeatable: a fourth report is refused and pays nothing.
    const again = await w.post(`/quests/${quest}/report`);
    expect(again.status).toBe(409);
    expect((await server.api.get('/api/v1/members/reporter')).body.points).toBe(70);
  });

  it('refuses quests the shop completes (403), unknown ones (404), bodies (400) and a turned-off feature (403), writing nothing', async () => {
    const automated = await create('quests', { name: 'Order', completionMode: 'AUTOMATED', action: 'order', points: 5 });
    const manual = await create('quests', { name: 'Follow us', completionMode: 'MANUAL', points: 5 });
    const selfReport = await create('quests', { name: 'Say hi', completionMode: 'SELF_REPORT', points: 5 });
    const w = await shopper('refused');
    const counts = tableCounts(server);
    for (const id of [automated, manual]) {
      const res = await w.post(`/quests/${id}/report`);
      expect(res.status).toBe(403);
      expect(res.body.message).toMatch(/the shop completes it/);
    }
    expect((await w.post('/quests/qst_nothing/report')).status).toBe(404);
    expect((await w.post(`/quests/${selfReport}/report`, { progress: 5 })).status).toBe(400);
    expect((await w.get(`/quests/${selfReport}/report`)).status).toBe(405);
    expect((await server.api.patch('/api/v1/project', { widget: { features: { quests: false } } })).status).toBe(200);
    expect((await w.post(`/quests/${selfReport}/report`)).status).toBe(403);
    expect((await server.api.patch('/api/v1/project', { widget: { features: { quests: true } } })).status).toBe(200);
    expect(tableCounts(server)).toEqual(counts);
    expect((await server.api.post('/api/v1/quests', { name: 'Bad link', completionMode: 'MANUAL', linkUrl: 'javascript:alert(1)' })).body.message)
      .toMatch(/"linkUrl" must be an http or https URL/);
  });
});

// Issue 48 through the widget API: the launcher's text (a widget setting), what games give and
// their odds where the operator shows them, and a CUSTOM claim's fulfilment status.
describe('the launcher\'s text (widget.launcherText)', () => {
  it('is null until set, 1–40 characters of one line, the same in every language, in init and the guest view', async () => {
    const w = await shopper('launched');
    const anon = client(server.url);
    const settings = async () => ({
      init: (await w.post('/init', { languages: ['ar'] })).body.project.widgetSettings.launcherText,
      guest: (await anon.get(`/api/widget/guest?publicKey=${server.publishableKey}&languages=de`)).body.project.widgetSettings.launcherText,
      project: (await server.api.get('/api/v1/project')).body.widget.launcherText,
    });
    expect(await settings()).toEqual({ init: null, guest: null, project: null });
    const forty = 'Bean Club rewards, for every cup you buy';
    expect(forty).toHaveLength(40);
    expect((await server.api.patch('/api/v1/project', { widget: { launcherText: forty } })).status).toBe(200);
    expect(await settings()).toEqual({ init: forty, guest: forty, project: forty });
    for (const [bad, message] of [['', /must not be empty/], ['   ', /must not be empty or blank/], [`${forty}!`, /at most 40 characters/], ['Two\nlines', /control characters/], [7, /must be a string/]] as const) {
      const res = await server.api.patch('/api/v1/project', { widget: { launcherText: bad } });
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.body.message).toMatch(/"widget\.launcherText"/);
      expect(res.body.message).toMatch(message);
    }
    expect((await settings()).init).toBe(forty);
    expect((await server.api.patch('/api/v1/project', { widget: { launcherText: null } })).status).toBe(200);
    expect(await settings()).toEqual({ init: null, guest: null, project: null });
  });
});

describe('GET /api/widget/games: what each game gives, and its odds where the operator shows them', () => {
  it('gives each prize its chance (weight / total) by default, and neither odds nor weights with showOdds off', async () => {
    const shown = await create('games', { name: 'Odds wheel', type: 'SPIN_WHEEL', prizes: [{ name: 'Ten', value: 10, weight: 1 }, { name: 'Two', value: 2, weight: 3 }, { name: 'Decoy', value: 500, weight: 0 }] });
    const hidden = await create('games', { name: 'Secret dice', type: 'DICE', showOdds: false, prizes: [{ name: 'Five', value: 5, weight: 9 }, { name: 'None', value: 0, weight: 1 }] });
    expect((await server.api.get(`/api/v1/games/${shown}`)).body.showOdds).toBe(true);
    expect((await server.api.get(`/api/v1/games/${hidden}`)).body).toMatchObject({ showOdds: false, prizes: [{ name: 'Five', weight: 9 }, { name: 'None', weight: 1 }] });
    const w = await shopper('odds');
    const games = (await w.get('/games')).body.games as { id: string; showOdds: boolean; prizes: unknown[] }[];
    expect(games.find((game) => game.id === shown)).toMatchObject({
      showOdds: true,
      prizes: [{ name: 'Ten', value: 10, weight: 1, odds: 0.25 }, { name: 'Two', value: 2, weight: 3, odds: 0.75 }, { name: 'Decoy', value: 500, weight: 0, odds: 0 }],
    });
    expect(games.find((game) => game.id === hidden)).toMatchObject({
      showOdds: false, prizes: [{ name: 'Five', value: 5, weight: null, odds: null }, { name: 'None', value: 0, weight: null, odds: null }],
    });
    // The operator turns them on for the dice: the widget shows them at once.
    expect((await server.api.patch(`/api/v1/games/${hidden}`, { showOdds: true })).status).toBe(200);
    expect((await w.get('/games')).body.games.find((game: { id: string }) => game.id === hidden).prizes.map((prize: { odds: number }) => prize.odds)).toEqual([0.9, 0.1]);
    expect((await server.api.post('/api/v1/games', { name: 'Bad', type: 'DICE', showOdds: 'yes', prizes: [{ name: 'X', value: 1, weight: 1 }] })).status).toBe(400);
    for (const id of [shown, hidden]) expect((await server.api.delete(`/api/v1/games/${id}`)).status).toBe(200);
  });
});

describe('a CUSTOM reward\'s claim', () => {
  it('is PENDING until the shop marks it fulfilled, as a PHYSICAL one; a COUPON claim is not fulfilled', async () => {
    const call = await create('rewards', { name: 'Thank-you call', type: 'CUSTOM', pointsCost: 5 });
    const coupon = await create('rewards', { name: 'Five off', type: 'COUPON', pointsCost: 5, discountConfig: { type: 'FIXED_CART', value: 5 } });
    const w = await shopper('customer', 20);
    const claimed = await w.post('/rewards', { rewardId: call });
    expect(claimed.status, claimed.text).toBe(200);
    expect(claimed.body.claim).toMatchObject({ status: 'PENDING', reward: { type: 'CUSTOM' } });
    const claimId = claimed.body.claim.id as string;
    expect((await w.get('/claims')).body.claims[0]).toMatchObject({ id: claimId, status: 'PENDING' });
    fulfilClaim(server.ctx.db, server.projectId, claimId, 'DELIVERED', server.clock.now());
    expect((await w.get('/claims')).body.claims[0]).toMatchObject({ id: claimId, status: 'DELIVERED' });
    const couponClaim = (await w.post('/rewards', { rewardId: coupon })).body.claim;
    expect(couponClaim.status).toBe('COMPLETED');
    expect(() => fulfilClaim(server.ctx.db, server.projectId, couponClaim.id, 'DELIVERED', server.clock.now())).toThrow(/only PHYSICAL and CUSTOM claims are fulfilled/);
  });
});
