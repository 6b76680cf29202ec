import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLAIM_ENDPOINT_SQL, ENDPOINT_QUEUES_SQL } from '../src/domain/deliveries.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

// The runner's statements run on the single write path; each must reach its rows through an index
// so that its cost does not grow with the backlog of a dead endpoint.
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ webhooks: { runner: false } });
});
afterAll(() => server.stop());

const plan = (sql: string, ...params: unknown[]) =>
  (server.ctx.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((row) => row.detail).join('; ');

describe('the delivery claim', () => {
  it("reaches one endpoint's due rows through its index, oldest first, without sorting the backlog", () => {
    const detail = plan(CLAIM_ENDPOINT_SQL, '2026-01-01T00:00:00.000Z', 'whk_x', 10);
    expect(detail).toMatch(/SEARCH d USING INDEX webhook_deliveries_webhook_due \(webhook_id=\? AND run_at<\?\)/);
    expect(detail).not.toMatch(/TEMP B-TREE/);
    expect(detail).not.toMatch(/SCAN d/);
  });

  it('finds each endpoint’s next due time with one index probe per webhook', () => {
    const detail = plan(ENDPOINT_QUEUES_SQL);
    expect(detail).toMatch(/SEARCH d USING (COVERING )?INDEX webhook_deliveries_webhook_due \(webhook_id=\?\)/);
    expect(detail).not.toMatch(/SCAN d/);
  });

  it('takes over leases and prunes through partial indexes, never scanning pending rows', () => {
    expect(plan("UPDATE webhook_deliveries SET run_at = ?, locked_until = NULL WHERE status = 'pending' AND locked_until IS NOT NULL", 'x'))
      .toMatch(/USING (COVERING )?INDEX webhook_deliveries_leased/);
    expect(plan("SELECT id, event_id FROM webhook_deliveries WHERE status = 'dead' AND run_at < ? ORDER BY run_at LIMIT ?", 'x', 1))
      .toMatch(/USING INDEX webhook_deliveries_dead \(run_at<\?\)/);
  });
});
