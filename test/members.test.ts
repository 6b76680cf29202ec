import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import { startTestServer, TestClock, type TestServer } from './helpers/server.ts';

let server: TestServer;
const MINUTE_MS = 60_000;
const enc = encodeURIComponent;
const now = () => server.clock.now().toISOString();
const memberRow = (id: string) => server.ctx.db.prepare('SELECT * FROM members WHERE public_id = ?').get(id) as Record<string, unknown>;
const ids = (members: { externalId: string }[]) => members.map((m) => m.externalId);

beforeAll(async () => {
  server = await startTestServer({ clock: new TestClock(new Date('2026-01-15T12:00:00.000Z')) });
});
afterAll(() => server.stop());

describe('POST /members (upsert)', () => {
  it('creates a member: 201 with exactly the SPEC member shape', async () => {
    const res = await server.api.post('/api/v1/members', {
      externalId: 'ada', email: 'ada@example.com', name: 'Ada Lovelace', avatarUrl: 'https://cdn.example/ada.png',
      phone: '+44 20 7946 0000', dateOfBirth: '1815-12-10', metadata: { tier: 'gold', tags: ['a', 'b'], nested: { n: 1 } },
    });
    expect(res.status).toBe(201);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^mem_[0-9A-Za-z]{22}$/),
      externalId: 'ada',
      email: 'ada@example.com',
      name: 'Ada Lovelace',
      avatarUrl: 'https://cdn.example/ada.png',
      points: 0,
      totalPointsEarned: 0,
      currentStreak: 0,
      longestStreak: 0,
      metadata: { tier: 'gold', tags: ['a', 'b'], nested: { n: 1 } },
      createdAt: '2026-01-15T12:00:00.000Z',
      level: 0,
      levelName: null,
    });
    // phone and dateOfBirth are stored, not returned.
    expect(res.body).not.toHaveProperty('phone');
    expect(res.body).not.toHaveProperty('dateOfBirth');
    expect(memberRow(res.body.id)).toMatchObject({ phone: '+44 20 7946 0000', date_of_birth: '1815-12-10' });
  });

  it('creates with only an externalId: everything else null or empty', async () => {
    const res = await server.api.post('/api/v1/members', { externalId: 'bare' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ externalId: 'bare', email: null, name: null, avatarUrl: null, metadata: {}, points: 0 });
  });

  it('updates an existing member: 200, only the given fields change', async () => {
    const before = (await server.api.get('/api/v1/members/ada')).body;
    server.clock.advance(MINUTE_MS);
    const res = await server.api.post('/api/v1/members', { externalId: 'ada', name: 'Augusta Ada King' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...before, name: 'Augusta Ada King' });
    expect(res.body.createdAt).toBe('2026-01-15T12:00:00.000Z');
    expect(memberRow(before.id)).toMatchObject({ phone: '+44 20 7946 0000', date_of_birth: '1815-12-10', updated_at: now() });

    const again = await server.api.post('/api/v1/members', { externalId: 'ada', phone: '+1 555 0100', metadata: { tier: 'silver' } });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ...before, name: 'Augusta Ada King', metadata: { tier: 'silver' } });
    expect(memberRow(before.id)).toMatchObject({ phone: '+1 555 0100', date_of_birth: '1815-12-10' });

    const count = server.ctx.db.prepare("SELECT count(*) AS n FROM members WHERE external_id = 'ada'").get() as { n: number };
    expect(count.n).toBe(1);
  });

  it('clears a field given as null, and leaves absent fields alone', async () => {
    const res = await server.api.post('/api/v1/members', { externalId: 'ada', email: null, avatarUrl: null, dateOfBirth: null });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ email: null, avatarUrl: null, name: 'Augusta Ada King', metadata: { tier: 'silver' } });
    expect(memberRow(res.body.id)).toMatchObject({ email: null, avatar_url: null, date_of_birth: null, phone: '+1 555 0100' });
  });

  it('keeps the balance on an update', async () => {
    expect((await server.api.post('/api/v1/members/ada/points', { amount: 40 })).status).toBe(200);
    const res = await server.api.post('/api/v1/members', { externalId: 'ada', name: 'Ada' });
    expect(res.body).toMatchObject({ points: 40, totalPointsEarned: 40 });
  });
});

