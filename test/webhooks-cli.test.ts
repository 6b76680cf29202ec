import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recordFailed } from '../src/domain/deliveries.ts';
import { upsertMember } from '../src/domain/members.ts';
import { createProject } from '../src/domain/projects.ts';
import { createWebhook } from '../src/domain/webhooks.ts';
import { openStore } from '../src/store.ts';
import { punchcard, punchcardJson } from './helpers/cli.ts';
import { TEST_MASTER_KEY } from './helpers/server.ts';

const dir = mkdtempSync(join(tmpdir(), 'punchcard-webhooks-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('punchcard webhooks', () => {
  it('lists webhooks and dead deliveries, replays one, re-enables the webhook; doctor reports the backlog', async () => {
    const db = join(dir, 'cli.db');
    // A webhook whose first delivery died after five failures (which marked the webhook failed).
    const store = await openStore({ path: db, masterKey: TEST_MASTER_KEY });
    const now = new Date();
    const { project } = createProject(store.db, store.box, { name: 'Shop' }, now);
    const webhook = createWebhook(store.db, store.box, project.id, { url: 'https://93.184.215.14/hooks', events: ['member.created'] }, now);
    upsertMember(store.db, project.id, { externalId: 'ann' }, now);
    const deliveryRowId = store.db.prepare('SELECT id FROM webhook_deliveries').pluck().get() as number;
    for (let i = 0; i < 5; i++) recordFailed(store.db, deliveryRowId, { httpStatus: 502, error: 'HTTP 502' }, now);
    store.close();

    const listed = punchcardJson(['--db', db, 'webhooks', 'list', '--project', project.id]);
    expect(listed.webhooks).toEqual([expect.objectContaining({ id: webhook.id, isActive: false, failedAt: now.toISOString() })]);
    expect(JSON.stringify(listed)).not.toContain('whsec_');
    const text = punchcard(['--db', db, 'webhooks', 'list', '--project', project.id]);
    expect(text.stdout).toMatch(new RegExp(`${webhook.id}\\s+https://93\\.184\\.215\\.14/hooks\\s+member\\.created\\s+FAILED`));

    const dead = punchcardJson(['--db', db, 'webhooks', 'deliveries', '--project', project.id, '--status', 'dead']);
    expect(dead.deliveries).toEqual([expect.objectContaining({ webhookId: webhook.id, type: 'member.created', status: 'dead', attempts: 5, lastStatus: 502 })]);
    const deliveryId = dead.deliveries[0].id as string;

    const doctor = punchcardJson(['--db', db, 'doctor']);
    expect(doctor).toMatchObject({ healthy: true, webhooks: { pendingDeliveries: 0, deadDeliveries: 1, failedWebhooks: 1 } });

    const replayed = punchcardJson(['--db', db, 'webhooks', 'replay', deliveryId]);
    expect(replayed).toMatchObject({ id: deliveryId, status: 'pending', attempts: 0, lastError: null });
    const again = punchcard(['--db', db, 'webhooks', 'replay', deliveryId]);
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/still pending/);

    const enabled = punchcardJson(['--db', db, 'webhooks', 'enable', webhook.id]);
    expect(enabled).toMatchObject({ id: webhook.id, isActive: true, failedAt: null, lastError: null });
    expect(punchcardJson(['--db', db, 'doctor']).webhooks).toEqual({ pendingDeliveries: 1, deadDeliveries: 0, failedWebhooks: 0 });

    const unknown = punchcard(['--db', db, 'webhooks', 'enable', 'whk_nope']);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toBe('punchcard: No webhook with id "whk_nope"\n');
  }, 60_000);
});
