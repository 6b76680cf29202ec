import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERSION } from '../src/shared/assets.ts';
import { client, request } from './helpers/http.ts';
import { startReceiver, type Receiver } from './helpers/receiver.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

let server: TestServer;
let receiver: Receiver;

beforeAll(async () => {
  server = await startTestServer({ webhooks: { runner: false } });
  receiver = await startReceiver();
});
afterAll(async () => {
  await server.stop();
  await receiver.close();
});

/** The value of one series in Prometheus text, 0 when absent. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

describe('GET /healthz', () => {
  it('answers status, version, database, the delivery queue and replication, without a key', async () => {
    const res = await request(server.url, 'GET', '/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'ok', version: VERSION, database: 'ok', jobs: { pending: 0, dead: 0 },
      replication: { enabled: false, state: 'off', lastSyncAt: null, lagSeconds: null }, warnings: [],
    });
  });

  it('answers 503 while the database cannot be written, and 200 again after', async () => {
    // Another connection holds the write lock; the server's connection gives up at once instead of after its busy timeout.
    server.ctx.db.pragma('busy_timeout = 0');
    const other = new Database(server.dbPath);
    other.exec('BEGIN EXCLUSIVE');
    try {
      const res = await request(server.url, 'GET', '/healthz');
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ status: 'unavailable', database: 'unwritable', version: VERSION });
    } finally {
      other.exec('ROLLBACK');
      other.close();
      server.ctx.db.pragma('busy_timeout = 5000');
    }
    expect((await request(server.url, 'GET', '/healthz')).status).toBe(200);
  });
});

describe('GET /metrics', () => {
  const TOKEN = 'scrape-me-please-0123456789';
  const scrape = () => client(server.url, TOKEN).get('/metrics');

  it('is off (404) while no metrics token is set', async () => {
    const off = await request(server.url, 'GET', '/metrics');
    expect(off.status).toBe(404);
    expect(off.body.message).toMatch(/punchcard metrics token/);
  });

  it('takes the metrics token, and nothing else: neither a secret nor a publishable key', async () => {
    server.ctx.metricsToken = TOKEN;
    const res = await scrape();
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    for (const wrong of [undefined, 'scrape-me-please-wrong-6789', server.secretKey, server.publishableKey]) {
      const refused = await client(server.url, wrong).get('/metrics');
      expect(refused.status, String(wrong)).toBe(401);
      expect(refused.body).toMatchObject({ error: 'Unauthorized', message: expect.any(String) });
    }
    expect((await client(server.url, server.secretKey).get('/metrics')).body.message).toMatch(/secret key does not read \/metrics/);
  });

  it('counts requests by route and status, latency, awards, ledger rows, deliveries, queue depth, batches and size', async () => {
    const before = (await scrape()).text;
    const hook = await server.api.post('/api/v1/webhooks', { url: receiver.url, events: ['points.awarded'] });
    expect(hook.status).toBe(201);
    await server.api.post('/api/v1/members', { externalId: 'metrics-1' });
    for (const amount of [10, 20, 30]) expect((await server.api.post('/api/v1/members/metrics-1/points', { amount })).status).toBe(200);
    expect((await server.api.post('/api/v1/members/metrics-1/points', { amount: 'x' })).status).toBe(400);
    const queued = (await scrape()).text;
    expect(sample(queued, 'punchcard_job_queue_depth{status="pending"}')).toBe(3);
    await server.deliveries.runDue();
    expect(receiver.received).toHaveLength(3);

    const text = (await scrape()).text;
    const route = 'route="/api/v1/members/:externalId/points"';
    expect(sample(text, `punchcard_http_requests_total{method="POST",${route},status="200"}`)
      - sample(before, `punchcard_http_requests_total{method="POST",${route},status="200"}`)).toBe(3);
    expect(sample(text, `punchcard_http_requests_total{method="POST",${route},status="400"}`)).toBe(1);
    expect(sample(text, `punchcard_http_request_duration_seconds_count{method="POST",${route}}`)).toBe(4);
    expect(sample(text, 'punchcard_awards_total') - sample(before, 'punchcard_awards_total')).toBe(3);
    expect(sample(text, 'punchcard_ledger_transactions{type="EARNED"}')).toBeGreaterThanOrEqual(3);
    expect(sample(text, 'punchcard_webhook_deliveries_total{outcome="delivered"}')).toBe(3);
    expect(sample(text, 'punchcard_job_queue_depth{status="pending"}')).toBe(0);
    expect(sample(text, 'punchcard_group_commit_batch_size_count')).toBeGreaterThan(0);
    expect(sample(text, 'punchcard_database_size_bytes{file="database"}')).toBeGreaterThan(0);
    // Unknown paths share one series, so a scan of random URLs cannot grow the metrics without bound.
    await request(server.url, 'GET', '/no/such/path');
    expect((await scrape()).text).toMatch(/route="unmatched",status="404"/);
  });
});
