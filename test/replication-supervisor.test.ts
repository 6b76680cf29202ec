import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { superviseLitestream } from '../src/replication/supervisor.ts';
import type { Logger } from '../src/shared/log.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'punchcard-supervisor-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A stand-in for the outside world's Litestream: JSON log lines, and on SIGTERM the line v0.3.13 prints when its context is canceled mid-checkpoint. */
function fakeLitestream(): string {
  const line = (level: string, msg: string, error: string) => JSON.stringify({ time: '2026-11-27T00:00:00Z', level, msg, error });
  const binary = join(dir, 'litestream');
  writeFileSync(binary, `#!/bin/sh
trap 'echo ${JSON.stringify(line('ERROR', 'failed to run', 'checkpoint: mode=PASSIVE err=release read lock: context canceled'))}; exit 0' TERM
echo ${JSON.stringify(JSON.stringify({ time: '2026-11-27T00:00:00Z', level: 'INFO', msg: 'replicating to', name: 'file' }))}
echo ${JSON.stringify(line('ERROR', 'sync error', 'context canceled'))}
while true; do sleep 0.05; done
`, { mode: 0o755 });
  return binary;
}

it('reports Litestream errors while it runs, but not the canceled checkpoint its own SIGTERM causes', async () => {
  const errors: string[] = [];
  const infos: string[] = [];
  const log: Logger = { info: (message) => infos.push(message), warn: (message) => errors.push(message), error: (message) => errors.push(message) };
  const replication = superviseLitestream({
    db: join(dir, 'punchcard.db'), url: `file://${join(dir, 'replica')}`, binary: fakeLitestream(), version: 'v0.3.13',
    config: join(dir, 'litestream.yml'), masterKey: 'environment', log,
  });
  await expect.poll(() => errors).toEqual(['Litestream: sync error error=context canceled']);
  await replication.stop();
  expect(errors).toEqual(['Litestream: sync error error=context canceled']);
  expect(infos).toContain('Litestream, stopping: failed to run error=checkpoint: mode=PASSIVE err=release read lock: context canceled');
  expect(replication.status().state).toBe('stopped');
});