describe('GET and PATCH /members/{externalId}', () => {
  it('reads a member', async () => {
    const res = await server.api.get('/api/v1/members/ada');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ externalId: 'ada', name: 'Ada', points: 40 });
    expect(Object.keys(res.body).sort()).toEqual(
      ['avatarUrl', 'createdAt', 'currentStreak', 'email', 'externalId', 'id', 'level', 'levelName', 'longestStreak', 'metadata', 'name', 'points',
        'totalPointsEarned'],
    );
  });

  it('answers 404 for an unknown member', async () => {
    for (const res of [await server.api.get('/api/v1/members/nobody'), await server.api.patch('/api/v1/members/nobody', { name: 'x' })]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Not Found', message: expect.stringMatching(/No member with externalId "nobody"/) });
    }
    expect((await server.api.get('/api/v1/members')).body.members.map((m: { externalId: string }) => m.externalId)).not.toContain('nobody');
  });

  it('patches only the given fields; null clears; an empty body changes nothing', async () => {
    const before = (await server.api.get('/api/v1/members/ada')).body;
    const res = await server.api.patch('/api/v1/members/ada', { email: 'Ada@Example.com', metadata: { tier: 'platinum' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...before, email: 'Ada@Example.com', metadata: { tier: 'platinum' } });

    const cleared = await server.api.patch('/api/v1/members/ada', { name: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toEqual({ ...before, email: 'Ada@Example.com', metadata: { tier: 'platinum' }, name: null });

    const unchanged = await server.api.patch('/api/v1/members/ada', {});
    expect(unchanged.status).toBe(200);
    expect(unchanged.body).toEqual(cleared.body);
    expect((await server.api.get('/api/v1/members/ada')).body).toEqual(cleared.body);
  });

  it('accepts phone and dateOfBirth in PATCH without returning them', async () => {
    const res = await server.api.patch('/api/v1/members/ada', { phone: '+33 1 00 00 00 00', dateOfBirth: '1815-12-10' });
    expect(res.status).toBe(200);
    expect(res.body).not.toHaveProperty('phone');
    expect(memberRow(res.body.id)).toMatchObject({ phone: '+33 1 00 00 00 00', date_of_birth: '1815-12-10' });
  });

  it.each([
    ['a space', 'jane doe'],
    ['a slash', 'shop/42'],
    ['two slashes', 'a/b/c'],
    ['unicode', 'zoë ✓ 日本'],
    ['a percent sign', '100%'],
    ['a question mark and hash', 'what?#x'],
    ['a plus', 'a+b'],
  ])('addresses an externalId with %s when URL-encoded', async (_what, externalId) => {
    const created = await server.api.post('/api/v1/members', { externalId, name: 'Encoded' });
    expect(created.status).toBe(201);
    expect(created.body.externalId).toBe(externalId);
    const path = `/api/v1/members/${enc(externalId)}`;

    const read = await server.api.get(path);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);

    const patched = await server.api.patch(path, { name: 'Patched' });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id: created.body.id, externalId, name: 'Patched' });

    const award = await server.api.post(`${path}/points`, { amount: 5 });
    expect(award.body.member).toMatchObject({ id: created.body.id, points: 5 });
    expect((await server.api.get(`${path}/points`)).body).toMatchObject({ points: 5 });
    expect((await server.api.get(`${path}/export`)).body.member).toMatchObject({ externalId, name: 'Patched' });
    expect((await server.api.get(`/api/v1/members/lookup?externalId=${enc(externalId)}`)).body.id).toBe(created.body.id);
  });

  it('does not confuse "a/b" with a member "a" and a sub-route', async () => {
    const a = await server.api.post('/api/v1/members', { externalId: 'a' });
    expect(a.status).toBe(201);
    // "a/b/c" exists, "a" exists; "a%2Fb" is neither.
    expect((await server.api.get('/api/v1/members/a%2Fb')).status).toBe(404);
    expect((await server.api.get('/api/v1/members/a/b')).status).toBe(404);
  });
});

