import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { atomically } from '../src/db/transaction.ts';
import { openDatabase } from '../src/db/connection.ts';
import { listMembers, SEARCH_COUNT_AHEAD, upsertMember } from '../src/domain/members/members.ts';
import { MEMBER_PAGE_REACH } from '../src/schemas/members.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

let server: TestServer;
let other: ReturnType<TestServer['addProject']>;

/** A small deterministic PRNG, so a failure reproduces. */
function random(seed: number) {
  return () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
}

const SYLLABLES = ['an', 'Bo', 'CHE', 'dí', 'el', 'Fa', 'gü', 'ha', 'Ø', 'jo', 'ka', '李', 'mo', 'x_y', '50%', 'o"k', "d'a", 'Zé'];

function generatedMembers(count: number) {
  const rand = random(42);
  const word = (n: number) => Array.from({ length: n }, () => SYLLABLES[Math.floor(rand() * SYLLABLES.length)]).join('');
  return Array.from({ length: count }, (_, i) => ({
    externalId: `${word(2)}-${i}`,
    ...(rand() < 0.8 ? { email: `${word(2).replace(/[^\w]/g, '') || 'x'}${i}@${rand() < 0.5 ? 'shop.example' : 'MAIL.example'}` } : {}),
    ...(rand() < 0.8 ? { name: `${word(1)} ${word(2)}` } : {}),
  }));
}

const enc = encodeURIComponent;
const search = async (api: TestServer['api'], text: string) => {
  const res = await api.get(`/api/v1/members?search=${enc(text)}&limit=100`);
  expect(res.status, text).toBe(200);
  return res.body as { members: { externalId: string }[]; pagination: { total: number } };
};

/**
 * What GET /members?search= must return, found without SQL's help: every member of the project
 * holding the text in its externalId, email or name, in any case, newest first.
 */
function holdersOf(projectId: string, text: string): string[] {
  const rows = server.ctx.db.prepare(`SELECT external_id, email, name FROM members WHERE project_id = ? AND erased_at IS NULL
    ORDER BY created_at DESC, id DESC`).raw(true).all(projectId) as (string | null)[][];
  const lowered = text.toLowerCase();
  return rows.filter((row) => row.some((value) => value?.toLowerCase().includes(lowered))).map((row) => row[0]!);
}

beforeAll(async () => {
  server = await startTestServer();
  other = server.addProject('Other shop');
  const members = generatedMembers(400);
  for (let i = 0; i < members.length; i += 20) {
    await Promise.all(members.slice(i, i + 20).map(async (member) => {
      expect((await server.api.post('/api/v1/members', member)).status).toBe(201);
    }));
  }
  for (const member of [
    { externalId: 'cust-AB12', email: 'Grace.Hopper@navy.example', name: 'Grace Hopper' },
    { externalId: 'cust-CD34', email: 'ada@lovelace.example', name: 'Ada Lovelace' },
    { externalId: 'cust-EF56', email: 'erase.me@example.com', name: 'Erased Person' },
  ]) await server.api.post('/api/v1/members', member);
  await other.api.post('/api/v1/members', { externalId: 'cust-ZZ99', email: 'grace@other.example', name: 'Grace Other' });
});
afterAll(() => server.stop());

