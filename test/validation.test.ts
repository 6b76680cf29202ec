import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import type { RequestOptions } from './helpers/http.ts';
import { startTestServer, tableCounts, type TestServer } from './helpers/server.ts';
import { type AdminBrowser, makeOperator } from './helpers/admin.ts';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
  const created = await server.api.post('/api/v1/members', { externalId: 'vic', email: 'vic@example.com', name: 'Vic' });
  expect(created.status).toBe(201);
  expect((await server.api.post('/api/v1/members/vic/points', { amount: 50 })).status).toBe(200);
});
afterAll(() => server.stop());

/** Everything a refused request could have touched, row for row. */
function snapshot() {
  const db = server.ctx.db;
  return {
    counts: tableCounts(server),
    members: db.prepare('SELECT * FROM members ORDER BY id').all(),
    lots: db.prepare('SELECT * FROM point_lots ORDER BY transaction_id').all(),
  };
}

const json = (text: string): RequestOptions => ({ raw: text, headers: { 'content-type': 'application/json' } });
const body = (value: unknown): RequestOptions => ({ body: value });
const longString = (n: number, c = 'x') => c.repeat(n);
/** A future instant relative to the server's clock (real time in this file). */
const inOneDay = () => new Date(Date.now() + 86_400_000).toISOString();

interface Case {
  name: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  options?: RequestOptions | (() => RequestOptions);
  /** The message must match this: it names the field and the rule. */
  message: RegExp;
}

const MEMBERS = '/api/v1/members';
const VIC = '/api/v1/members/vic';
const POINTS = '/api/v1/members/vic/points';
const WEBHOOKS = '/api/v1/webhooks';
const CONNECT = '/api/commerce/connect';

