import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, AdminBrowser, makeOperator, projectPath } from './helpers/admin.ts';
import { punchcard } from './helpers/cli.ts';
import { startTestServer, TestClock, type TestServer } from './helpers/server.ts';

// Signing in to the admin: the same answer whatever the email, limits with growing delays per
// account and address, device cookies that keep the owner's browser out of others' lockouts,
// the second factor, CSRF, and sessions that end.

let server: TestServer;
const clock = new TestClock(new Date('2026-03-02T09:00:00.000Z'));
const MINUTE = 60_000;
const at = (rest: string) => projectPath(server.projectId, rest);
const code = (secret: string, offsetMs = 0) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: clock.current.getTime() + offsetMs });

beforeAll(async () => {
  server = await startTestServer({ clock });
});
afterAll(() => server.stop());

const wrong = (browser: AdminBrowser, email: string) => browser.post('session', { email, password: 'not the password at all' });

describe('sign-in answers', () => {
  it('says the same for an unknown email, a wrong password and an invite not yet accepted', async () => {
    await makeOperator(server, 'same@shop.example', 'viewer');
    server.ctx.db.prepare("INSERT INTO operators (id, email, created_at) VALUES ('opr_pending', 'pending@shop.example', '2026-01-01T00:00:00Z')").run();
    const answers = [];
    for (const email of ['nobody@shop.example', 'same@shop.example', 'pending@shop.example']) {
      const res = await wrong(new AdminBrowser(server), email);
      answers.push({ status: res.status, body: res.body, cookie: res.headers['set-cookie'] });
    }
    expect(answers).toEqual(Array(3).fill({ status: 401, body: { error: 'Unauthorized', message: 'Wrong email or password.' }, cookie: undefined }));
  });

  it('refuses a missing or malformed body with a 400 naming the field, before any password is checked', async () => {
    const res = await new AdminBrowser(server).post('session', { email: 'same@shop.example' });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/"password" is required/);
  });
});

describe('sign-in limits', () => {
  // These tests fail from one address; a day later it is forgotten, so the tests after them start clean.
  afterAll(() => clock.advance(25 * 60 * MINUTE));
  it('locks an account after 5 failures, with growing delays, and says when to try again', async () => {
    await makeOperator(server, 'locked@shop.example', 'staff');
    const guesser = new AdminBrowser(server);
    for (let i = 0; i < 5; i++) expect((await wrong(guesser, 'locked@shop.example')).status).toBe(401);
    // Locked: even the right password is refused from a browser that never signed in to the account.
    const refused = await new AdminBrowser(server).post('session', { email: 'locked@shop.example', password: ADMIN_PASSWORD });
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('60');
    expect(refused.body).toEqual({ error: 'Too Many Requests', message: expect.stringMatching(/Try again in 60 s \(at 2026-03-02T09:01:00\.000Z\)/), retryAfterSeconds: 60 });
    clock.advance(MINUTE);
    expect((await wrong(guesser, 'locked@shop.example')).status).toBe(401);
    const longer = await wrong(guesser, 'locked@shop.example');
    expect(longer.status).toBe(429);
    expect(longer.body.retryAfterSeconds).toBe(120);
    clock.advance(2 * MINUTE);
    await new AdminBrowser(server).signIn('locked@shop.example');
  });

  it('locks an email that does not exist just the same, so a lockout says nothing about an account', async () => {
    const guesser = new AdminBrowser(server);
    for (let i = 0; i < 5; i++) expect((await wrong(guesser, 'ghost@shop.example')).status).toBe(401);
    expect((await wrong(guesser, 'ghost@shop.example')).status).toBe(429);
    clock.advance(MINUTE);
  });

  it("never refuses the owner's own browser because someone else failed: attempts with its device cookie count against that device only", async () => {
    const owner = await makeOperator(server, 'device@shop.example', 'owner');
    expect(owner.cookies.get('punchcard_device')).toMatch(/^[\w-]{43}$/);
    expect((await owner.delete('session')).status).toBe(200);
    // Someone else fails on the account from the same address until it is locked for a while.
    const guesser = new AdminBrowser(server);
    for (let i = 0; i < 7; i++) await wrong(guesser, 'device@shop.example');
    expect((await guesser.post('session', { email: 'device@shop.example', password: ADMIN_PASSWORD })).status).toBe(429);
    // The owner's browser signs in with the right password all the same.
    await owner.signIn('device@shop.example');
    expect((await owner.delete('session')).status).toBe(200);
    // Its own failures count against it alone: ten are allowed, then it waits too.
    for (let i = 0; i < 9; i++) expect((await wrong(owner, 'device@shop.example')).status).toBe(401);
    expect((await wrong(owner, 'device@shop.example')).status).toBe(401);
    expect((await owner.post('session', { email: 'device@shop.example', password: ADMIN_PASSWORD })).status).toBe(429);
    clock.advance(MINUTE);
    await owner.signIn('device@shop.example');
    // A device cookie is for its account: with another email it counts as no cookie at all.
    await makeOperator(server, 'other@shop.example', 'viewer');
    const res = await owner.post('session', { email: 'other@shop.example', password: ADMIN_PASSWORD });
    expect(res.status).toBe(200);
    clock.advance(60 * MINUTE);
  });

  it('locks an address that fails on many accounts (20 failures), whatever email it tries next', async () => {
    const limited = await startTestServer({ clock, guard: { trustedProxies: ['127.0.0.1'], rateLimits: { address: '100000/min' } } });
    try {
      const from = (address: string) => ({ headers: { 'x-forwarded-for': address } });
      const guesser = new AdminBrowser(limited);
      for (let i = 0; i < 20; i++) expect((await guesser.post('session', { email: `spray${i}@shop.example`, password: 'wrong password!' }, from('203.0.113.9'))).status).toBe(401);
      expect((await guesser.post('session', { email: 'fresh@shop.example', password: 'wrong password!' }, from('203.0.113.9'))).status).toBe(429);
      expect((await guesser.post('session', { email: 'fresh@shop.example', password: 'wrong password!' }, from('198.51.100.4'))).status).toBe(401);
    } finally {
      await limited.stop();
    }
  });
});

