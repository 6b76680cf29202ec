import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TestClock, type TestServer } from './helpers/server.ts';

// A new member is one INSERT … RETURNING with its whole profile, so the search index's trigger
// indexes it once; these check that what is indexed is still exactly the member's fields.
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
});
