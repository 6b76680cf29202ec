import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { backupDatabase } from '../../db/backup.ts';
import { recordAudit } from '../../domain/audit/audit-log.ts';
import { emptyBody } from '../../schemas/common.ts';
import { AppError } from '../../shared/errors.ts';
import * as admin from '../../schemas/answers/admin.ts';
import { created } from '../route.ts';
import { adminSettings, operatorActor, type ProjectApi } from './api.ts';

const BACKUP_FILE = /^punchcard-[\dTZ-]+-[\da-f]{6}\.db$/;

/** The backups Settings → Backups took, newest first. */
function listBackups(dir: string): { file: string; bytes: number; createdAt: string }[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => BACKUP_FILE.test(name));
  } catch {
    return []; // no backup taken yet: the folder is made by the first
  }
  return names.map((file) => {
    const stats = statSync(join(dir, file));
    return { file, bytes: stats.size, createdAt: stats.mtime.toISOString() };
  }).sort((a, b) => (a.file < b.file ? 1 : -1));
}

/**
 * Backups of the whole database (every project's: owners only take them) into a `backups` folder
 * beside it, as `punchcard backup` writes them, and replication's state.
 */
export function backupRoutes({ route, ctx }: ProjectApi): void {
  const dir = () => adminSettings(ctx).backupDir;

  route('GET', '/backups', { responses: { 200: admin.backupList } }, () => ({ backups: listBackups(dir()), replication: ctx.replication?.() ?? null }));

  route('POST', '/backups', { body: emptyBody, optionalBody: true, responses: { 201: admin.backup }, errors: [503] }, async ({ projectId, operator, now }) => {
    // VACUUM INTO cannot run inside the route's read snapshot: the copy starts once it has ended (on the next tick).
    await Promise.resolve();
    const file = join(dir(), `punchcard-${now.toISOString().replace(/[:.]/g, '-')}-${randomBytes(3).toString('hex')}.db`);
    let bytes: number;
    try {
      mkdirSync(dir(), { recursive: true, mode: 0o700 });
      ({ bytes } = backupDatabase(ctx.db, file));
    } catch (error) {
      throw new AppError(503, 'Service Unavailable', `The backup could not be written: ${(error as Error).message}`);
    }
    await ctx.write(() => recordAudit(ctx.db, {
      projectId, actor: operatorActor(operator), action: 'POST /backups', target: basename(file), summary: { after: { bytes } },
    }, now));
    return created({ file: basename(file), bytes, createdAt: now.toISOString() });
  });
}