describe('GET /members?search=', () => {
  it('matches a substring of externalId, email or name, ignoring case', async () => {
    const ids = async (text: string) => (await search(server.api, text)).members.map((m) => m.externalId);
    expect(await ids('b12')).toEqual(['cust-AB12']);
    expect(await ids('HOPPER@NAVY')).toEqual(['cust-AB12']);
    expect(await ids('love')).toEqual(['cust-CD34']);
    expect(await ids('lovelace.example')).toEqual(['cust-CD34']);
    expect(await ids('ace Hop')).toEqual(['cust-AB12']);
    expect(await ids('nobody-has-this')).toEqual([]);
  });

  it("never finds another project's members", async () => {
    expect((await search(server.api, 'grace')).members.map((m) => m.externalId)).toEqual(['cust-AB12']);
    expect((await search(other.api, 'grace')).members.map((m) => m.externalId)).toEqual(['cust-ZZ99']);
    expect((await search(other.api, 'cust-')).pagination.total).toBe(1);
  });

  it('never finds an erased member, by old data or by its id', async () => {
    const erased = (await server.api.get('/api/v1/members/cust-EF56')).body.id as string;
    expect((await search(server.api, 'erase.me')).pagination.total).toBe(1);
    expect((await server.api.delete('/api/v1/members/cust-EF56')).status).toBe(200);
    for (const text of ['erase.me', 'Erased Person', 'cust-EF56', erased, erased.slice(4, 12)]) {
      expect((await search(server.api, text)).pagination.total, text).toBe(0);
    }
  });

  it('follows profile changes made after creation', async () => {
    await server.api.patch('/api/v1/members/cust-CD34', { name: 'Augusta King', email: null });
    expect((await search(server.api, 'augusta')).members.map((m) => m.externalId)).toEqual(['cust-CD34']);
    expect((await search(server.api, 'lovelace')).pagination.total).toBe(0);
    await server.api.post('/api/v1/members/cust-CD34/points', { amount: 10 });
    expect((await search(server.api, 'augusta')).pagination.total).toBe(1);
  });

  it('returns exactly the members holding the text in any case, for short, long and special search strings', async () => {
    const texts = ['a', 'É', '%', '_', '"', "'", 'an', 'Bo', '50%', 'x_y', 'o"k', "d'a", 'che', 'CHE', 'gü', 'GÜ', 'zé', 'Zé', '李m',
      'shop.example', 'mail.EXAMPLE', '-1', '-12', '@shop', 'anbo', 'Fael', ' Ø', 'Øjo', 'ka李mo', 'kaka', '\\', '%%%', 'e-3'];
    let nonEmpty = 0;
    for (const text of texts) {
      const expected = holdersOf(server.projectId, text);
      const page = await search(server.api, text);
      expect(page.pagination.total, text).toBe(expected.length);
      expect(page.members.map((m) => m.externalId), text).toEqual(expected.slice(0, 100));
      if (expected.length > 0) nonEmpty++;
    }
    expect(nonEmpty).toBeGreaterThan(texts.length / 2);
  });

  it('finds only members holding the whole text, not its trigrams apart (the index keeps no positions)', async () => {
    for (const externalId of ['trigram-abcXdef', 'trigram-defabc', 'trigram-zabcdefz']) {
      expect((await server.api.post('/api/v1/members', { externalId })).status).toBe(201);
    }
    expect((await search(server.api, 'abcdef')).members.map((m) => m.externalId)).toEqual(['trigram-zabcdefz']);
    expect((await search(server.api, 'ABCDEFZ')).members.map((m) => m.externalId)).toEqual(['trigram-zabcdefz']);
  });

  it('pages through search results', async () => {
    const all = holdersOf(server.projectId, 'an');
    expect(all.length).toBeGreaterThan(30);
    const first = await server.api.get('/api/v1/members?search=an&limit=10&offset=0');
    const second = await server.api.get('/api/v1/members?search=an&limit=10&offset=10');
    expect(first.body.members.map((m: { externalId: string }) => m.externalId)).toEqual(all.slice(0, 10));
    expect(second.body.members.map((m: { externalId: string }) => m.externalId)).toEqual(all.slice(10, 20));
    expect(second.body.pagination).toEqual({ total: all.length, limit: 10, offset: 10, hasMore: true });
  });
});

let broad: ReturnType<TestServer['addProject']>;

describe('a broad search', () => {
  it('counts to 1,000 past the page (a lower bound, hasMore true) and pages exactly like a scan of every member', async () => {
    broad = server.addProject('Broad');
    const matching = SEARCH_COUNT_AHEAD + 150;
    atomically(server.ctx.db, () => {
      for (let i = 0; i < matching + 50; i++) {
        upsertMember(server.ctx.db, broad.projectId, { externalId: `b-${i}`, name: i < matching ? `Ana García ${i % 7}` : 'Someone Else' },
          new Date(Date.UTC(2026, 0, 1, 0, 0, Math.floor(i / 3)))); // three members per second: ties fall back to the id
      }
    });
    for (const text of ['garcía', 'ía']) {
      const expected = holdersOf(broad.projectId, text);
      expect(expected).toHaveLength(matching);
      const first = await broad.api.get(`/api/v1/members?search=${enc(text)}&limit=100`);
      expect(first.body.pagination, text).toEqual({ total: 100 + SEARCH_COUNT_AHEAD, limit: 100, offset: 0, hasMore: true });
      expect(first.body.members.map((m: { externalId: string }) => m.externalId), text).toEqual(expected.slice(0, 100));
      const deep = await broad.api.get(`/api/v1/members?search=${enc(text)}&limit=100&offset=1100`);
      expect(deep.body.pagination, text).toEqual({ total: matching, limit: 100, offset: 1100, hasMore: false });
      expect(deep.body.members.map((m: { externalId: string }) => m.externalId), text).toEqual(expected.slice(1100));
    }
  });
});

