import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import { openStore } from '../src/db/store.ts';
import { punchcard, punchcardJson, secretsFile, spawnServer } from './helpers/cli.ts';
import { client } from './helpers/http.ts';
import { TEST_MASTER_KEY } from './helpers/server.ts';

let dir: string;
let db: string;
let project: { project: { id: string }; secretKey: string };
const run = (args: string[]) => punchcardJson(['--db', db, ...args]);
const all = (path: string) => run([path, 'list', '--project', project.project.id, '--all']);
const TABLES = ['levels', 'badges', 'rewards', 'quests', 'games', 'promo_codes', 'multipliers'];
/** Every catalog row, read straight from the file (spawning the CLI per table is slow on a busy machine). */
const catalogRows = () => catalogRowsOf(db);
function catalogRowsOf(path: string): Record<string, Record<string, unknown>[]> {
  const file = new Database(path, { readonly: true });
  try {
    return Object.fromEntries(TABLES.map((table) => [table, file.prepare(`SELECT * FROM ${table} ORDER BY rowid`).all() as Record<string, unknown>[]]));
  } finally {
    file.close();
  }
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'punchcard-seed-'));
  db = join(dir, 'seed.db');
  project = run(['projects', 'create', '--name', 'Seeded']);
});
afterAll(async () => {
  const store = await openStore({ path: db, masterKey: TEST_MASTER_KEY });
  try {
    expect(checkLedger(store.db)).toEqual([]);
  } finally {
    store.close();
  }
  rmSync(dir, { recursive: true, force: true });
});

const CATALOG = {
  project: { timezone: 'America/New_York', welcomeBonus: 25 },
  levels: [{ key: 'l1', level: 1, name: 'Bronze', minTotalPointsEarned: 100 }],
  badges: [{ key: 'b1', name: 'Reviewer', rarity: 'RARE' }],
  rewards: [{ key: 'r1', name: 'Mug', type: 'PHYSICAL', pointsCost: 300, stock: 10 }],
  quests: [{ key: 'q1', name: 'Review', completionMode: 'MANUAL', points: 40, badgeKey: 'b1', startsAt: '2026-01-01T00:00:00Z' }],
  games: [{ key: 'g1', name: 'Check-in', type: 'DAILY_CHECKIN', checkinPoints: 5, streakBonuses: [{ day: 7, bonus: 50 }] }],
  promoCodes: [{ key: 'p1', code: 'MUG', rewardType: 'REWARD', rewardKey: 'r1' }],
  multipliers: [{ key: 'm1', name: 'Launch', multiplier: 2, startsAt: '2026-06-01T00:00:00Z', endsAt: '2026-06-08T00:00:00Z' }],
};

describe('punchcard seed --file', { timeout: 90_000 }, () => {
  it('imports a catalog, and importing it again changes nothing', () => {
    const file = join(dir, 'catalog.json');
    writeFileSync(file, JSON.stringify(CATALOG));
    expect(run(['seed', '--project', project.project.id, '--file', file])).toEqual({ created: 7, updated: 0, unchanged: 0 });
    const first = catalogRows();
    expect(TABLES.map((table) => first[table]!.length)).toEqual([1, 1, 1, 1, 1, 1, 1]);
    expect(first.quests![0]!.badge_id).toBe(first.badges![0]!.id);
    expect(first.promo_codes![0]!.reward_id).toBe(first.rewards![0]!.id);
    expect(run(['project', 'show', '--project', project.project.id])).toMatchObject({ timezone: 'America/New_York', welcomeBonus: 25 });

    expect(run(['seed', '--project', project.project.id, '--file', file])).toEqual({ created: 0, updated: 0, unchanged: 7 });
    expect(catalogRows()).toEqual(first);

    // An edited item is updated in place, matched by its key.
    writeFileSync(file, JSON.stringify({ ...CATALOG, rewards: [{ ...CATALOG.rewards[0], pointsCost: 350 }] }));
    expect(run(['seed', '--project', project.project.id, '--file', file])).toEqual({ created: 0, updated: 1, unchanged: 6 });
    const rewards = all('rewards').rewards;
    expect(rewards).toHaveLength(1);
    expect(rewards[0]).toMatchObject({ id: first.rewards![0]!.id, pointsCost: 350 });
  });

  it('refuses a bad file with one line naming the item and field, and imports nothing of it', () => {
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ badges: [{ key: 'ok', name: 'Fine' }, { key: 'bad', name: 'Bad', rarity: 'MYTHIC' }] }));
    const res = punchcard(['--db', db, 'seed', '--project', project.project.id, '--file', file]);
    expect(res.status).toBe(1);
    expect(res.stderr).toMatch(/badges\[1\] \(key "bad"\): "rarity" must be one of/);
    expect(all('badges').badges.map((b: { key: string }) => b.key)).toEqual(['b1']);
    writeFileSync(file, JSON.stringify({ quests: [{ name: 'No key', completionMode: 'MANUAL' }] }));
    expect(punchcard(['--db', db, 'seed', '--project', project.project.id, '--file', file]).stderr).toMatch(/quests\[0\]: every item needs a "key"/);
  });

  it('prints a progress line on long imports', () => {
    const file = join(dir, 'long.json');
    writeFileSync(file, JSON.stringify({ badges: Array.from({ length: 120 }, (_, i) => ({ key: `many-${i}`, name: `Badge ${i}` })) }));
    const res = punchcard(['--db', db, 'seed', '--project', project.project.id, '--file', file]);
    expect(res.status, res.stderr).toBe(0);
    expect(res.stderr.trim().split('\n')).toEqual(['seed: 50/120 items', 'seed: 100/120 items', 'seed: 120/120 items']);
    expect(res.stdout).toMatch(/120 created/);
  });
});

