import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/connection.ts';
import { migrate, migrationsFromDir } from '../src/db/migrations.ts';

const dir = mkdtempSync(join(tmpdir(), 'punchcard-webhook-migration-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('migration 0012', () => {
  it("replaces the receivers' words kept in failure reasons with a classified reason, and keeps disabled webhooks disabled", () => {
    const db = openDatabase(join(dir, 'punchcard.db'));
    migrate(db, migrationsFromDir().filter((m) => m.version <= 11));
    const at = '2026-01-01T00:00:00.000Z';
    db.prepare("INSERT INTO projects (id, name, widget_secret, created_at) VALUES ('prj_a', 'A', 'unused', ?)").run(at);
    db.prepare(`INSERT INTO webhooks (id, project_id, url, events, secret, is_active, failed_at, last_error, created_at, updated_at)
      VALUES ('whk_a', 'prj_a', 'https://example.com/', '[]', 's', 0, ?, 'Delivery dlv_1 failed 5 times; last: HTTP 500: root:x:0:0', ?, ?)`).run(at, at, at);
    db.prepare("INSERT INTO events (id, public_id, project_id, type, data, created_at) VALUES (1, 'evt_1', 'prj_a', 'points.awarded', '{}', ?)").run(at);
    const delivery = db.prepare(`INSERT INTO webhook_deliveries (public_id, project_id, webhook_id, event_id, status, attempts, run_at, last_status, last_error, created_at)
      VALUES (?, 'prj_a', 'whk_a', 1, 'dead', 5, ?, ?, ?, ?)`);
    const before: [number | null, string][] = [
      [500, 'HTTP 500: <html>internal admin panel</html>'], [null, 'timed out after 10000 ms'], [null, 'connect ECONNREFUSED 10.0.0.5:6379'],
      [null, 'getaddrinfo ENOTFOUND redis.internal'], [null, 'rebind.example.test resolves to 127.0.0.1 is a loopback address'], [null, 'weird'],
    ];
    for (const [i, [status, error]] of before.entries()) delivery.run(`dlv_${i}`, at, status, error, at);

    migrate(db, migrationsFromDir());
    expect(db.prepare('SELECT last_error FROM webhook_deliveries ORDER BY id').pluck().all())
      .toEqual(['http_500', 'timeout', 'connection_refused', 'dns_error', 'blocked_address', 'network_error']);
    expect(db.prepare('SELECT is_active, failed_at, failing_since, failed_deliveries, last_error FROM webhooks').get()).toEqual({
      is_active: 0, failed_at: at, failing_since: null, failed_deliveries: 0,
      last_error: 'Disabled: a delivery failed 5 times (the reason was recorded before migration 0012)',
    });
    db.close();
  });
});