const cases: Case[] = [
  // POST /members
  { name: 'create: externalId missing', method: 'POST', path: MEMBERS, options: body({ name: 'x' }), message: /"externalId" is required/ },
  { name: 'create: externalId a number', method: 'POST', path: MEMBERS, options: body({ externalId: 42 }), message: /"externalId" must be a string/ },
  { name: 'create: externalId empty', method: 'POST', path: MEMBERS, options: body({ externalId: '' }), message: /"externalId" must not be empty/ },
  { name: 'create: externalId 300 chars', method: 'POST', path: MEMBERS, options: body({ externalId: longString(300) }), message: /"externalId" must be at most 255 characters/ },
  { name: 'create: externalId with a newline', method: 'POST', path: MEMBERS, options: body({ externalId: 'a\nb' }), message: /"externalId" must not contain control characters/ },
  { name: 'create: externalId with NUL', method: 'POST', path: MEMBERS, options: body({ externalId: 'a\u0000b' }), message: /"externalId" must not contain control characters/ },
  { name: 'create: externalId null', method: 'POST', path: MEMBERS, options: body({ externalId: null }), message: /"externalId" must be a string/ },
  { name: 'create: bad email', method: 'POST', path: MEMBERS, options: body({ externalId: 'new-1', email: 'not-an-email' }), message: /"email" must be a valid email address/ },
  { name: 'create: email a number', method: 'POST', path: MEMBERS, options: body({ externalId: 'new-1', email: 5 }), message: /"email" must be a string/ },
  { name: 'create: avatarUrl javascript:', method: 'POST', path: MEMBERS, options: body({ externalId: 'new-1', avatarUrl: 'javascript:alert(1)' }), message: /"avatarUrl" must be an http or https URL/ },
  { name: 'create: avatarUrl not a url', method: 'POST', path: MEMBERS, options: body({ externalId: 'new-1', avatarUrl: 'not a url' }), message: /"avatarUrl" must be a valid URL/ },
  { name: 'create: avatarUrl data:', method: 'POST', path: MEMBERS, options: body({ externalId: 'new-1', avatarUrl: 'data:text/html,<b>x</b>' }), message: /"avatarUrl" must be an http or https URL/ },
  { name: 'create: dateOfBirth 2023-02-30', method: 'POST', path: MEMBERS, options: body({ externalId: 'new-1', dateOfBirth: '2023-02-30' }), message: /"dateOfBirth" is not a real calendar date/ },
  { name: 'create: dateOfBirth yesterday', method: 'POST', path: MEMBERS, options: body({ externalId: 'new-1', dateOfBirth: 'yesterday' }), message: /"dateOfBirth" must be a date written YYYY-MM-DD/ },
  { name: 'create: dateOfBirth month 13', method: 'POST', path: MEMBERS, options: body({ externalId: 'new-1', dateOfBirth: '2023-13-01' }), message: /"dateOfBirth" must be a date written YYYY-MM-DD/ },
  { name: 'create: dateOfBirth with a time', method: 'POST', path: MEMBERS, options: body({ externalId: 'new-1', dateOfBirth: '2000-01-01T00:00:00Z' }), message: /"dateOfBirth" must be a date written YYYY-MM-DD/ },
  { name: 'create: phone over 32 chars', method: 'POST', path: MEMBERS, options: body({ externalId: 'new-1', phone: longString(33, '1') }), message: /"phone" must be at most 32 characters/ },
  { name: 'create: name over 200 chars', method: 'POST', path: MEMBERS, options: body({ externalId: 'new-1', name: longString(201) }), message: /"name" must be at most 200 characters/ },
  { name: 'create: metadata an array', method: 'POST', path: MEMBERS, options: body({ externalId: 'new-1', metadata: [1, 2] }), message: /"metadata" must be a JSON object/ },
  { name: 'create: metadata a string', method: 'POST', path: MEMBERS, options: body({ externalId: 'new-1', metadata: '{"a":1}' }), message: /"metadata" must be a JSON object/ },
  { name: 'create: metadata null', method: 'POST', path: MEMBERS, options: body({ externalId: 'new-1', metadata: null }), message: /"metadata" must be a JSON object/ },
  { name: 'create: metadata over 16 KB', method: 'POST', path: MEMBERS, options: body({ externalId: 'new-1', metadata: { blob: longString(16_400) } }), message: /"metadata" must be at most 16 KB/ },
  { name: 'create: unknown field', method: 'POST', path: MEMBERS, options: body({ externalId: 'new-1', points: 1000 }), message: /Unknown field "points"/ },
  { name: 'create: body a JSON array', method: 'POST', path: MEMBERS, options: json('[{"externalId":"new-1"}]'), message: /body must be a JSON object/ },
  { name: 'create: body null', method: 'POST', path: MEMBERS, options: json('null'), message: /body must be a JSON object/ },
  { name: 'create: body a string', method: 'POST', path: MEMBERS, options: json('"new-1"'), message: /body must be a JSON object/ },
  { name: 'create: body a number', method: 'POST', path: MEMBERS, options: json('42'), message: /body must be a JSON object/ },
  { name: 'create: malformed JSON', method: 'POST', path: MEMBERS, options: json('{"externalId": "new-1",'), message: /not valid JSON/ },
  { name: 'create: single-quoted JSON', method: 'POST', path: MEMBERS, options: json("{'externalId': 'new-1'}"), message: /not valid JSON/ },
  { name: 'create: text/plain content-type', method: 'POST', path: MEMBERS, options: { raw: '{"externalId":"new-1"}', headers: { 'content-type': 'text/plain' } }, message: /Content-Type must be application\/json.*text\/plain/ },
  { name: 'create: form content-type', method: 'POST', path: MEMBERS, options: { raw: '{"externalId":"new-1"}', headers: { 'content-type': 'application/x-www-form-urlencoded' } }, message: /Content-Type must be application\/json/ },
  { name: 'create: no content-type', method: 'POST', path: MEMBERS, options: { raw: '{"externalId":"new-1"}' }, message: /Content-Type must be application\/json \(got "none"\)/ },
  { name: 'create: empty body', method: 'POST', path: MEMBERS, options: { headers: { 'content-type': 'application/json' } }, message: /body is empty/ },
  { name: 'create: whitespace body', method: 'POST', path: MEMBERS, options: json('  \n '), message: /body is empty/ },
  { name: 'create: Idempotency-Key over 255 chars', method: 'POST', path: MEMBERS, options: { body: { externalId: 'new-1' }, headers: { 'idempotency-key': longString(256, 'k') } }, message: /Idempotency-Key header must be 1 to 255 printable characters/ },

  // PATCH /members/{id}
  { name: 'patch: unknown field', method: 'PATCH', path: VIC, options: body({ nickname: 'v' }), message: /Unknown field "nickname"/ },
  { name: 'patch: bad email', method: 'PATCH', path: VIC, options: body({ email: 'vic@' }), message: /"email" must be a valid email address/ },
  { name: 'patch: externalId given', method: 'PATCH', path: VIC, options: body({ externalId: 'victor' }), message: /Unknown field "externalId"/ },
  { name: 'patch: points given', method: 'PATCH', path: VIC, options: body({ points: 1_000_000 }), message: /Unknown field "points"/ },
  { name: 'patch: avatarUrl not a url', method: 'PATCH', path: VIC, options: body({ avatarUrl: 'ftp//x' }), message: /"avatarUrl" must be a valid URL/ },
  { name: 'patch: metadata an array', method: 'PATCH', path: VIC, options: body({ metadata: [] }), message: /"metadata" must be a JSON object/ },
  { name: 'patch: empty body', method: 'PATCH', path: VIC, options: { headers: { 'content-type': 'application/json' } }, message: /body is empty/ },
  { name: 'patch: Idempotency-Key over 255 chars', method: 'PATCH', path: VIC, options: { body: { name: 'V' }, headers: { 'idempotency-key': longString(300, 'k') } }, message: /Idempotency-Key header must be 1 to 255/ },

  // DELETE /members/{id}
  { name: 'delete: a body with fields', method: 'DELETE', path: VIC, options: body({ force: true }), message: /Unknown field "force"/ },

  // POST /members/{id}/points
  { name: 'points: amount missing', method: 'POST', path: POINTS, options: body({ description: 'x' }), message: /"amount" is required/ },
  { name: 'points: amount "10"', method: 'POST', path: POINTS, options: body({ amount: '10' }), message: /"amount" must be a number/ },
  { name: 'points: amount 1.5', method: 'POST', path: POINTS, options: body({ amount: 1.5 }), message: /"amount" must be a whole number/ },
  { name: 'points: amount 0', method: 'POST', path: POINTS, options: body({ amount: 0 }), message: /"amount" must not be zero/ },
  { name: 'points: amount -0', method: 'POST', path: POINTS, options: json('{"amount": -0}'), message: /"amount" must not be zero/ },
  { name: 'points: amount 1e308', method: 'POST', path: POINTS, options: body({ amount: 1e308 }), message: /"amount" must be at most 1000000000/ },
  { name: 'points: amount 1e10', method: 'POST', path: POINTS, options: body({ amount: 1e10 }), message: /"amount" must be at most 1000000000/ },
  { name: 'points: amount -1e10', method: 'POST', path: POINTS, options: body({ amount: -1e10 }), message: /"amount" must be at least -1000000000/ },
  { name: 'points: amount 1e400 (Infinity)', method: 'POST', path: POINTS, options: json('{"amount": 1e400}'), message: /"amount" must be a whole number/ },
  { name: 'points: amount NaN literal', method: 'POST', path: POINTS, options: json('{"amount": NaN}'), message: /not valid JSON/ },
  { name: 'points: amount Infinity literal', method: 'POST', path: POINTS, options: json('{"amount": Infinity}'), message: /not valid JSON/ },
  { name: 'points: amount "NaN"', method: 'POST', path: POINTS, options: body({ amount: 'NaN' }), message: /"amount" must be a number/ },
  { name: 'points: amount null', method: 'POST', path: POINTS, options: body({ amount: null }), message: /"amount" must be a number/ },
  { name: 'points: amount true', method: 'POST', path: POINTS, options: body({ amount: true }), message: /"amount" must be a number/ },
  { name: 'points: amount an object', method: 'POST', path: POINTS, options: body({ amount: { value: 10 } }), message: /"amount" must be a number/ },
  { name: 'points: expiresAt "tomorrow"', method: 'POST', path: POINTS, options: body({ amount: 10, expiresAt: 'tomorrow' }), message: /"expiresAt" must be an ISO 8601 date-time/ },
  { name: 'points: expiresAt a date only', method: 'POST', path: POINTS, options: body({ amount: 10, expiresAt: '2099-01-01' }), message: /"expiresAt" must be an ISO 8601 date-time/ },
  { name: 'points: expiresAt on February 30', method: 'POST', path: POINTS, options: body({ amount: 10, expiresAt: '2099-02-30T00:00:00Z' }), message: /"expiresAt" is not a real calendar date/ },
  { name: 'points: expiresAt in the past', method: 'POST', path: POINTS, options: body({ amount: 10, expiresAt: '2020-01-01T00:00:00Z' }), message: /"expiresAt" must be in the future/ },
  { name: 'points: expiresAt on a deduction', method: 'POST', path: POINTS, options: () => body({ amount: -10, expiresAt: inOneDay() }), message: /"expiresAt" applies only to awards/ },
  { name: 'points: description 501 chars', method: 'POST', path: POINTS, options: body({ amount: 10, description: longString(501) }), message: /"description" must be at most 500 characters/ },
  { name: 'points: referenceId 256 chars', method: 'POST', path: POINTS, options: body({ amount: 10, referenceId: longString(256) }), message: /"referenceId" must be at most 255 characters/ },
  { name: 'points: metadata an array', method: 'POST', path: POINTS, options: body({ amount: 10, metadata: ['a'] }), message: /"metadata" must be a JSON object/ },
  { name: 'points: unknown field', method: 'POST', path: POINTS, options: body({ amount: 10, type: 'EARNED' }), message: /Unknown field "type"/ },
  { name: 'points: idempotencyKey ""', method: 'POST', path: POINTS, options: body({ amount: 10, idempotencyKey: '' }), message: /"idempotencyKey" must not be empty/ },
  { name: 'points: idempotencyKey 256 chars', method: 'POST', path: POINTS, options: body({ amount: 10, idempotencyKey: longString(256) }), message: /"idempotencyKey" must be at most 255 characters/ },
  { name: 'points: Idempotency-Key over 255 chars', method: 'POST', path: POINTS, options: { body: { amount: 10 }, headers: { 'idempotency-key': longString(256, 'k') } }, message: /Idempotency-Key header must be 1 to 255 printable characters/ },
  { name: 'points: Idempotency-Key differs from idempotencyKey', method: 'POST', path: POINTS, options: { body: { amount: 10, idempotencyKey: 'a' }, headers: { 'idempotency-key': 'b' } }, message: /differ/ },
  { name: 'points: several problems at once', method: 'POST', path: POINTS, options: body({ amount: 1.5, description: 7, extra: 1 }), message: /"amount" must be a whole number.*"description" must be a string|"description" must be a string.*"amount"/ },

  // GET /members
  { name: 'list: limit=-1', method: 'GET', path: `${MEMBERS}?limit=-1`, message: /Query parameter "limit" must be at least 1/ },
  { name: 'list: limit=0', method: 'GET', path: `${MEMBERS}?limit=0`, message: /Query parameter "limit" must be at least 1/ },
  { name: 'list: limit=101', method: 'GET', path: `${MEMBERS}?limit=101`, message: /Query parameter "limit" must be at most 100/ },
  { name: 'list: limit=abc', method: 'GET', path: `${MEMBERS}?limit=abc`, message: /Query parameter "limit" must be a whole number/ },
  { name: 'list: limit=1.5', method: 'GET', path: `${MEMBERS}?limit=1.5`, message: /Query parameter "limit" must be a whole number/ },
  { name: 'list: limit empty', method: 'GET', path: `${MEMBERS}?limit=`, message: /Query parameter "limit" must be a whole number/ },
  { name: 'list: offset=-1', method: 'GET', path: `${MEMBERS}?offset=-1`, message: /Query parameter "offset" must be at least 0/ },
  { name: 'list: unknown query parameter', method: 'GET', path: `${MEMBERS}?page=2`, message: /Unknown query parameter "page"/ },
  { name: 'list: limit given twice', method: 'GET', path: `${MEMBERS}?limit=10&limit=20`, message: /Query parameter "limit" must be given at most once/ },
  { name: 'list: search over 200 chars', method: 'GET', path: `${MEMBERS}?search=${longString(201)}`, message: /Query parameter "search" must be at most 200 characters/ },

  // GET /members/{id}/points
  { name: 'points query: history=maybe', method: 'GET', path: `${POINTS}?history=maybe`, message: /Query parameter "history" must be true or false/ },
  { name: 'points query: limit=0', method: 'GET', path: `${POINTS}?history=true&limit=0`, message: /Query parameter "limit" must be at least 1/ },
  { name: 'points query: limit=101', method: 'GET', path: `${POINTS}?history=true&limit=101`, message: /Query parameter "limit" must be at most 100/ },
  { name: 'points query: unknown parameter', method: 'GET', path: `${POINTS}?type=EARNED`, message: /Unknown query parameter "type"/ },

  // GET /members/lookup
  { name: 'lookup: neither email nor externalId', method: 'GET', path: `${MEMBERS}/lookup`, message: /exactly one of email or externalId/ },
  { name: 'lookup: both email and externalId', method: 'GET', path: `${MEMBERS}/lookup?email=vic%40example.com&externalId=vic`, message: /exactly one of email or externalId/ },
  { name: 'lookup: unknown parameter', method: 'GET', path: `${MEMBERS}/lookup?name=Vic`, message: /Unknown query parameter "name"/ },
  { name: 'lookup: email given twice', method: 'GET', path: `${MEMBERS}/lookup?email=a%40b.c&email=d%40e.f`, message: /"email" must be given at most once/ },
  { name: 'lookup: empty externalId', method: 'GET', path: `${MEMBERS}/lookup?externalId=`, message: /Query parameter "externalId" must not be empty/ },

  // POST /members/import (what a file's rows may say in detail: member-import.test.ts)
  { name: 'import: batchId missing', method: 'POST', path: `${MEMBERS}/import`, options: body({ rows: [{ externalId: 'imp-1' }] }), message: /"batchId" is required/ },
  { name: 'import: no rows', method: 'POST', path: `${MEMBERS}/import`, options: body({ batchId: 'b', rows: [] }), message: /"rows" must hold at least one member/ },
  { name: 'import: 1,001 rows', method: 'POST', path: `${MEMBERS}/import`, options: () => body({ batchId: 'b', rows: Array.from({ length: 1001 }, (_, i) => ({ externalId: `imp-${i}` })) }), message: /"rows" must hold at most 1000 members per request/ },
  { name: 'import: a row naming no one', method: 'POST', path: `${MEMBERS}/import`, options: body({ batchId: 'b', rows: [{ balance: 5 }] }), message: /"rows\.0" needs an externalId or an email/ },
  { name: 'import: balance negative', method: 'POST', path: `${MEMBERS}/import`, options: body({ batchId: 'b', rows: [{ externalId: 'imp-1', balance: -5 }] }), message: /"rows\.0\.balance" must be at least 0/ },
  { name: 'import: balance as text', method: 'POST', path: `${MEMBERS}/import`, options: body({ batchId: 'b', rows: [{ externalId: 'imp-1', balance: '5' }] }), message: /"rows\.0\.balance" must be a whole number of points/ },
  { name: 'import: pending not whole', method: 'POST', path: `${MEMBERS}/import`, options: body({ batchId: 'b', rows: [{ externalId: 'imp-1', pending: 2.5 }] }), message: /"rows\.0\.pending" must be a whole number of points/ },
  { name: 'import: joinedAt not a date', method: 'POST', path: `${MEMBERS}/import`, options: body({ batchId: 'b', rows: [{ externalId: 'imp-1', joinedAt: '01/05/2024' }] }), message: /"rows\.0\.joinedAt" must be a date \(2024-05-01\)/ },
  { name: 'import: mode unknown', method: 'POST', path: `${MEMBERS}/import`, options: body({ batchId: 'b', mode: 'replace', rows: [{ externalId: 'imp-1' }] }), message: /"mode" must be "add" or "reset"/ },
  { name: 'import: unknown row field', method: 'POST', path: `${MEMBERS}/import`, options: body({ batchId: 'b', rows: [{ externalId: 'imp-1', points: 5 }] }), message: /Unknown field "rows\.0\.points"/ },
  { name: 'import: batchId and Idempotency-Key differ', method: 'POST', path: `${MEMBERS}/import`, options: { body: { batchId: 'b', rows: [{ externalId: 'imp-1' }] }, headers: { 'idempotency-key': 'other' } }, message: /The Idempotency-Key header and the "batchId" field differ/ },

  // POST /webhooks, PATCH /webhooks/{id} (URL rules in detail: webhook-urls.test.ts)
  { name: 'webhook: url missing', method: 'POST', path: WEBHOOKS, options: body({ events: ['points.awarded'] }), message: /"url" is required/ },
  { name: 'webhook: url a number', method: 'POST', path: WEBHOOKS, options: body({ url: 5, events: ['points.awarded'] }), message: /"url" must be a string/ },
  { name: 'webhook: url http', method: 'POST', path: WEBHOOKS, options: body({ url: 'http://93.184.215.14/', events: ['points.awarded'] }), message: /"url" must be an https URL/ },
  { name: 'webhook: url private', method: 'POST', path: WEBHOOKS, options: body({ url: 'https://10.0.0.1/', events: ['points.awarded'] }), message: /"url" must not point inside a private network/ },
  { name: 'webhook: url over 2048 chars', method: 'POST', path: WEBHOOKS, options: body({ url: `https://a.example/${longString(2048)}`, events: ['points.awarded'] }), message: /"url" must be at most 2048 characters/ },
  { name: 'webhook: events missing', method: 'POST', path: WEBHOOKS, options: body({ url: 'https://93.184.215.14/' }), message: /"events" is required/ },
  { name: 'webhook: events empty', method: 'POST', path: WEBHOOKS, options: body({ url: 'https://93.184.215.14/', events: [] }), message: /"events" must name at least one event/ },
  { name: 'webhook: events a string', method: 'POST', path: WEBHOOKS, options: body({ url: 'https://93.184.215.14/', events: 'points.awarded' }), message: /"events" must be an array of event names/ },
  { name: 'webhook: unknown event', method: 'POST', path: WEBHOOKS, options: body({ url: 'https://93.184.215.14/', events: ['points.awarded', 'order.paid'] }), message: /"events\.1" is "order\.paid", not an event/ },
  { name: 'webhook: secret given', method: 'POST', path: WEBHOOKS, options: body({ url: 'https://93.184.215.14/', events: ['points.awarded'], secret: 'whsec_x' }), message: /Unknown field "secret"/ },
  { name: 'webhook: Idempotency-Key (the answer holds a secret)', method: 'POST', path: WEBHOOKS, options: { body: { url: 'https://93.184.215.14/', events: ['points.awarded'] }, headers: { 'idempotency-key': 'k1' } }, message: /Idempotency-Key is not accepted here/ },
  { name: 'webhook rotate: Idempotency-Key', method: 'POST', path: `${WEBHOOKS}/whk_none/rotate-secret`, options: { headers: { 'idempotency-key': 'k1' } }, message: /Idempotency-Key is not accepted here/ },
  { name: 'webhook patch: empty object', method: 'PATCH', path: `${WEBHOOKS}/whk_none`, options: body({}), message: /must change at least one of url, events or isActive/ },
  { name: 'webhook patch: isActive "yes"', method: 'PATCH', path: `${WEBHOOKS}/whk_none`, options: body({ isActive: 'yes' }), message: /"isActive" must be true or false/ },
  { name: 'webhook patch: bad event', method: 'PATCH', path: `${WEBHOOKS}/whk_none`, options: body({ events: ['nope'] }), message: /"events\.0" is "nope", not an event/ },
  { name: 'webhook test: a body with fields', method: 'POST', path: `${WEBHOOKS}/whk_none/test`, options: body({ payload: {} }), message: /Unknown field "payload"/ },
  { name: 'webhook rotate: a body with fields', method: 'POST', path: `${WEBHOOKS}/whk_none/rotate-secret`, options: body({ secret: 'mine' }), message: /Unknown field "secret"/ },
  // WooCommerce: connect, settings, coupons (the store's answers: commerce-connect.test.ts)
  { name: 'connect: siteUrl missing', method: 'POST', path: CONNECT, options: body({ consumerKey: 'ck_1', consumerSecret: 'cs_1', organizationId: 'o' }), message: /"siteUrl" is required/ },
  { name: 'connect: siteUrl not a URL', method: 'POST', path: CONNECT, options: body({ siteUrl: 'shop', consumerKey: 'ck_1', consumerSecret: 'cs_1', organizationId: 'o' }), message: /"siteUrl" must be a valid URL/ },
  { name: 'connect: siteUrl ftp', method: 'POST', path: CONNECT, options: body({ siteUrl: 'ftp://shop.example', consumerKey: 'ck_1', consumerSecret: 'cs_1', organizationId: 'o' }), message: /"siteUrl" must be an http or https URL/ },
  { name: 'connect: siteUrl plain http, not loopback', method: 'POST', path: CONNECT, options: body({ siteUrl: 'http://shop.example', consumerKey: 'ck_1', consumerSecret: 'cs_1', organizationId: 'o' }), message: /"siteUrl" must be an https URL/ },
  { name: 'connect: consumerKey without ck_', method: 'POST', path: CONNECT, options: body({ siteUrl: 'https://shop.example', consumerKey: 'abc', consumerSecret: 'cs_1', organizationId: 'o' }), message: /"consumerKey" must be a WooCommerce key starting with ck_/ },
  { name: 'connect: consumerSecret a number', method: 'POST', path: CONNECT, options: body({ siteUrl: 'https://shop.example', consumerKey: 'ck_1', consumerSecret: 5, organizationId: 'o' }), message: /"consumerSecret" must be a string/ },
  { name: 'connect: organizationId a number', method: 'POST', path: CONNECT, options: body({ siteUrl: 'https://shop.example', consumerKey: 'ck_1', consumerSecret: 'cs_1', organizationId: 5 }), message: /"organizationId" must be a string/ },
  { name: 'connect: unknown field', method: 'POST', path: CONNECT, options: body({ siteUrl: 'https://shop.example', consumerKey: 'ck_1', consumerSecret: 'cs_1', organizationId: 'o', webhookSecret: 'x' }), message: /Unknown field "webhookSecret"/ },
  { name: 'disconnect: a body with fields', method: 'DELETE', path: CONNECT, options: body({ storeId: 'x' }), message: /Unknown field "storeId"/ },
  { name: 'store settings: empty object', method: 'PATCH', path: '/api/commerce/stores/store_none/settings', options: body({}), message: /must change at least one of/ },
  { name: 'store settings: rounding unknown', method: 'PATCH', path: '/api/commerce/stores/store_none/settings', options: body({ rounding: 'HALF_EVEN' }), message: /"rounding" must be one of FLOOR, ROUND, CEIL/ },
  { name: 'coupon: discountType unknown', method: 'POST', path: '/api/commerce/coupons', options: body({ storeId: 's', rewardClaimId: 'c', discountType: 'FREE', discountValue: 1 }), message: /"discountType" must be one of PERCENTAGE, FIXED_CART, FIXED_PRODUCT/ },
  { name: 'coupon: percentage over 100', method: 'POST', path: '/api/commerce/coupons', options: body({ storeId: 's', rewardClaimId: 'c', discountType: 'PERCENTAGE', discountValue: 150 }), message: /"discountValue" must be at most 100 for a PERCENTAGE discount/ },
  { name: 'coupon: discountValue 0', method: 'POST', path: '/api/commerce/coupons', options: body({ storeId: 's', rewardClaimId: 'c', discountType: 'FIXED_CART', discountValue: 0 }), message: /"discountValue" must be at least 0.01/ },
  { name: 'coupon: rewardClaimId missing', method: 'POST', path: '/api/commerce/coupons', options: body({ storeId: 's', discountType: 'FIXED_CART', discountValue: 5 }), message: /"rewardClaimId" is required/ },
  { name: 'webhook delete: a body with fields', method: 'DELETE', path: `${WEBHOOKS}/whk_none`, options: body({ force: true }), message: /Unknown field "force"/ },
  // PATCH /community/settings (event bodies: community-events.test.ts)
  { name: 'community: points negative', method: 'PATCH', path: '/api/v1/community/settings', options: body({ messagePoints: -1 }), message: /"messagePoints" must be at least 0/ },
  { name: 'community: bonus role multiplier 0', method: 'PATCH', path: '/api/v1/community/settings', options: body({ bonusRoles: { r1: 0 } }), message: /"bonusRoles\.r1" must be at least 0\.01/ },
  { name: 'community: unknown field', method: 'PATCH', path: '/api/v1/community/settings', options: body({ secret: 'x' }), message: /Unknown field "secret"/ },
  // An array where an object of optional fields goes (valibot alone would read it as {}).
  { name: 'project: widget an array', method: 'PATCH', path: '/api/v1/project', options: body({ name: 'Shop', widget: [] }), message: /"widget" must be an object, not an array/ },
  { name: 'project: widget theme an array', method: 'PATCH', path: '/api/v1/project', options: body({ widget: { theme: [] } }), message: /"widget\.theme" must be an object, not an array/ },
  { name: 'community: bonusRoles an array', method: 'PATCH', path: '/api/v1/community/settings', options: body({ bonusRoles: [] }), message: /"bonusRoles" must be/ },
];