describe('GET /members (list and search)', () => {
  let list: TestServer['api'];

  beforeAll(async () => {
    // A fresh tenant, so the list holds exactly what these tests put there.
    list = server.addProject('List').api;
    const people = [
      { externalId: 'u-01', email: 'alice@example.com', name: 'Alice Smith' },
      { externalId: 'u-02', email: 'bob@example.org', name: 'Bob Jones' },
      { externalId: 'a_b', email: 'under@example.com', name: 'Under Score' },
      { externalId: 'axb', email: 'letter@example.com', name: 'Letter X' },
      { externalId: '100%', email: 'pct@example.com', name: 'Per Cent' },
      { externalId: '1000', email: 'thousand@example.com', name: 'Thousand' },
      { externalId: 'back\\slash', email: 'back@example.com', name: 'Back Slash' },
    ];
    for (const person of people) {
      server.clock.advance(MINUTE_MS);
      expect((await list.post('/api/v1/members', person)).status).toBe(201);
    }
  });

  it('lists newest first with the default pagination', async () => {
    const res = await list.get('/api/v1/members');
    expect(res.status).toBe(200);
    expect(ids(res.body.members)).toEqual(['back\\slash', '1000', '100%', 'axb', 'a_b', 'u-02', 'u-01']);
    expect(res.body.pagination).toEqual({ total: 7, limit: 50, offset: 0, hasMore: false });
    expect(res.body.members[0]).toEqual((await list.get(`/api/v1/members/${enc('back\\slash')}`)).body);
  });

  it('orders members created in the same millisecond newest first too', async () => {
    const same = server.addProject('Same instant').api;
    for (const externalId of ['first', 'second', 'third']) await same.post('/api/v1/members', { externalId });
    expect(ids((await same.get('/api/v1/members')).body.members)).toEqual(['third', 'second', 'first']);
  });

  it('pages with limit and offset, and reports hasMore', async () => {
    const first = await list.get('/api/v1/members?limit=3');
    expect(ids(first.body.members)).toEqual(['back\\slash', '1000', '100%']);
    expect(first.body.pagination).toEqual({ total: 7, limit: 3, offset: 0, hasMore: true, next: expect.any(String) });
    const second = await list.get('/api/v1/members?limit=3&offset=3');
    expect(ids(second.body.members)).toEqual(['axb', 'a_b', 'u-02']);
    expect(second.body.pagination).toEqual({ total: 7, limit: 3, offset: 3, hasMore: true, next: expect.any(String) });
    const last = await list.get('/api/v1/members?limit=3&offset=6');
    expect(ids(last.body.members)).toEqual(['u-01']);
    expect(last.body.pagination).toEqual({ total: 7, limit: 3, offset: 6, hasMore: false });
    const past = await list.get('/api/v1/members?offset=50');
    expect(past.body).toEqual({ members: [], pagination: { total: 7, limit: 50, offset: 50, hasMore: false } });
  });

  it('returns at most 50 by default and 100 at most', async () => {
    const many = server.addProject('Many').api;
    for (let i = 0; i < 105; i++) expect((await many.post('/api/v1/members', { externalId: `m-${String(i).padStart(3, '0')}` })).status).toBe(201);
    const page = await many.get('/api/v1/members');
    expect(page.body.members).toHaveLength(50);
    expect(page.body.pagination).toEqual({ total: 105, limit: 50, offset: 0, hasMore: true, next: expect.any(String) });
    const max = await many.get('/api/v1/members?limit=100');
    expect(max.body.members).toHaveLength(100);
    expect(max.body.pagination).toEqual({ total: 105, limit: 100, offset: 0, hasMore: true, next: expect.any(String) });
    const rest = await many.get('/api/v1/members?limit=100&offset=100');
    expect(rest.body.members).toHaveLength(5);
    expect(rest.body.pagination.hasMore).toBe(false);
  });

  it.each([
    ['externalId', 'u-0', ['u-02', 'u-01']],
    ['email, other case', 'EXAMPLE.ORG', ['u-02']],
    ['name, other case', 'alice smith', ['u-01']],
    ['part of a name', 'score', ['a_b']],
    ['an underscore, literally', '_', ['a_b']],
    ['a percent sign, literally', '%', ['100%']],
    ['"100%" not as a prefix pattern', '100%', ['100%']],
    ['a backslash, literally', '\\', ['back\\slash']],
    ['nothing that matches', 'zzz', []],
  ])('searches by %s', async (_what, search, expected) => {
    const res = await list.get(`/api/v1/members?search=${enc(search)}`);
    expect(res.status).toBe(200);
    expect(ids(res.body.members)).toEqual(expected);
    expect(res.body.pagination).toEqual({ total: expected.length, limit: 50, offset: 0, hasMore: false });
  });

  it('ignores the case of every letter, not only ASCII, in long and short searches', async () => {
    const intl = server.addProject('International').api;
    for (const person of [
      { externalId: 'zoe', name: 'Zoë Ünal' },
      { externalId: 'emilie', email: 'emilie@example.fr', name: 'ÉMILIE Durand' },
      { externalId: 'lukasz', name: 'Łukasz Nowak' },
    ]) expect((await intl.post('/api/v1/members', person)).status).toBe(201);
    for (const [search, expected] of [
      ['ünal', ['zoe']], ['ÜNAL', ['zoe']], ['zoë ü', ['zoe']], ['émilie d', ['emilie']], ['Émilie', ['emilie']],
      ['ü', ['zoe']], ['ŁU', ['lukasz']], ['zo', ['zoe']], ['emilie@', ['emilie']],
      // Accents are letters of their own: no fold removes them.
      ['unal', []], ['emilie d', []],
    ] as const) {
      const res = await intl.get(`/api/v1/members?search=${enc(search)}`);
      expect({ search, found: ids(res.body.members) }).toEqual({ search, found: expected });
    }
  });

  it('pages search results', async () => {
    const res = await list.get('/api/v1/members?search=example.com&limit=2&offset=1');
    // example.com: back\slash, 1000, 100%, axb, a_b, u-01 (not u-02, which is example.org)
    expect(ids(res.body.members)).toEqual(['1000', '100%']);
    expect(res.body.pagination).toEqual({ total: 6, limit: 2, offset: 1, hasMore: true });
  });
});