describe('catalog and project commands', { timeout: 90_000 }, () => {
  it('create, update, list and archive through flags or --from-json', () => {
    const id = project.project.id;
    const created = run(['quests', 'create', '--project', id, '--name', 'Visit', '--completion-mode', 'AUTOMATED', '--action', 'visit',
      '--target-count', '3', '--points', '15', '--repeatable', 'true']);
    expect(created).toMatchObject({ name: 'Visit', targetCount: 3, points: 15, repeatable: true, isActive: true });
    const file = join(dir, 'quest.json');
    writeFileSync(file, JSON.stringify({ description: 'From a file', points: 20 }));
    expect(run(['quests', 'update', created.id, '--project', id, '--from-json', file, '--points', '25'])).toMatchObject({ description: 'From a file', points: 25 });
    const bad = punchcard(['--db', db, 'quests', 'create', '--project', id, '--name', 'X', '--completion-mode', 'MANUAL', '--points', 'many']);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/"points" must be a number/);
    expect(run(['quests', 'archive', created.id, '--project', id]).archivedAt).not.toBeNull();
    expect(run(['quests', 'list', '--project', id]).quests.map((q: { id: string }) => q.id)).not.toContain(created.id);
    const table = punchcard(['--db', db, 'promo', 'list', '--project', id]);
    expect(table.stdout).toMatch(/MUG/);
    expect(run(['project', 'set', '--project', id, '--name', 'Renamed', '--points-expiry-days', '90'])).toMatchObject({ name: 'Renamed', pointsExpiryDays: 90 });
    expect(punchcard(['--db', db, 'project', 'set', '--project', id, '--timezone', 'Nowhere/City']).stderr).toMatch(/"timezone" must be an IANA time zone/);
  });
});