describe('validation: bad bodies and queries answer 400 and write nothing', () => {
  it.each(cases)('$name', async ({ method, path, options, message }) => {
    const before = snapshot();
    const res = await server.api.call(method, path, typeof options === 'function' ? options() : options);
    expect(res.status, res.text).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(Object.keys(res.body).sort()).toEqual(['error', 'message']);
    expect(res.body.error).toBe('Bad Request');
    expect(res.body.message).toMatch(message);
    expect(snapshot()).toEqual(before);
  });

  it('still accepts the valid requests next to those cases', async () => {
    const created = await server.api.post(MEMBERS, { externalId: 'new-1', dateOfBirth: '2024-02-29', avatarUrl: 'https://cdn.example/a.png', metadata: { blob: longString(16_000) } });
    expect(created.status).toBe(201);
    const typed = await server.api.post(MEMBERS, { externalId: 'new-2' }, { headers: { 'content-type': 'application/json; charset=utf-8' } });
    expect(typed.status).toBe(201);
    const key255 = await server.api.post(POINTS, { amount: 1 }, { headers: { 'idempotency-key': longString(255, 'k') } });
    expect(key255.status).toBe(200);
    const limits = await server.api.get(`${MEMBERS}?limit=100&offset=0`);
    expect(limits.status).toBe(200);
    const history = await server.api.get(`${POINTS}?history=1&limit=1`);
    expect(history.status).toBe(200);
    expect(history.body.transactions).toHaveLength(1);
  });

  it('answers 413 JSON for a body over 64 KiB, and writes nothing', async () => {
    const before = snapshot();
    const big = { externalId: 'huge', name: 'x', metadata: { blob: longString(300 * 1024) } };
    for (const [method, path] of [['POST', MEMBERS], ['PATCH', VIC], ['POST', POINTS]] as const) {
      const res = await server.api.call(method, path, { body: big });
      expect(res.status).toBe(413);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body.error).toBe('Payload Too Large');
      expect(res.body.message).toMatch(/at most 65536 bytes/);
    }
    expect(snapshot()).toEqual(before);
  });

  it('answers 413 for a chunked body over 64 KiB that declares no length', async () => {
    const before = snapshot();
    const url = new URL(MEMBERS, server.url);
    const res = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpRequest(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.secretKey}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (c: Buffer) => chunks.push(c));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
      });
      req.on('error', reject);
      req.write('{"externalId":"huge","metadata":{"blob":"');
      const chunk = longString(64 * 1024);
      for (let i = 0; i < 5; i++) req.write(chunk);
      req.end('"}}');
    });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.text)).toEqual({ error: 'Payload Too Large', message: expect.stringMatching(/at most 65536 bytes/) });
    expect(snapshot()).toEqual(before);
  });

  it('leaves the ledger sound after the whole table', () => {
    expect(checkLedger(server.ctx.db)).toEqual([]);
  });
});