describe('GET /members/lookup', () => {
  it('finds a member by email, case-insensitively', async () => {
    await server.api.post('/api/v1/members', { externalId: 'grace', email: 'Grace.Hopper@Navy.example' });
    for (const email of ['Grace.Hopper@Navy.example', 'grace.hopper@navy.example', 'GRACE.HOPPER@NAVY.EXAMPLE']) {
      const res = await server.api.get(`/api/v1/members/lookup?email=${enc(email)}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual((await server.api.get('/api/v1/members/grace')).body);
    }
  });

  it('returns the earliest member when several share an email', async () => {
    server.clock.advance(MINUTE_MS);
    await server.api.post('/api/v1/members', { externalId: 'grace-2', email: 'grace.hopper@navy.example' });
    const res = await server.api.get('/api/v1/members/lookup?email=grace.hopper%40navy.example');
    expect(res.body.externalId).toBe('grace');
  });

  it('finds a member by externalId, exactly', async () => {
    const res = await server.api.get('/api/v1/members/lookup?externalId=grace');
    expect(res.status).toBe(200);
    expect(res.body.externalId).toBe('grace');
    const other = await server.api.get('/api/v1/members/lookup?externalId=GRACE');
    expect(other.status).toBe(404);
  });

  it('answers 404 naming what was looked for', async () => {
    const byEmail = await server.api.get('/api/v1/members/lookup?email=nobody%40example.com');
    expect(byEmail.status).toBe(404);
    expect(byEmail.body).toEqual({ error: 'Not Found', message: expect.stringMatching(/email "nobody@example.com"/) });
    const byId = await server.api.get('/api/v1/members/lookup?externalId=nobody');
    expect(byId.status).toBe(404);
    expect(byId.body).toEqual({ error: 'Not Found', message: expect.stringMatching(/externalId "nobody"/) });
  });

  it('is not shadowed by a member whose externalId is "lookup" (one made before such ids were refused)', async () => {
    server.ctx.db.prepare(`INSERT INTO members (public_id, project_id, external_id, name, created_at, updated_at)
      VALUES ('mem_literallylookup', ?, 'lookup', 'Literally lookup', ?, ?)`).run(server.projectId, now(), now());
    const res = await server.api.get('/api/v1/members/lookup?externalId=grace');
    expect(res.body.externalId).toBe('grace');
  });
});

describe('DELETE /members/{externalId} (erasure)', () => {
  let erasedId: string;

  it('erases the member and keeps the ledger, anonymised', async () => {
    const created = await server.api.post('/api/v1/members', {
      externalId: 'eve', email: 'eve@example.com', name: 'Eve', avatarUrl: 'https://cdn.example/eve.png',
      phone: '+1 555 0199', dateOfBirth: '1990-01-01', metadata: { secret: 'yes' },
    });
    erasedId = created.body.id;
    await server.api.post('/api/v1/members/eve/points', { amount: 100, description: 'Signup' });
    await server.api.post('/api/v1/members/eve/points', { amount: -30 });

    server.clock.advance(MINUTE_MS);
    const res = await server.api.delete('/api/v1/members/eve');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, deleted: 'eve' });

    const row = memberRow(erasedId);
    expect(row).toMatchObject({
      email: null, name: null, avatar_url: null, phone: null, date_of_birth: null, metadata: '{}',
      points: 70, total_points_earned: 100, erased_at: now(),
    });
    expect(row.external_id).not.toBe('eve');
    const txns = server.ctx.db.prepare('SELECT amount FROM transactions WHERE member_id = (SELECT id FROM members WHERE public_id = ?) ORDER BY id').all(erasedId);
    expect(txns).toEqual([{ amount: 100 }, { amount: -30 }]);
    expect(checkLedger(server.ctx.db)).toEqual([]);
  });

  it('then answers 404 everywhere for that externalId', async () => {
    const path = '/api/v1/members/eve';
    for (const res of [
      await server.api.get(path),
      await server.api.get(`${path}/export`),
      await server.api.get(`${path}/points`),
      await server.api.post(`${path}/points`, { amount: 1 }),
      await server.api.patch(path, { name: 'Eve again' }),
      await server.api.delete(path),
      await server.api.get('/api/v1/members/lookup?externalId=eve'),
      await server.api.get('/api/v1/members/lookup?email=eve%40example.com'),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.error).toBe('Not Found');
    }
    const listed = await server.api.get('/api/v1/members?search=eve&limit=100');
    expect(listed.body.members).toEqual([]);
    const all = await server.api.get('/api/v1/members?limit=100');
    expect(all.body.members.map((m: { id: string }) => m.id)).not.toContain(erasedId);
    expect(memberRow(erasedId)).toMatchObject({ name: null, points: 70 });
  });

  it('lets the externalId be created again as a new member with 0 points', async () => {
    const res = await server.api.post('/api/v1/members', { externalId: 'eve', name: 'New Eve' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ externalId: 'eve', name: 'New Eve', email: null, points: 0, totalPointsEarned: 0, metadata: {} });
    expect(res.body.id).not.toBe(erasedId);
    const exported = await server.api.get('/api/v1/members/eve/export');
    expect(exported.body.transactions).toEqual([]);
    expect(checkLedger(server.ctx.db)).toEqual([]);
  });

  it('erases a member even when a live member uses its id as externalId, and frees that id too', async () => {
    // An erased member's externalId becomes its own id; uniqueness binds only live members.
    const victim = await server.api.post('/api/v1/members', { externalId: 'mallory' });
    const lookalike = await server.api.post('/api/v1/members', { externalId: victim.body.id });
    expect(lookalike.status).toBe(201);
    expect((await server.api.delete('/api/v1/members/mallory')).status).toBe(200);
    expect((await server.api.get(`/api/v1/members/${enc(victim.body.id)}`)).body.id).toBe(lookalike.body.id);
    const again = await server.api.post('/api/v1/members', { externalId: erasedId });
    expect(again.status).toBe(201);
    expect(again.body.points).toBe(0);
    expect(checkLedger(server.ctx.db)).toEqual([]);
  });
});

describe('GET /members/{externalId}/export', () => {
  it('exports the member with phone and dateOfBirth and every transaction, oldest first', async () => {
    const created = await server.api.post('/api/v1/members', {
      externalId: 'xavier', email: 'x@example.com', name: 'Xavier', phone: '+1 555 0142', dateOfBirth: '2000-02-29', metadata: { k: 'v' },
    });
    const amounts = [10, 20, -5, 30, -15];
    for (const amount of amounts) {
      server.clock.advance(1000);
      expect((await server.api.post('/api/v1/members/xavier/points', { amount, description: `move ${amount}` })).status).toBe(200);
    }
    server.clock.advance(MINUTE_MS);
    const res = await server.api.get('/api/v1/members/xavier/export');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['badges', 'exportedAt', 'member', 'quests', 'transactions']);
    expect(res.body.exportedAt).toBe(now());
    expect(res.body.member).toEqual({
      ...created.body, points: 40, totalPointsEarned: 60, phone: '+1 555 0142', dateOfBirth: '2000-02-29',
      updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(res.body.transactions.map((t: { amount: number }) => t.amount)).toEqual(amounts);
    expect(res.body.transactions.map((t: { balance: number }) => t.balance)).toEqual([10, 30, 25, 55, 40]);
    expect(res.body.transactions[0]).toMatchObject({ type: 'EARNED', source: 'api', description: 'move 10', id: expect.stringMatching(/^txn_/) });
    expect(res.body.transactions[2]).toMatchObject({ type: 'DEDUCTED', amount: -5 });
    const times = res.body.transactions.map((t: { createdAt: string }) => t.createdAt);
    expect([...times].sort()).toEqual(times);
  });

  it('exports more than the 100-transaction page limit', async () => {
    await server.api.post('/api/v1/members', { externalId: 'busy' });
    for (let i = 0; i < 120; i++) await server.api.post('/api/v1/members/busy/points', { amount: 1 });
    const res = await server.api.get('/api/v1/members/busy/export');
    expect(res.body.transactions).toHaveLength(120);
    expect(res.body.transactions.at(-1).balance).toBe(120);
    expect(checkLedger(server.ctx.db)).toEqual([]);
  });
});