describe('punchcard seed --demo', { timeout: 90_000 }, () => {
  it('creates the separate demo project with every kind of catalog item and demo members; serve --demo serves it; an event completes a quest', async () => {
    const demoDb = join(dir, 'demo.db');
    // serve --demo without a demo project stops start-up saying how to make one.
    const refused = punchcard(['--db', demoDb, 'serve', '--port', '0', '--demo']);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/--demo serves the demo shop of the demo project, and this database has none\. Create it with "punchcard seed --demo"/);
    const demo = punchcardJson(['--db', demoDb, 'seed', '--demo']);
    expect(demo).toMatchObject({ project: { name: 'Demo shop', demo: true }, created: 33, skipped: [], demoMembers: 3, secretKey: expect.stringMatching(/^sk_live_/) });
    const id = demo.project.id;
    // Again: the same demo project, nothing changed, nothing added.
    const again = punchcardJson(['--db', demoDb, 'seed', '--demo']);
    expect(again).toMatchObject({ project: { id }, created: 0, updated: 0, demoMembers: 0 });
    expect(again.secretKey).toBeUndefined();

    const server = await spawnServer(demoDb, ['--demo']);
    try {
      const api = client(server.url, demo.secretKey);
      const quests = (await api.get('/api/v1/quests')).body.quests;
      expect(new Set(quests.map((q: { completionMode: string }) => q.completionMode))).toEqual(new Set(['MANUAL', 'AUTOMATED', 'SELF_REPORT']));
      const rewards = (await api.get('/api/v1/rewards')).body.rewards;
      expect(new Set(rewards.map((r: { type: string }) => r.type))).toEqual(new Set(['COUPON', 'PHYSICAL', 'DIGITAL', 'RAFFLE', 'CUSTOM']));
      const games = (await api.get('/api/v1/games')).body.games;
      expect(new Set(games.map((g: { type: string }) => g.type))).toEqual(new Set(['SPIN_WHEEL', 'SLOTS', 'DICE', 'SCRATCH_CARD', 'DAILY_CHECKIN']));
      const running = (await api.get('/api/v1/multipliers?active=true')).body.multipliers;
      expect(running).toMatchObject([{ name: 'Double points month', multiplier: 2 }]);
      expect((await api.get('/api/v1/levels')).body.levels).toHaveLength(5);
      expect((await api.get('/api/v1/promo-codes')).body.promoCodes).toHaveLength(3);
      const alice = (await api.get('/api/v1/members/alice')).body;
      expect(alice).toMatchObject({ points: 1300, level: 2, levelName: 'Silver' });
      expect((await api.get('/api/v1/members/alice/badges')).body.badges.map((b: { name: string }) => b.name).sort())
        .toEqual(['Big spender', 'First steps', 'Reviewer']);

      const event = await api.post('/api/v1/events', { externalId: 'newcomer', event: 'purchase' });
      expect(event.status).toBe(200);
      expect(event.body).toMatchObject({ tracked: true, questsTriggered: 2 });
      expect(event.body.questsCompleted).toMatchObject([{ questName: 'Make your first purchase', basePoints: 100, multiplier: 2, pointsAwarded: 200,
        multiplierEventName: 'Double points month' }]);
      expect((await api.get('/api/v1/members/newcomer/badges')).body.badges.map((b: { name: string }) => b.name)).toEqual(['First steps']);
      expect((await api.get('/api/v1/members/newcomer')).body).toMatchObject({ points: 200, level: 1, levelName: 'Bronze' });
      // The database held only the demo project, so the start still made a real "Default" project.
      expect(server.output()).toMatch(/Created project "Default" \(prj_\w+\): the database had no project yet \(the demo shop does not count\)/);
      const page = await client(server.url).get('/demo');
      expect(page.status).toBe(200);
      expect(page.text).toContain(`"publicKey":"${demo.publishableKey}"`);
    } finally {
      server.child.kill();
    }
  });

  it('refuses a project in use unless --force, and then adds only what is missing, changing nothing and reporting what it skipped', () => {
    const usedDb = join(dir, 'used.db');
    const shop = punchcardJson(['--db', usedDb, 'projects', 'create', '--name', 'Real shop']);
    const id = shop.project.id;
    const file = join(dir, 'own.json');
    // A level number the demo also uses, a reward key it also uses, a welcome bonus of its own.
    writeFileSync(file, JSON.stringify({
      project: { welcomeBonus: 5 },
      levels: [{ key: 'starter', level: 0, name: 'Starter', minTotalPointsEarned: 0 }],
      rewards: [{ key: 'tote', name: 'Our own tote', type: 'PHYSICAL', pointsCost: 9000 }],
    }));
    punchcardJson(['--db', usedDb, 'seed', '--project', id, '--file', file]);
    const before = catalogRowsOf(usedDb);

    const refused = punchcard(['--db', usedDb, 'seed', '--demo', '--project', id]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(new RegExp(`Project ${id} is in use \\(0 members, 2 catalog items\\).*without --project.*--force`));
    expect(catalogRowsOf(usedDb)).toEqual(before);

    const forced = punchcardJson(['--db', usedDb, 'seed', '--demo', '--project', id, '--force']);
    expect(forced.skipped).toEqual([
      'project.welcomeBonus: already set to 5',
      'levels[0] "newcomer": Another level of this project already has level "0".',
      'rewards[2] "tote": the key exists',
      'promoCodes[1] "free-tote": "rewardKey" names an item this seed did not create',
      'demo members: the demo catalog was not loaded whole',
    ]);
    expect(forced).toMatchObject({ project: { id, demo: false }, created: 30, updated: 0, demoMembers: 0 });
    const after = catalogRowsOf(usedDb);
    expect(after.levels!.find((l) => l.key === 'starter')).toEqual(before.levels![0]);
    expect(after.rewards!.find((r) => r.key === 'tote')).toEqual(before.rewards![0]);
    expect(punchcardJson(['--db', usedDb, 'project', 'show', '--project', id]).welcomeBonus).toBe(5);
    // A real project seeded with the demo is still not the demo project.
    expect(punchcard(['--db', usedDb, 'serve', '--port', '0', '--demo']).stderr).toMatch(/this database has none/);
  });

  it('writes the new demo project\'s keys to a 0600 file beside the database when stdout is not a terminal, and says where', async () => {
    const demoDb = join(dir, 'demo-file.db');
    const seeded = punchcard(['--db', demoDb, 'seed', '--demo']);
    expect(seeded.status).toBe(0);
    expect(seeded.stdout).not.toMatch(/sk_live_|whsk_/);
    const file = secretsFile(seeded.stdout);
    expect(file).not.toBeNull();
    expect(dirname(file!)).toBe(dir);
    expect(statSync(file!).mode & 0o777).toBe(0o600);
    const secretKey = /^secret key\s+(sk_live_\S+)$/m.exec(readFileSync(file!, 'utf8'))?.[1];
    expect(readFileSync(file!, 'utf8')).toMatch(/^widget secret\s+whsk_\S+$/m);
    // The key in the file is the demo project's: it reads the demo catalog.
    const server = await spawnServer(demoDb);
    try {
      const rewards = await client(server.url, secretKey).get('/api/v1/rewards');
      expect(rewards.status).toBe(200);
      expect((rewards.body as { rewards: unknown[] }).rewards.length).toBeGreaterThan(0);
    } finally {
      server.child.kill('SIGTERM');
    }
    // Seeding again shows no keys, and writes no file.
    expect(punchcard(['--db', demoDb, 'seed', '--demo']).stdout).not.toMatch(/secrets\.txt/);
  });
});