// The admin's routes (docs/admin.md), called by a signed-in owner with the CSRF token and Origin its pages send.
const adminCases: Case[] = [
  { name: 'admin sign-in: email missing', method: 'POST', path: 'session', options: body({ password: 'x' }), message: /"email" is required/ },
  { name: 'admin sign-in: password over 256 characters', method: 'POST', path: 'session', options: body({ email: 'a@b.example', password: longString(257) }), message: /"password" must be at most 256 characters/ },
  { name: 'admin sign-in: totpCode of 5 digits', method: 'POST', path: 'session', options: body({ email: 'a@b.example', password: 'x', totpCode: '12345' }), message: /"totpCode" must be the 6 digits/ },
  { name: 'admin sign-in: unknown field', method: 'POST', path: 'session', options: body({ email: 'a@b.example', password: 'x', remember: true }), message: /Unknown field "remember"/ },
  { name: 'admin invite: password of 11 characters', method: 'POST', path: 'invites/nothing-here', options: body({ password: longString(11) }), message: /"password" must be at least 12 characters/ },
  { name: 'admin me: new password without the current one', method: 'PATCH', path: 'me', options: body({ newPassword: longString(20) }), message: /"newPassword" needs "currentPassword"/ },
  { name: 'admin me: empty name', method: 'PATCH', path: 'me', options: body({ name: '' }), message: /"name" must not be empty/ },
  { name: 'admin totp: letters for a code', method: 'POST', path: 'me/totp/confirm', options: body({ code: 'abcdef' }), message: /"code" must be the 6 digits/ },
  { name: 'admin points: reason missing', method: 'POST', path: 'projects/:p/members/vic/points', options: body({ amount: 5 }), message: /"reason" is required/ },
  { name: 'admin points: amount 1.5', method: 'POST', path: 'projects/:p/members/vic/points', options: body({ amount: 1.5, reason: 'x' }), message: /"amount" must be a whole number/ },
  { name: 'admin points: amount 0', method: 'POST', path: 'projects/:p/members/vic/points', options: body({ amount: 0, reason: 'x' }), message: /"amount" must not be zero/ },
  { name: 'admin points: reason of 501 characters', method: 'POST', path: 'projects/:p/members/vic/points', options: body({ amount: 5, reason: longString(501) }), message: /"reason" must be at most 500 characters/ },
  { name: 'admin points: a v1 field', method: 'POST', path: 'projects/:p/members/vic/points', options: body({ amount: 5, reason: 'x', description: 'y' }), message: /Unknown field "description"/ },
  { name: 'admin erase: no confirmation', method: 'DELETE', path: 'projects/:p/members/vic', options: body({}), message: /"confirm" is required/ },
  { name: 'admin erase: the wrong confirmation', method: 'DELETE', path: 'projects/:p/members/vic', options: body({ confirm: 'VIC' }), message: /"confirm" must be the member's externalId/ },
  { name: 'admin members: sort by name', method: 'GET', path: 'projects/:p/members?sort=name', message: /Query parameter "sort" must be one of createdAt, points, totalPointsEarned/ },
  { name: 'admin members: order up', method: 'GET', path: 'projects/:p/members?order=up', message: /Query parameter "order" must be asc or desc/ },
  { name: 'admin members: limit 101', method: 'GET', path: 'projects/:p/members?limit=101', message: /Query parameter "limit" must be at most 100/ },
  { name: 'admin members: format xml', method: 'GET', path: 'projects/:p/members?format=xml', message: /Query parameter "format" must be json or csv/ },
  { name: 'admin claims: status open', method: 'GET', path: 'projects/:p/claims?status=open', message: /Query parameter "status" must be pending, fulfilled or all/ },
  { name: 'admin draw: no winners', method: 'POST', path: 'projects/:p/rewards/nothing-here/draw', options: body({ winners: 0 }), message: /"winners" must be at least 1/ },
  { name: 'admin keys: an admin key', method: 'POST', path: 'projects/:p/keys', options: body({ type: 'admin' }), message: /"type" must be secret or publishable/ },
  { name: 'admin keys: expires in 0 days', method: 'POST', path: 'projects/:p/keys', options: body({ type: 'secret', expiresInDays: 0 }), message: /"expiresInDays" must be at least 1/ },
  { name: 'admin operators: a god role', method: 'POST', path: 'projects/:p/operators', options: body({ email: 'a@b.example', role: 'god' }), message: /"role" must be one of owner, staff, viewer/ },
  { name: 'admin operators: not an email', method: 'POST', path: 'projects/:p/operators', options: body({ email: 'nobody', role: 'staff' }), message: /"email" must be a valid email address/ },
  { name: 'admin operators: role missing', method: 'PATCH', path: 'projects/:p/operators/nothing-here', options: body({}), message: /"role" is required/ },
  { name: 'admin audit: from yesterday', method: 'GET', path: 'projects/:p/audit?from=yesterday', message: /Query parameter "from" must be a date written YYYY-MM-DD/ },
  { name: 'admin deliveries: state failed', method: 'GET', path: 'projects/:p/webhooks/nothing-here/deliveries?state=failed', message: /Query parameter "state" must be pending, delivered, dead or all/ },
  { name: 'admin project: unknown field', method: 'PATCH', path: 'projects/:p/project', options: body({ colour: 'red' }), message: /Unknown field "colour"/ },
  { name: 'admin catalog: negative cost', method: 'POST', path: 'projects/:p/catalog/rewards', options: body({ name: 'Mug', type: 'CUSTOM', pointsCost: -1 }), message: /"pointsCost" must be at least 0/ },
];

describe('validation of the admin: bad bodies and queries answer 400 and write nothing', () => {
  let owner: AdminBrowser;
  beforeAll(async () => {
    owner = await makeOperator(server, 'validator@shop.example', 'owner');
  });

  it.each(adminCases)('$name', async ({ method, path, options, message }) => {
    const before = { ...snapshot(), audit: server.ctx.db.prepare('SELECT count(*) AS n FROM audit_log').get() };
    const res = await owner.call(method, `/api/admin/${path.replace(':p', server.projectId)}`, typeof options === 'function' ? options() : options);
    expect(res.status, res.text).toBe(400);
    expect(Object.keys(res.body).sort()).toEqual(['error', 'message']);
    expect(res.body.message).toMatch(message);
    expect({ ...snapshot(), audit: server.ctx.db.prepare('SELECT count(*) AS n FROM audit_log').get() }).toEqual(before);
  });
});