describe('the second factor (TOTP)', () => {
  let owner: AdminBrowser;
  let secret = '';

  beforeAll(async () => {
    owner = await makeOperator(server, 'totp@shop.example', 'owner');
  });

  it('enrols with an authenticator app: a secret and an otpauth:// URI, on once a code is confirmed', async () => {
    const started = await owner.post('me/totp');
    expect(started.status, started.text).toBe(200);
    secret = started.body.secret;
    expect(started.body.uri).toBe(`otpauth://totp/Punchcard:totp%40shop.example?issuer=Punchcard&secret=${secret}&algorithm=SHA1&digits=6&period=30`);
    const bad = await owner.post('me/totp/confirm', { code: '000000' === code(secret) ? '111111' : '000000' });
    expect(bad.status).toBe(400);
    expect((await owner.get('session')).body.operator.totpEnabled).toBe(false);
    expect((await owner.post('me/totp/confirm', { code: code(secret) })).body).toEqual({ totpEnabled: true });
    expect((await owner.get('session')).body.operator.totpEnabled).toBe(true);
  });

  it('asks for a code after the right password, refuses a wrong or reused one, and signs in with a fresh one', async () => {
    clock.advance(30_000);
    const browser = new AdminBrowser(server);
    const noCode = await browser.post('session', { email: 'totp@shop.example', password: ADMIN_PASSWORD });
    expect(noCode.status).toBe(401);
    expect(noCode.body).toEqual({ error: 'Unauthorized', message: expect.stringMatching(/6-digit code/), totpRequired: true });
    // The wrong password never reveals that a code would be asked for.
    expect((await wrong(browser, 'totp@shop.example')).body).toEqual({ error: 'Unauthorized', message: 'Wrong email or password.' });
    const wrongCode = await browser.post('session', { email: 'totp@shop.example', password: ADMIN_PASSWORD, totpCode: code(secret, 10 * MINUTE) });
    expect(wrongCode.status).toBe(401);
    expect(wrongCode.body.totpRequired).toBe(true);
    const fresh = code(secret);
    await browser.signIn('totp@shop.example', ADMIN_PASSWORD, fresh);
    const replay = await new AdminBrowser(server).post('session', { email: 'totp@shop.example', password: ADMIN_PASSWORD, totpCode: fresh });
    expect(replay.status).toBe(401);
    clock.advance(30_000);
    await new AdminBrowser(server).signIn('totp@shop.example', ADMIN_PASSWORD, code(secret));
  });

  it('is required of owners when the project says so: an owner without one may act on nothing there until they enrol', async () => {
    const other = await makeOperator(server, 'plain-owner@shop.example', 'owner');
    const staff = await makeOperator(server, 'plain-staff@shop.example', 'staff');
    expect((await owner.patch(at('project'), { admin: { ownerTotpRequired: true } })).status).toBe(200);
    expect((await owner.get('session')).body.projects[0].ownerTotpRequired).toBe(true);
    const refused = await other.get(at('members'));
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/requires its owners to sign in with a second factor/);
    expect((await staff.get(at('members'))).status).toBe(200);
    expect((await owner.get(at('members'))).status).toBe(200);
    const enrolled = await other.post('me/totp');
    expect((await other.post('me/totp/confirm', { code: code(enrolled.body.secret) })).status).toBe(200);
    expect((await other.get(at('members'))).status).toBe(200);
    expect((await owner.patch(at('project'), { admin: { ownerTotpRequired: false } })).status).toBe(200);
  });

  it('turns off with a current code, and limits wrong codes', async () => {
    clock.advance(30_000);
    for (let i = 0; i < 5; i++) expect((await owner.delete('me/totp', { code: code(secret, 10 * MINUTE) })).status).toBe(400);
    expect((await owner.delete('me/totp', { code: code(secret) })).status).toBe(429);
    clock.advance(MINUTE);
    expect((await owner.delete('me/totp', { code: code(secret) })).body).toEqual({ totpEnabled: false });
    await new AdminBrowser(server).signIn('totp@shop.example');
  });
});