describe('per project, and bounded per page', () => {
  it('reads only its own project\'s range of the search index, in the indexed and the broad search alike', () => {
    // The statements a search runs, prepared on a connection of our own and planned by SQLite.
    const db = openDatabase(server.dbPath);
    const prepared: string[] = [];
    const prepare = db.prepare.bind(db);
    db.prepare = ((sql: string) => {
      prepared.push(sql);
      return prepare(sql);
    }) as typeof db.prepare;
    try {
      expect(listMembers(db, server.projectId, { search: 'grace', limit: 10, offset: 0 }).members).toHaveLength(1);
      expect(listMembers(db, broad.projectId, { search: 'garcía', limit: 10, offset: 0 }).pagination.total).toBe(10 + SEARCH_COUNT_AHEAD);
      const searches = prepared.filter((sql) => sql.includes('MATCH'));
      expect(searches.length).toBeGreaterThanOrEqual(2);
      const params = { projectId: broad.projectId, slot: 1, pattern: '%x%', lowered: 'x', phrase: '"abc"', limit: 1, offset: 0, countLimit: 1 };
      for (const sql of searches) {
        // M: the MATCH; > and <: the rowid range, the project's keys.
        expect(JSON.stringify(prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params)), sql).toMatch(/VIRTUAL TABLE INDEX \d+:M[^"]*></);
      }
    } finally {
      db.close();
    }
  });

  it(`refuses a page reaching past ${MEMBER_PAGE_REACH} members (offset + limit), with or without a search, naming the way on`, async () => {
    for (const query of ['', '&search=garc']) {
      const deep = await broad.api.get(`/api/v1/members?limit=50&offset=${MEMBER_PAGE_REACH - 49}${query}`);
      expect(deep.status, query).toBe(400);
      expect(deep.body.message).toMatch(new RegExp(`offset \\+ limit must be at most ${MEMBER_PAGE_REACH}: page on with pagination.next`));
      expect((await broad.api.get(`/api/v1/members?limit=50&offset=${MEMBER_PAGE_REACH - 50}${query}`)).status, query).toBe(200);
    }
  });

  it('pages a whole listing with its cursor, newest first, each member once, each page as cheap as the first', async () => {
    const expected = holdersOf(broad.projectId, '');
    const seen: string[] = [];
    let page = await broad.api.get('/api/v1/members?limit=100');
    expect(page.body.pagination).toMatchObject({ total: expected.length, hasMore: true, next: expect.any(String) });
    seen.push(...page.body.members.map((m: { externalId: string }) => m.externalId));
    while (page.body.pagination.next) {
      page = await broad.api.get(`/api/v1/members?limit=100&cursor=${enc(page.body.pagination.next)}`);
      expect(page.status, page.text).toBe(200);
      expect(page.body.pagination).toMatchObject({ total: expected.length, limit: 100, offset: 0 });
      seen.push(...page.body.members.map((m: { externalId: string }) => m.externalId));
    }
    expect(seen).toEqual(expected);
    expect(page.body.pagination.hasMore).toBe(false);
    // A cursor goes on from where an offset page ended too.
    const byOffset = await broad.api.get('/api/v1/members?limit=7&offset=3');
    const after = await broad.api.get(`/api/v1/members?limit=5&cursor=${enc(byOffset.body.pagination.next)}`);
    expect(after.body.members.map((m: { externalId: string }) => m.externalId)).toEqual(expected.slice(10, 15));
  });

  it('refuses a cursor with a search or an offset, a made-up one and another project\'s', async () => {
    const next = (await broad.api.get('/api/v1/members?limit=2')).body.pagination.next as string;
    for (const [label, res] of [
      ['with search', await broad.api.get(`/api/v1/members?cursor=${enc(next)}&search=garc`)],
      ['with offset', await broad.api.get(`/api/v1/members?cursor=${enc(next)}&offset=2`)],
      ['made up', await broad.api.get('/api/v1/members?cursor=bm9wZQ')],
      ["another project's", await server.api.get(`/api/v1/members?cursor=${enc(next)}`)],
    ] as const) {
      expect(res.status, label).toBe(400);
      expect(res.body.message, label).toMatch(/cursor/);
    }
  });
});
