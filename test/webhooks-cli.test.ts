import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recordFailed } from '../src/webhooks/deliveries.ts';
import { upsertMember } from '../src/domain/members/members.ts';
import { createProject } from '../src/domain/project/projects.ts';
import { createWebhook } from '../src/webhooks/subscriptions.ts';
import { openStore } from '../src/db/store.ts';
import { punchcard, punchcardJson } from './helpers/cli.ts';
import { TEST_MASTER_KEY } from './helpers/server.ts';

const dir = mkdtempSync(join(tmpdir(), 'punchcard-webhooks-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('punchcard webhooks', () => {
  it('lists webhooks and dead deliveries, shows state, replays one, re-enables offering the rest; doctor reports the backlog', async () => {
    const db = join(dir, 'cli.db');
    // A webhook disabled by its first failure (a policy of no patience), whose two deliveries then died after five attempts.
    const store = await openStore({ path: db, masterKey: TEST_MASTER_KEY });
    const now = new Date();
    const { project } = createProject(store.db, store.box, { name: 'Shop' }, now);
    const webhook = createWebhook(store.db, store.box, project.id, { url: 'https://93.184.215.14/hooks', events: ['member.created'] }, now);
    upsertMember(store.db, project.id, { externalId: 'ann' }, now);
    upsertMember(store.db, project.id, { externalId: 'bob' }, now);
    for (const deliveryRowId of store.db.prepare('SELECT id FROM webhook_deliveries ORDER BY id').pluck().all() as number[]) {
      for (let i = 0; i < 5; i++) recordFailed(store.db, deliveryRowId, { httpStatus: 502, error: 'http_502' }, now, { disableAfterMs: 0, minFailedDeliveries: 1 });
    }
    store.close();

    const listed = punchcardJson(['--db', db, 'webhooks', 'list', '--project', project.id]);
    expect(listed.webhooks).toEqual([expect.objectContaining({
      id: webhook.id, isActive: false, state: 'disabled', failingSince: now.toISOString(), failedAt: now.toISOString(),
      lastError: `Disabled: nothing delivered since ${now.toISOString()} (1 deliveries failed; last: http_502)`,
    })]);
    expect(JSON.stringify(listed)).not.toContain('whsec_');
    const text = punchcard(['--db', db, 'webhooks', 'list', '--project', project.id]);
    expect(text.stdout).toMatch(new RegExp(`${webhook.id}\\s+https://93\\.184\\.215\\.14/hooks\\s+member\\.created\\s+DISABLED\\s+${now.toISOString()}`));
    expect(punchcard(['--db', db, 'webhooks', 'show', webhook.id]).stdout).toContain(`failingSince: ${now.toISOString()}`);

    const dead = punchcardJson(['--db', db, 'webhooks', 'deliveries', '--project', project.id, '--status', 'dead']);
    expect(dead.deliveries).toEqual([1, 2].map(() => expect.objectContaining({ webhookId: webhook.id, type: 'member.created', status: 'dead', attempts: 5, lastStatus: 502 })));
    const deliveryId = dead.deliveries[0].id as string;

    const doctor = punchcardJson(['--db', db, 'doctor']);
    expect(doctor).toMatchObject({ healthy: true, webhooks: { pendingDeliveries: 0, deadDeliveries: 2, failedWebhooks: 1,
      failing: [{ id: webhook.id, state: 'disabled', failingSince: now.toISOString(), disabledAt: now.toISOString() }] } });
    expect(doctor.webhooks.retention).toMatch(/delivered rows 7 days .* dead rows 30 days/);
    expect(punchcard(['--db', db, 'doctor']).stdout).toContain(`${webhook.id} (https://93.184.215.14/hooks, project ${project.id}): DISABLED at ${now.toISOString()}`);

    const replayed = punchcardJson(['--db', db, 'webhooks', 'replay', deliveryId]);
    expect(replayed).toMatchObject({ id: deliveryId, status: 'pending', attempts: 0, lastError: null });
    const again = punchcard(['--db', db, 'webhooks', 'replay', deliveryId]);
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/still pending/);

    // Re-enabling offers to resend the other delivery that died while the webhook was down.
    const enabled = punchcard(['--db', db, 'webhooks', 'enable', webhook.id]);
    expect(enabled.stdout).toContain(`1 deliveries failed while it was down (since ${now.toISOString()})`);
    expect(enabled.stdout).toContain(`punchcard webhooks resend-failed ${webhook.id} --since ${now.toISOString()}`);
    expect(punchcardJson(['--db', db, 'webhooks', 'show', webhook.id])).toMatchObject({ isActive: true, state: 'active', failingSince: null, failedAt: null, lastError: null });
    expect(punchcardJson(['--db', db, 'webhooks', 'resend-failed', webhook.id, '--since', now.toISOString()])).toEqual({ webhookId: webhook.id, resent: 1 });
    expect(punchcardJson(['--db', db, 'doctor']).webhooks).toMatchObject({ pendingDeliveries: 2, deadDeliveries: 0, failedWebhooks: 0, failing: [] });

    const unknown = punchcard(['--db', db, 'webhooks', 'enable', 'whk_nope']);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toBe('punchcard: No webhook with id "whk_nope"\n');
  }, 60_000);
});