describe('CSRF', () => {
  let owner: AdminBrowser;
  beforeAll(async () => {
    owner = await makeOperator(server, 'csrf@shop.example', 'owner');
    expect((await server.api.post('/api/v1/members', { externalId: 'csrf-member' })).status).toBe(201);
  });
  const adjust = (browser: AdminBrowser, headers?: Record<string, string>) => browser.post(at('members/csrf-member/points'), { amount: 5, reason: 'test' }, { headers });

  it('refuses a change without the token, with a wrong one, from another Origin or with none', async () => {
    const token = owner.csrf!;
    owner.csrf = undefined;
    const missing = await adjust(owner);
    expect(missing.status).toBe(403);
    expect(missing.body.message).toMatch(/X-CSRF-Token header is missing/);
    owner.csrf = 'x'.repeat(43);
    expect((await adjust(owner)).body.message).toMatch(/does not match this session/);
    owner.csrf = token;
    const elsewhere = await adjust(owner, { origin: 'https://evil.example' });
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.body.message).toMatch(/not from https:\/\/evil\.example/);
    owner.origin = '';
    expect((await adjust(owner)).body.message).toMatch(/no Origin header/);
    const otherPort = new URL(server.url);
    otherPort.port = String(Number(otherPort.port) + 1);
    expect((await adjust(owner, { origin: otherPort.origin })).status).toBe(403);
    // Every refusal changed nothing; the admin's own page (any loopback name of this port) goes through.
    expect((await server.api.get('/api/v1/members/csrf-member')).body.points).toBe(0);
    owner.origin = server.url.replace('127.0.0.1', 'localhost');
    expect((await adjust(owner)).status).toBe(200);
    owner.origin = server.url;
  });

  it('refuses signing in from another Origin too (login CSRF)', async () => {
    const res = await new AdminBrowser(server, { origin: 'https://evil.example' }).post('session', { email: 'csrf@shop.example', password: ADMIN_PASSWORD });
    expect(res.status).toBe(403);
  });

  it('names the cookies __Host- with Secure behind an https public URL, and takes only that origin', async () => {
    // Given with a trailing slash, as people write it: links built on it have one slash.
    const https = await startTestServer({ publicUrl: 'https://loyalty.shop.example/' });
    try {
      const browser = new AdminBrowser(https, { origin: 'https://loyalty.shop.example' });
      await makeOperator(https, 'tls@shop.example', 'owner', { browser });
      expect([...browser.cookies.keys()].sort()).toEqual(['__Host-punchcard_admin', '__Host-punchcard_device']);
      const invited = await browser.post(projectPath(https.projectId, 'operators'), { email: 'next@shop.example', role: 'staff' });
      expect(invited.body.inviteUrl, invited.text).toMatch(/^https:\/\/loyalty\.shop\.example\/admin\/invite\/[\w-]+$/);
      const res = await browser.post(projectPath(https.projectId, 'catalog/badges'), { name: 'Early bird' });
      expect(res.status, res.text).toBe(201);
      browser.origin = https.url;
      expect((await browser.post(projectPath(https.projectId, 'catalog/badges'), { name: 'Late' })).status).toBe(403);
      const signIn = await new AdminBrowser(https, { origin: 'https://loyalty.shop.example' }).post('session', { email: 'tls@shop.example', password: ADMIN_PASSWORD });
      expect([signIn.headers['set-cookie']].flat().join('\n')).toMatch(/__Host-punchcard_admin=[\w-]{43}; Max-Age=604800; Path=\/; HttpOnly; Secure; SameSite=Strict/);
    } finally {
      await https.stop();
    }
  });
});

