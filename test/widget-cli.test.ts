import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { punchcard, punchcardJson } from './helpers/cli.ts';
import { client } from './helpers/http.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

describe('punchcard widget sign', () => {
  it('prints a header and an init config the widget API accepts', async () => {
    const signed = punchcardJson(['--db', server.dbPath, 'widget', 'sign', '--project', server.projectId, '--external-id', 'cli-shopper', '--api-url', server.url]);
    expect(signed.config).toEqual({
      publicKey: server.publishableKey, externalId: 'cli-shopper', timestamp: expect.any(Number), signature: expect.stringMatching(/^[0-9a-f]{64}$/), apiUrl: server.url,
    });
    const res = await client(server.url).post('/api/widget/init', {}, { headers: { 'x-widget-auth': signed.header } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.member.externalId).toBe('cli-shopper');

    const text = punchcard(['--db', server.dbPath, 'widget', 'sign', '--project', server.projectId, '--external-id', 'cli-shopper']);
    expect(text.stdout).toMatch(/^X-Widget-Auth: [A-Za-z0-9+/=]+\n\nPunchcard\.init\(\{/);
    // The origin rule, where the developer first looks.
    expect(text.stdout).toContain(`The widget runs only on loopback origins (localhost, 127.0.0.1, [::1]) until you list your shop's:\n  punchcard project set --project ${server.projectId} --allow-origin https://your-shop.example`);
  });

  it('signs profile fields with --member, and project set --allow-origin lets a shop origin in', async () => {
    const signed = punchcardJson(['--db', server.dbPath, 'widget', 'sign', '--project', server.projectId, '--external-id', 'cli-profile', '--member', '{"name":"Cli Person","email":"cli@example.com"}']);
    expect(JSON.parse(signed.config.member)).toEqual({ name: 'Cli Person', email: 'cli@example.com' });
    const origin = 'https://cli-shop.example';
    const call = () => client(server.url).post('/api/widget/init', {}, { headers: { 'x-widget-auth': signed.header, origin } });
    expect((await call()).body.error).toBe('origin_not_allowed');
    punchcardJson(['--db', server.dbPath, 'project', 'set', '--project', server.projectId, '--allow-origin', origin]);
    punchcardJson(['--db', server.dbPath, 'project', 'set', '--project', server.projectId, '--allow-origin', 'https://second.example', origin]);
    expect(punchcardJson(['--db', server.dbPath, 'project', 'show', '--project', server.projectId]).widget.allowedOrigins).toEqual([origin, 'https://second.example']);
    const res = await call();
    expect(res.status, res.text).toBe(200);
    expect(res.body.member).toMatchObject({ externalId: 'cli-profile', name: 'Cli Person', email: 'cli@example.com' });
    const bad = punchcard(['--db', server.dbPath, 'widget', 'sign', '--project', server.projectId, '--external-id', 'x', '--member', '{"email":"nope"}']);
    expect(bad.stderr).toMatch(/"member.email" must be a valid email address/);
  });

  it('refuses a key of another project in one line', () => {
    const other = server.addProject('Other');
    const res = punchcard(['--db', server.dbPath, 'widget', 'sign', '--project', server.projectId, '--external-id', 'x', '--public-key', other.publishableKey]);
    expect(res.status).toBe(1);
    expect(res.stderr).toMatch(/^punchcard: pk_live_\w{4}… is not a live publishable key of project "prj_\w+"\.\n$/);
  });
});
