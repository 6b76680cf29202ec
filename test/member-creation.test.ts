import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { atomically } from '../src/db/transaction.ts';
import { upsertMember } from '../src/domain/members/members.ts';
import { eraseMember } from '../src/domain/members/privacy.ts';
import { startTestServer, TestClock, type TestServer } from './helpers/server.ts';

// A new member is one INSERT … RETURNING with its whole profile, indexed for search once, just
// before its transaction commits (with every other member that transaction created); these check
// that what is indexed is exactly the member's fields as they are at the COMMIT.
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ clock: new TestClock(new Date('2026-02-01T09:00:00.000Z')) });
});
afterAll(() => server.stop());

const search = async (text: string) => {
  const res = await server.api.get(`/api/v1/members?search=${encodeURIComponent(text)}`);
  expect(res.status, res.text).toBe(200);
  return (res.body.members as { externalId: string }[]).map((member) => member.externalId);
};
const indexCheck = () => server.ctx.db.prepare("INSERT INTO members_search (members_search) VALUES ('integrity-check')").run();

describe('member creation and the search index', () => {
  it('indexes a new member by externalId, email and name, and nothing else', async () => {
    const created = await server.api.post('/api/v1/members', {
      externalId: 'cust-9041', email: 'Grete.Lund@fjord.example', name: 'Grete Lund', phone: '+47 555 0199', metadata: { note: 'hidden-word' },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({
      externalId: 'cust-9041', email: 'Grete.Lund@fjord.example', name: 'Grete Lund', metadata: { note: 'hidden-word' }, points: 0, level: 0,
      createdAt: '2026-02-01T09:00:00.000Z',
    });
    expect(server.ctx.db.prepare('SELECT phone, updated_at FROM members WHERE external_id = ?').get('cust-9041'))
      .toEqual({ phone: '+47 555 0199', updated_at: '2026-02-01T09:00:00.000Z' });
    expect(await search('9041')).toEqual(['cust-9041']);
    expect(await search('fjord.exa')).toEqual(['cust-9041']);
    expect(await search('grete lu')).toEqual(['cust-9041']);
    expect(await search('hidden-word')).toEqual([]);
    expect(await search('555 0199')).toEqual([]);
    expect(() => indexCheck()).not.toThrow();
  });

  it('indexes a member created with no profile, and re-indexes it when the upsert adds one', async () => {
    expect((await server.api.post('/api/v1/members', { externalId: 'bare-1' })).status).toBe(201);
    expect(await search('bare-1')).toEqual(['bare-1']);
    const updated = await server.api.post('/api/v1/members', { externalId: 'bare-1', name: 'Ola Nordmann' });
    expect(updated.status, updated.text).toBe(200);
    expect(await search('nordmann')).toEqual(['bare-1']);
    expect(() => indexCheck()).not.toThrow();
  });

  it('indexes the members one transaction created with their fields at its COMMIT, and none it rolled back', async () => {
    const { db, clock } = server.ctx;
    const projectId = db.prepare("SELECT id FROM projects WHERE name = 'Default'").pluck().get() as string;
    const upsert = (externalId: string, name: string) => upsertMember(db, projectId, { externalId, name }, clock());
    atomically(db, () => {
      upsert('txn-1', 'Astrid Berg');
      upsert('txn-1', 'Astrid Holm'); // renamed before anything was indexed
      upsert('txn-2', 'Bjorn Dahl');
      upsert('txn-3', 'Cecilie Vik');
      eraseMember(db, projectId, 'txn-3', clock());
      expect(() => atomically(db, () => {
        upsert('txn-4', 'Dagny Moe');
        throw new Error('refused');
      })).toThrow('refused');
    });
    expect(await search('txn-')).toEqual(['txn-2', 'txn-1']);
    expect(await search('astrid holm')).toEqual(['txn-1']);
    expect(await search('astrid berg')).toEqual([]);
    expect(await search('cecilie')).toEqual([]);
    expect(await search('dagny')).toEqual([]);
    // Renaming an indexed member re-indexes it at once.
    upsert('txn-2', 'Bjorn Strand');
    expect(await search('strand')).toEqual(['txn-2']);
    expect(await search('dahl')).toEqual([]);
    expect(() => indexCheck()).not.toThrow();
  });

  it('indexes the members created by concurrent requests, which share a group commit', async () => {
    const created = await Promise.all(Array.from({ length: 20 }, (_, i) =>
      server.api.post('/api/v1/members', { externalId: `burst-${String(i).padStart(2, '0')}`, name: `Burst Member ${i}` })));
    expect(created.map((res) => res.status)).toEqual(Array(20).fill(201));
    expect((await search('burst-')).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `burst-${String(i).padStart(2, '0')}`));
    expect(() => indexCheck()).not.toThrow();
  });
});