describe('sessions', () => {
  it('end after 12 hours without a request, and are kept alive by use', async () => {
    const browser = await makeOperator(server, 'idle@shop.example', 'viewer');
    clock.advance(11 * 60 * MINUTE);
    expect((await browser.get('session')).status).toBe(200);
    clock.advance(11 * 60 * MINUTE);
    const listed = await browser.get('sessions');
    expect(listed.body.sessions).toEqual([expect.objectContaining({ current: true, lastSeenAt: clock.current.toISOString(),
      expiresAt: new Date(clock.current.getTime() + 12 * 60 * MINUTE).toISOString() })]);
    clock.advance(12 * 60 * MINUTE + 1000);
    const ended = await browser.get('session');
    expect(ended.status).toBe(401);
    expect(ended.body).toEqual({ error: 'Unauthorized', message: expect.stringMatching(/sign in again/) });
    expect(ended.headers['cache-control']).toBe('no-store');
  });

  it('end 7 days after sign-in however busy', async () => {
    const browser = await makeOperator(server, 'busy@shop.example', 'viewer');
    for (let hours = 0; hours < 7 * 24 - 11; hours += 11) {
      clock.advance(11 * 60 * MINUTE);
      expect((await browser.get('session')).status).toBe(200);
    }
    clock.advance(11 * 60 * MINUTE);
    expect((await browser.get('session')).status).toBe(401);
  });

  it('are listed and revocable by their operator, and end by sign-out', async () => {
    const laptop = await makeOperator(server, 'two@shop.example', 'staff');
    const phone = new AdminBrowser(server);
    await phone.signIn('two@shop.example');
    const listed = (await laptop.get('sessions')).body.sessions;
    expect(listed).toHaveLength(2);
    const phoneSession = listed.find((session: { current: boolean }) => !session.current);
    expect(phoneSession).toMatchObject({ address: '127.0.0.1', userAgent: null });
    expect((await laptop.delete(`sessions/${phoneSession.id}`)).status).toBe(200);
    expect((await phone.get('session')).status).toBe(401);
    expect((await laptop.delete('sessions/ses_someone_else')).status).toBe(404);
    expect((await laptop.delete('session')).status).toBe(200);
    expect((await laptop.get('sessions')).status).toBe(401);
  });

  it('end with a new password (but for the browser that set it), a role change, a removal and a reset from the CLI', async () => {
    const owner = await makeOperator(server, 'boss@shop.example', 'owner');
    const mine = await makeOperator(server, 'changes@shop.example', 'staff');
    const elsewhere = new AdminBrowser(server);
    await elsewhere.signIn('changes@shop.example');
    const badCurrent = await mine.patch('me', { currentPassword: 'not my password', newPassword: 'a brand new passphrase' });
    expect(badCurrent.status).toBe(400);
    const changed = await mine.patch('me', { name: 'Chan', currentPassword: ADMIN_PASSWORD, newPassword: 'a brand new passphrase' });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.operator.name).toBe('Chan');
    expect((await elsewhere.get('session')).status).toBe(401);
    expect((await mine.get('session')).status).toBe(200);
    expect((await new AdminBrowser(server).post('session', { email: 'changes@shop.example', password: ADMIN_PASSWORD })).status).toBe(401);
    await elsewhere.signIn('changes@shop.example', 'a brand new passphrase');

    const id = changed.body.operator.id;
    expect((await owner.patch(at(`operators/${id}`), { role: 'viewer' })).body).toMatchObject({ id, role: 'viewer' });
    expect((await mine.get('session')).status).toBe(401);
    expect((await elsewhere.get('session')).status).toBe(401);
    await mine.signIn('changes@shop.example', 'a brand new passphrase');
    expect((await mine.get('session')).body.projects[0].role).toBe('viewer');

    const reset = punchcard(['--db', server.dbPath, 'admin', 'reset', 'changes@shop.example', '--public-url', server.url, '--json']);
    expect(reset.status, reset.stderr).toBe(0);
    const { link, sessionsEnded } = JSON.parse(reset.stdout);
    expect(sessionsEnded).toBe(1);
    expect((await mine.get('session')).status).toBe(401);
    expect((await new AdminBrowser(server).post('session', { email: 'changes@shop.example', password: 'a brand new passphrase' })).status).toBe(401);
    const token = link.split('/').at(-1);
    expect((await new AdminBrowser(server).get(`invites/${token}`)).body).toMatchObject({ kind: 'reset', role: null, projectName: null });
    const back = await mine.post(`invites/${token}`, { password: 'the third passphrase' });
    expect(back.status, back.text).toBe(200);
    expect(back.body.projects).toMatchObject([{ id: server.projectId, role: 'viewer' }]);

    expect((await owner.delete(at(`operators/${id}`))).status).toBe(200);
    expect((await mine.get('session')).status).toBe(401);
    expect((await mine.post('session', { email: 'changes@shop.example', password: 'the third passphrase' })).body.projects).toEqual([]);
  });
});
